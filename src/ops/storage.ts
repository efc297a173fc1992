/**
 * Whether the database can take writes. A full disk (or filesystem quota) shows up as SQLite's
 * SQLITE_FULL on the write that hit it; from then on /readyz reports the database as not
 * writable, and each /readyz probes with a small committed write until one succeeds again —
 * so readiness recovers by itself once space is freed, and a healthy instance never writes
 * for a probe.
 */
import type { Database } from "bun:sqlite";
import { statfsSync } from "node:fs";
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
    // 1 MiB committed — a SCIM body's worth (800 000 bytes) of new pages in the file and frames
    // in the WAL, as a real write needs; then given back.
    const probe = sqlite.query("INSERT INTO settings (key, value) VALUES ('readyz.write_probe', ?1) ON CONFLICT (key) DO UPDATE SET value = excluded.value");
    withoutLockWait(sqlite, () => {
      sqlite.transaction(() => probe.run("x".repeat(PROBE_BYTES))).immediate();
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

const PROBE_BYTES = 1024 * 1024;

/**
 * Free space /readyz requires on the data directory's filesystem: the largest single write (a
 * 32 MiB attachment) twice — once in the WAL, once when the checkpoint copies it into the
 * database — so an instance reported ready can take any write it accepts.
 */
export const READY_MIN_FREE_BYTES = 2 * 32 * 1024 * 1024;

/** Bytes free to this process on `dir`'s filesystem; null when the system cannot say. */
export function freeBytes(dir: string): number | null {
  try {
    const s = statfsSync(dir);
    return s.bavail * s.bsize;
  } catch {
    return null;
  }
}

/** Why the disk is too full for /readyz, or null when it has room (pure: free bytes in). */
export function diskShortfall(free: number | null): string | null {
  if (free === null || free >= READY_MIN_FREE_BYTES) return null;
  return `not writable: ${free} bytes free on the data directory's disk, writes need up to ${READY_MIN_FREE_BYTES}`;
}
