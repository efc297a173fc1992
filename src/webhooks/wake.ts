/**
 * Wakes delivery loops when events commit. Module-level on purpose: `publish` only has the
 * caller's transaction, not the loop, and every loop in the process may as well look (a loop
 * with nothing due just goes back to sleep). Many publishes in one transaction queue one wake.
 */
const listeners = new Set<() => void>();
let queued = false;

export function onEventsCommitted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Called inside the producer's transaction. bun:sqlite transactions are synchronous, so a
 * microtask runs only after the transaction has returned, i.e. after COMMIT (or rollback, when
 * the wake is merely a wasted look).
 */
export function wakeAfterCommit(): void {
  if (queued) return;
  queued = true;
  queueMicrotask(() => {
    queued = false;
    for (const l of listeners) l();
  });
}
