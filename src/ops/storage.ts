/**
 * The data directory's free space, for /readyz (whether the database itself answers and takes
 * writes is src/db/readiness.ts).
 */
import { statfsSync } from "node:fs";

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
