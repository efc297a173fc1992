/**
 * A PostgreSQL store's counter connection (`Store.counters`, src/db/counter.ts): one connection of
 * its own, opened on first use with the pool's settings (hosts, TLS, target_session_attrs,
 * timeouts, number parsers), whose session commits without waiting for the WAL flush.
 *
 * - Its own connection, not one of the pool: a counter statement runs while its caller's write
 *   transaction holds a pooled connection. Taking a second one from the same pool would wait
 *   forever once every pooled connection is held by a transaction doing the same.
 * - `synchronous_commit = off` for the session rather than `SET LOCAL` in a transaction of three
 *   round trips: nothing else runs on this connection, and every statement is one autocommitted
 *   counter increment whose durability the caller's own synchronous COMMIT gives (counter.ts).
 * - One connection: postgres.js pipelines the statements on it, and each holds its counter row for
 *   one statement; a second node has its own, and the row lock orders them.
 * - `lock_timeout`: a counter row is otherwise locked only by another counter statement (for one
 *   statement) or by a project's deletion (its cascade, until it commits). A deletion that also
 *   waits for a lock the caller's open transaction holds would wait on it forever while the caller
 *   waits on this statement — a cycle PostgreSQL cannot see (the caller's transaction is idle on
 *   another connection), so its deadlock detector never breaks it. The timeout does: the counter
 *   statement fails (55P03, answered 503 "unavailable", retry), the caller rolls back, and the
 *   deletion goes on.
 */
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import type { Db } from "../store";

/** How long a counter statement waits for a counter row held by another transaction. */
export const COUNTER_LOCK_TIMEOUT_MS = 2_000;

export type CounterConnection = { sql: postgres.Sql; db: Db };

export function openCounterConnection(pool: postgres.Sql): CounterConnection {
  const options = pool.options;
  const sql = postgres({
    // The pool's parsed options read back (postgres.js takes them as given when `shared` is unset).
    ...(options as unknown as postgres.Options<{}>),
    shared: undefined,
    max: 1,
    connection: { ...options.connection, synchronous_commit: "off", lock_timeout: COUNTER_LOCK_TIMEOUT_MS },
  } as postgres.Options<{}>);
  return { sql, db: drizzle(sql) as unknown as Db };
}
