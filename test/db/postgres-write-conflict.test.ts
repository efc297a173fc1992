/**
 * Two PostgreSQL write transactions that lock the same rows in opposite orders deadlock; the server
 * aborts one (40P01). The store runs the victim again, so both writes land and the caller never
 * sees the conflict; what the aborted attempt queued with `afterCommit` never runs. Past its
 * retries, a conflict answers 503 "busy" (lock-wait.ts), never 500.
 */
import { expect, test } from "bun:test";
import { sql as fragment } from "drizzle-orm";
import { isLockBusy, isStorageFull, isWriteConflict } from "../../src/db/lock-wait";
import type { PostgresStore } from "../../src/db/postgres/store";
import { execute, rowsOf } from "../../src/db/statement";
import { storeOf, type Db } from "../../src/db/store";
import { afterCommit, outsideTransaction, readSnapshot, writeTransaction } from "../../src/db/transaction";
import { usePostgresForTest } from "../support/postgres";

let db: Db;

usePostgresForTest("conflict", async (pg) => {
  db = pg.db;
  await execute(db, fragment`INSERT INTO settings (key, value) VALUES ('conflict.a', '0'), ('conflict.b', '0')`);
});

const set = (tx: Db, key: string, value: string) => execute(tx, fragment`UPDATE settings SET value = ${value} WHERE key = ${key}`);

test("opposite lock orders: the deadlock's victim runs again; both writes land, its first attempt's afterCommit never runs", async () => {
  const retriesBefore = (storeOf(db) as PostgresStore).conflictRetries;
  // Each transaction holds its first row until the other holds its own: then each waits for the other.
  let arrived = 0;
  let bothHold!: () => void;
  const barrier = new Promise<void>((r) => (bothHold = r));
  const hold = async () => {
    if (++arrived === 2) bothHold();
    await Promise.race([barrier, Bun.sleep(2_000)]); // a retry finds nobody to wait for
  };
  const attempts = { ab: 0, ba: 0 };
  const committed: string[] = [];
  const ab = writeTransaction(db, async (tx) => {
    attempts.ab++;
    afterCommit(() => committed.push(`ab#${attempts.ab}`));
    await set(tx, "conflict.a", "ab");
    await hold();
    await set(tx, "conflict.b", "ab");
  });
  const ba = writeTransaction(db, async (tx) => {
    attempts.ba++;
    afterCommit(() => committed.push(`ba#${attempts.ba}`));
    await set(tx, "conflict.b", "ba");
    await hold();
    await set(tx, "conflict.a", "ba");
  });
  await Promise.all([ab, ba]); // neither rejects

  expect(attempts.ab + attempts.ba).toBe(3); // exactly one victim, run once more
  expect((storeOf(db) as PostgresStore).conflictRetries).toBe(retriesBefore + 1);
  // Each committed once; the victim's afterCommit ran for its second attempt only.
  expect(committed.sort()).toEqual([`ab#${attempts.ab}`, `ba#${attempts.ba}`].sort());
  // The victim committed last, so both rows carry its value: the two writes were not interleaved.
  const rows = await rowsOf<{ key: string; value: string }>(db, fragment`SELECT key, value FROM settings WHERE key LIKE 'conflict.%' ORDER BY key`);
  const victim = attempts.ab === 2 ? "ab" : "ba";
  expect(rows).toEqual([
    { key: "conflict.a", value: victim },
    { key: "conflict.b", value: victim },
  ]);
}, 30_000);

test("PostgreSQL's SQLSTATEs: conflicts are 'busy' (503), 53100 is 'full' (507); wrapped errors too", () => {
  const wrapped = (code: string) => Object.assign(new Error("Failed query: …"), { cause: Object.assign(new Error("server said"), { code }) });
  expect(isWriteConflict(wrapped("40P01"))).toBe(true);
  expect(isWriteConflict(wrapped("40001"))).toBe(true);
  expect(isWriteConflict(wrapped("23505"))).toBe(false);
  expect(isLockBusy(wrapped("40P01"))).toBe(true);
  expect(isLockBusy(wrapped("23505"))).toBe(false);
  expect(isStorageFull(wrapped("53100"))).toBe(true);
  expect(isStorageFull(wrapped("53200"))).toBe(false);
  expect(isLockBusy(Object.assign(new Error("busy"), { code: "SQLITE_BUSY" }))).toBe(true);
  expect(isStorageFull(Object.assign(new Error("full"), { code: "SQLITE_FULL" }))).toBe(true);
});

test("readSnapshot: two reads agree although a write commits between them (REPEATABLE READ on PostgreSQL)", async () => {
  const count = async () => Number((await rowsOf<{ n: number }>(db, fragment`SELECT count(*) AS n FROM settings WHERE key LIKE 'snap.%'`))[0]!.n);
  const seen = await readSnapshot(db, async () => {
    const before = await count();
    // Another task commits a row while the snapshot is open.
    await outsideTransaction(() => writeTransaction(db, (tx) => execute(tx, fragment`INSERT INTO settings (key, value) VALUES ('snap.1', 'x')`)));
    return [before, await count()];
  });
  expect(seen).toEqual([0, 0]);
  expect(await count()).toBe(1); // committed, and seen once the snapshot is over
});
