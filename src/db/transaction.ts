import type { Connection, Db, Tx } from "./connection";

/**
 * Runs `work` as one write transaction and returns what it returns; a throw rolls everything
 * back. On SQLite it is BEGIN IMMEDIATE: the write lock is taken at BEGIN (waiting on
 * busy_timeout), so a transaction that reads and then writes cannot fail half way with
 * SQLITE_BUSY when it upgrades. Features open write transactions only through this.
 */
export function writeTransaction<T>(db: Db, work: (tx: Tx) => T): T {
  return db.transaction(work, { behavior: "immediate" });
}

/**
 * `work` bound once as a write transaction on the connection itself, for writers that run
 * prepared statements outside drizzle (background batches: activity rows, purges, delivery ticks,
 * "last used" stamps). Like `writeTransaction`, it takes the write lock at BEGIN.
 */
export function immediateTransaction<A extends unknown[], T>(connection: Connection, work: (...args: A) => T): (...args: A) => T {
  const transaction = connection.transaction(work);
  return (...args) => transaction.immediate(...args);
}
