/**
 * Whether the database answers and can take writes, for /readyz. A full disk (or filesystem quota)
 * shows up as SQLite's SQLITE_FULL on the write that hit it; from then on the database is reported
 * not writable, and each check probes with a small committed write until one succeeds again — so
 * readiness recovers by itself once space is freed, and a healthy instance never writes for a probe.
 */
import { clientOf, writerOf, type Connection, type Db } from "./connection";
import { isLockBusy, isStorageFull } from "./lock-wait";
import { immediateTransaction } from "./transaction";

const fullSince = new WeakMap<Connection, number>();

/** Called for every failed request: remembers a full database. */
export function noteWriteFailure(db: Db, e: unknown): void {
  if (isStorageFull(e)) fullSince.set(writerOf(db), Date.now());
}

/** A round trip to the database; throws when it does not answer. */
export function pingDatabase(db: Db): void {
  clientOf(db).query("SELECT 1").get();
}

/** False while the database is known full: probes with a committed one-row write first. */
export async function databaseWritable(db: Db): Promise<boolean> {
  const sqlite = writerOf(db);
  if (!fullSince.has(sqlite)) return true;
  try {
    // 1 MiB committed — a SCIM body's worth (800 000 bytes) of new pages in the file and frames
    // in the WAL, as a real write needs; then given back.
    const probe = sqlite.query("INSERT INTO settings (key, value) VALUES ('readyz.write_probe', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    await immediateTransaction(db, () => probe.run("x".repeat(PROBE_BYTES)), { waitForLock: false })();
    await immediateTransaction(db, () => probe.run(new Date().toISOString()), { waitForLock: false })();
  } catch (e) {
    // Another writer holds the lock: that one is writing, so neither state is proven; keep it.
    if (isLockBusy(e) || isStorageFull(e)) return false;
    throw e;
  }
  fullSince.delete(sqlite);
  return true;
}

const PROBE_BYTES = 1024 * 1024;
