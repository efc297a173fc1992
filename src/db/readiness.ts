/**
 * Whether the database answers and can take writes, for /readyz. A full disk (or filesystem quota)
 * shows up as SQLite's SQLITE_FULL on the write that hit it; from then on the database is reported
 * not writable, and each check probes with a small committed write until one succeeds again — so
 * readiness recovers by itself once space is freed, and a healthy instance never writes for a probe.
 */
import type { Db } from "./connection";
import { DatabaseDeadlineError, isDatabaseUnavailable, withinDeadline } from "./availability";
import { isPostgres } from "./engine";
import { isLockBusy, isStorageFull } from "./lock-wait";
import { preparedQuery } from "./statement";
import { storeOf, writeTransaction, type Store } from "./store";

const fullSince = new WeakMap<Store, number>();

/** Called for every failed request: remembers a full database. */
export function noteWriteFailure(db: Db, e: unknown): void {
  if (isStorageFull(e)) fullSince.set(storeOf(db), Date.now());
}

const ping = preparedQuery<{ one: number }, []>("SELECT 1 AS one");
/** PostgreSQL only: whether the server this pool reached is a writable primary (after a failover the old one may come back as a standby). */
const pingPrimary = preparedQuery<{ writable: number }, []>(
  "SELECT CASE WHEN pg_is_in_recovery() OR current_setting('transaction_read_only') = 'on' THEN 0 ELSE 1 END AS writable",
);

/**
 * A round trip to the database within `deadlineMs`: resolves with null when it answered and can
 * take writes, else with what is wrong (never rejects, never waits past the deadline).
 */
export async function pingDatabase(db: Db, deadlineMs = READY_DEADLINE_MS): Promise<string | null> {
  try {
    if (!isPostgres()) {
      await withinDeadline(ping.get(db), deadlineMs, "the database");
      return null;
    }
    const row = await withinDeadline(pingPrimary.get(db), deadlineMs, "the database");
    return row && Number(row.writable) === 1 ? null : "read-only: the server is a standby or refuses writes (no primary yet)";
  } catch (e) {
    if (e instanceof DatabaseDeadlineError) return `no answer within ${deadlineMs} ms`;
    return isDatabaseUnavailable(e) ? "unreachable" : "failing";
  }
}

/** How long /readyz waits for the database's answer: a load balancer's check must not hang. */
export const READY_DEADLINE_MS = 2_000;

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
