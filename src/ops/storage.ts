/**
 * Whether the database can take writes. A full disk (or filesystem quota) shows up as SQLite's
 * SQLITE_FULL on the write that hit it; from then on /readyz reports the database as not
 * writable, and each /readyz probes with a small committed write until one succeeds again —
 * so readiness recovers by itself once space is freed, and a healthy instance never writes
 * for a probe.
 */
import type { Database } from "bun:sqlite";
import { isLockBusy, isStorageFull, withoutLockWait } from "../db/lock-wait";

const fullSince = new WeakMap<Database, number>();

/** Called for every failed request: remembers a full database. */
export function noteWriteFailure(sqlite: Database, e: unknown): void {
  if (isStorageFull(e)) fullSince.set(sqlite, Date.now());
}

/** False while the database is known full: probes with a committed one-row write first. */
export function databaseWritable(sqlite: Database): boolean {
  if (!fullSince.has(sqlite)) return true;
  try {
    // 16 KiB committed: new pages in the file and frames in the WAL, as a real write needs;
    // then given back.
    const probe = sqlite.query("INSERT INTO settings (key, value) VALUES ('readyz.write_probe', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    withoutLockWait(sqlite, () => {
      sqlite.transaction(() => probe.run("x".repeat(16_384))).immediate();
      sqlite.transaction(() => probe.run(new Date().toISOString())).immediate();
    });
  } catch (e) {
    // Another writer holds the lock: that one is writing, so neither state is proven; keep it.
    if (isLockBusy(e) || isStorageFull(e)) return false;
    throw e;
  }
  fullSince.delete(sqlite);
  return true;
}
