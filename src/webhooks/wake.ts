/**
 * Wakes delivery loops when events commit. Module-level on purpose: `publish` only has the
 * caller's transaction, not the loop, and every loop in the process may as well look (a loop
 * with nothing due just goes back to sleep). Many publishes in one transaction queue one wake.
 */
import { detached } from "../db/lock-wait";

const listeners = new Set<() => void>();
let queued = false;

export function onEventsCommitted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Called inside the producer's transaction, after its events are written. The listeners run in a
 * microtask — before that transaction commits (its body may await more statements) but after the
 * events' rows are counted, so the loop's durability mark covers them; the tick a listener asks
 * for is a write transaction of its own, so on SQLite it starts only once the producer's has
 * ended (the one writer is taken in turn). A rolled-back producer only costs a wasted look.
 * The listeners run detached from the producer's task: what they schedule is no part of its
 * transaction.
 */
export function wakeAfterCommit(): void {
  if (queued) return;
  queued = true;
  detached(() =>
    queueMicrotask(() => {
      queued = false;
      for (const l of listeners) l();
    }),
  );
}
