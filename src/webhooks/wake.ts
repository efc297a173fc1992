/**
 * Wakes delivery loops when events commit. Module-level on purpose: `publish` only has the
 * caller's transaction, not the loop, and every loop in the process may as well look (a loop
 * with nothing due just goes back to sleep). Many publishes in one transaction queue one wake.
 */
import type { Db } from "../db/connection";
import { eventsAnnouncer } from "../db/event-signal";
import { afterCommit } from "../db/transaction";

const listeners = new Set<() => void>();

export function onEventsCommitted(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/**
 * Called inside the producer's transaction (`db`), after its events are written: the listeners run
 * once it has committed (`afterCommit`, outside its task), so the tick a listener asks for sees the
 * events on either engine — on PostgreSQL a tick started before the COMMIT would find nothing and
 * the events would wait for the next poll. On PostgreSQL the other nodes are told too
 * (src/db/event-signal.ts). A rolled-back producer wakes nobody.
 */
export function wakeAfterCommit(db: Db): void {
  afterCommit(wakeListeners);
  afterCommit(eventsAnnouncer(db));
}

/** One function, so a transaction that publishes many events queues one wake (`afterCommit` keeps each once). */
function wakeListeners(): void {
  for (const l of listeners) l();
}
