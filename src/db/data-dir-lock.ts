import { Database } from "bun:sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";

/**
 * One `serve` per data directory. Two servers on one database would each run a delivery loop
 * and a group commit over the same file: leases would still hold, but syncs, retention and the
 * "last used" stamps would fight, and the operator almost certainly started the second by
 * mistake. The lock is SQLite's own file lock on `serve.lock` in the data directory, held in
 * an exclusive transaction for the life of the process: portable wherever SQLite runs, and the
 * operating system drops it when the process dies, kill -9 included. `backup`, `migrate` and
 * `scim-token` do not take it, so they keep working beside a running server.
 */
export const LOCK_FILE = "serve.lock";

export type DataDirLock = { release(): void };

/** Takes the lock, or returns null when another process (or server in this one) holds it. */
export function lockDataDir(dataDir: string): DataDirLock | null {
  // Owner-only whatever the umask: the directory holds the database and the secret key.
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const db = new Database(join(dataDir, LOCK_FILE), { create: true });
  try {
    db.exec("PRAGMA busy_timeout = 0");
    db.exec("PRAGMA locking_mode = EXCLUSIVE");
    db.exec("BEGIN EXCLUSIVE");
    // A write makes the lock durable for the transaction (an empty one may not touch the file).
    db.exec("CREATE TABLE IF NOT EXISTS holder (pid INTEGER)");
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code?.startsWith("SQLITE_BUSY")) return null;
    throw e;
  }
  return {
    release() {
      try {
        db.exec("ROLLBACK");
      } catch {
        /* closing anyway */
      }
      db.close();
    },
  };
}
