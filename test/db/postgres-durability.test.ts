/**
 * `durability: "deferred"` (src/db/store.ts): on PostgreSQL that one transaction commits with
 * `synchronous_commit = off`; every other transaction, and every later use of the same pooled
 * connection, keeps the server's synchronous commit.
 */
import { expect, test } from "bun:test";
import { sql as fragment } from "drizzle-orm";
import { execute, rowsOf } from "../../src/db/statement";
import type { Db } from "../../src/db/store";
import { writeTransaction } from "../../src/db/transaction";
import { usePostgresForTest } from "../support/postgres";

let db: Db;

usePostgresForTest("durability", async (pg) => {
  db = pg.db;
});

const setting = async (h: Db) => (await rowsOf<{ s: string }>(h, fragment`SELECT current_setting('synchronous_commit') AS s`))[0]!.s;

test("a deferred transaction commits without waiting for the flush; the others, and the connection afterwards, wait", async () => {
  const seen = { deferred: "", commit: "" };
  await writeTransaction(db, async (tx) => {
    seen.deferred = await setting(tx);
    await execute(tx, fragment`INSERT INTO settings (key, value) VALUES ('durability.deferred', '1')`);
  }, { durability: "deferred" });
  await writeTransaction(db, async (tx) => {
    seen.commit = await setting(tx);
  });
  expect(seen).toEqual({ deferred: "off", commit: "on" });
  // SET LOCAL ends with its transaction: no pooled connection keeps it.
  const after = await Promise.all(Array.from({ length: 20 }, () => setting(db)));
  expect(new Set(after)).toEqual(new Set(["on"]));
  // And what it wrote is committed.
  expect(await rowsOf<{ value: string }>(db, fragment`SELECT value FROM settings WHERE key = 'durability.deferred'`)).toEqual([{ value: "1" }]);
});

test("a savepoint follows its transaction's durability", async () => {
  let inner = "";
  await writeTransaction(db, async () => {
    await writeTransaction(db, async (sp) => {
      inner = await setting(sp);
    }, { durability: "deferred" });
  });
  expect(inner).toBe("on");
});
