/**
 * Whether the database answers and can take writes, for /readyz. A full disk (or filesystem quota)
 * shows up as SQLite's SQLITE_FULL on the write that hit it; from then on the database is reported
 * not writable, and each check probes with a small committed write until one succeeds again — so
 * readiness recovers by itself once space is freed, and a healthy instance never writes for a probe.
 */
import type { Db } from "./connection";
import { isLockBusy, isStorageFull } from "./lock-wait";
import { preparedQuery } from "./statement";
import { storeOf, writeTransaction, type Store } from "./store";

const fullSince = new WeakMap<Store, number>();

/** Called for every failed request: remembers a full database. */
export function noteWriteFailure(db: Db, e: unknown): void {
  if (isStorageFull(e)) fullSince.set(storeOf(db), Date.now());
}

const ping = preparedQuery<{ one: number }, []>("SELECT 1 AS one");

/** A round trip to the database; rejects when it does not answer. */
export async function pingDatabase(db: Db): Promise<void> {
  await ping.get(db);
}

const writeProbe = preparedQuery<unknown, [string]>(
  "INSERT INTO settings (key, value) VALUES ('readyz.write_probe', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
);

/** False while the database is known full: probes with a committed one-row write first. */
export async function databaseWritable(db: Db): Promise<boolean> {
  const store = storeOf(db);
  if (!fullSince.has(store)) return true;
  try {
    // 1 MiB committed — a SCIM body's worth (800 000 bytes) of new pages in the file and frames
    // in the WAL, as a real write needs; then given back.
    await writeTransaction(db, (tx) => writeProbe.run(tx, "x".repeat(PROBE_BYTES)), { waitForLock: false });
    await writeTransaction(db, (tx) => writeProbe.run(tx, new Date().toISOString()), { waitForLock: false });
  } catch (e) {
    // Another writer holds the lock: that one is writing, so neither state is proven; keep it.
    if (isLockBusy(e) || isStorageFull(e)) return false;
    throw e;
  }
  fullSince.delete(store);
  return true;
}

const PROBE_BYTES = 1024 * 1024;
