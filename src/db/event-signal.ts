/**
 * Waking the delivery loops of every process when events commit. Within a process `publish` wakes
 * its own loops directly (src/webhooks/wake.ts); on PostgreSQL other processes — other nodes on
 * the same database — hear of the commit through `LISTEN`/`NOTIFY` on one channel. SQLite has one
 * process per data directory (the directory lock), so there it is nothing.
 *
 * The notice is sent after the producer's commit (`afterCommit`), on a pooled connection of its
 * own, not inside the producer's transaction: a `NOTIFY` in a transaction takes PostgreSQL's
 * notify-queue lock at COMMIT and holds it until the commit is flushed, which would queue every
 * producer's commit behind the others'. Notices are coalesced per process: while one is on its
 * way, any number of later commits send one more after it, since a notice only says "look" and a
 * woken loop claims everything due. A notice that is lost (the process dies right after its
 * commit, the connection drops) delays those events until the next poll
 * (`GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS`), never loses them.
 */
import { randomBytes } from "node:crypto";
import type postgres from "postgres";
import type { Db } from "./connection";
import { storeOf, type Store } from "./store";

/** The channel every node listens on (a database's nodes share it; other databases have their own). */
export const EVENTS_CHANNEL = "gatehouse_webhook_events";

type Signal = { sql: postgres.Sql; origin: string; sending: boolean; again: boolean; announce: () => void };

const signals = new WeakMap<Store, Signal>();
const nothing = (): void => {};

function signalOf(db: Db): Signal | null {
  const store = storeOf(db);
  if (store.engine !== "postgres") return null;
  let signal = signals.get(store);
  if (!signal) {
    const s: Signal = {
      sql: (store as Store & { sql: postgres.Sql }).sql,
      // Names this process's store in its notices, so its own listener skips them (its loops were woken directly).
      origin: randomBytes(6).toString("hex"),
      sending: false,
      again: false,
      announce: () => send(s),
    };
    signals.set(store, (signal = s));
  }
  return signal;
}

function send(s: Signal): void {
  if (s.sending) {
    s.again = true;
    return;
  }
  s.sending = true;
  s.again = false;
  const done = () => {
    s.sending = false;
    if (s.again) send(s);
  };
  // A failed notice (server gone, pool closed) is left to the poll: it only hastens a tick.
  s.sql`SELECT pg_notify(${EVENTS_CHANNEL}, ${s.origin})`.then(done, done);
}

/**
 * The function that tells every other process on `db`'s database that events were committed — one
 * function per store, so `afterCommit` queues it once per transaction however many events it
 * published. On SQLite a function that does nothing.
 */
export function eventsAnnouncer(db: Db): () => void {
  return signalOf(db)?.announce ?? nothing;
}

/**
 * Calls `onEvents` whenever another process announces committed events on `db`'s database, and
 * each time the listening connection is (re)established — notices sent while it was down are
 * lost, so the loop looks once. postgres.js listens on a dedicated connection (not one of the
 * pool's) and re-listens by itself after it drops. Resolves, once listening, to a function that
 * stops; rejects when the first LISTEN fails. On SQLite it listens to nothing.
 */
export async function listenForEvents(db: Db, onEvents: () => void): Promise<() => Promise<void>> {
  const signal = signalOf(db);
  if (!signal) return async () => {};
  const { unlisten } = await signal.sql.listen(EVENTS_CHANNEL, (origin) => origin !== signal.origin && onEvents(), onEvents);
  return async () => {
    await unlisten().catch(() => {});
  };
}
