/**
 * The storage seam's transaction rules, on the run's engine (test/support/test-database.ts):
 * queries made through the routed `ctx.db` inside a write transaction run in it, another task's
 * reads never see its uncommitted rows, nested transactions are savepoints, and `afterCommit`
 * runs after the commit (once per function), never on a rollback.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import { settings } from "../../src/db/tables";
import { rowsOf } from "../../src/db/statement";
import { afterCommit, first, writeTransaction } from "../../src/db/transaction";
import { openTestDatabase } from "../support/test-database";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-store-"));
const t = openTestDatabase(dir);
const db = t.db;
afterAll(() => {
  t.close();
  rmSync(dir, { recursive: true, force: true });
});

const valueOf = async (key: string) => (await first(db.select().from(settings).where(sql`${settings.key} = ${key}`)))?.value;

test("inside a write transaction ctx.db reads its own rows; another task sees them only after the commit", async () => {
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let seenInside: string | undefined;
  const writer = writeTransaction(db, async (tx) => {
    await tx.insert(settings).values({ key: "store.a", value: "1" });
    seenInside = await valueOf("store.a"); // through the routed handle, not `tx`
    await held;
  });
  await Bun.sleep(20);
  expect(await valueOf("store.a")).toBeUndefined(); // another task: not yet committed
  release();
  await writer;
  expect(seenInside).toBe("1");
  expect(await valueOf("store.a")).toBe("1");
});

test("a nested writeTransaction is a savepoint: its throw rolls back only its own work", async () => {
  await writeTransaction(db, async (tx) => {
    await tx.insert(settings).values({ key: "store.outer", value: "1" });
    await expect(
      writeTransaction(db, async (inner) => {
        await inner.insert(settings).values({ key: "store.inner", value: "1" });
        throw new Error("inner fails");
      }),
    ).rejects.toThrow("inner fails");
  });
  expect(await valueOf("store.outer")).toBe("1");
  expect(await valueOf("store.inner")).toBeUndefined();
});

test("afterCommit runs once the transaction committed (each function once), never after a rollback", async () => {
  const events: string[] = [];
  const wake = () => events.push("wake");
  await writeTransaction(db, async (tx) => {
    afterCommit(wake);
    afterCommit(wake);
    await tx.insert(settings).values({ key: "store.c", value: "1" });
    afterCommit(() => events.push("committed"));
    events.push("body done");
  });
  expect(events).toEqual(["body done", "wake", "committed"]);
  // what a committed callback reads is committed, and it runs outside the transaction
  const seen: (string | undefined)[] = [];
  await writeTransaction(db, async (tx) => {
    await tx.insert(settings).values({ key: "store.d", value: "1" });
    afterCommit(() => void valueOf("store.d").then((v) => seen.push(v)));
  });
  await Bun.sleep(20);
  expect(seen).toEqual(["1"]);

  const rolledBack: string[] = [];
  await expect(
    writeTransaction(db, async (tx) => {
      afterCommit(() => rolledBack.push("ran"));
      await tx.insert(settings).values({ key: "store.e", value: "1" });
      throw new Error("rolled back");
    }),
  ).rejects.toThrow("rolled back");
  await Bun.sleep(20);
  expect(rolledBack).toEqual([]);
  expect(await valueOf("store.e")).toBeUndefined();
});

test("raw SQL through rowsOf runs on the routed connection too", async () => {
  await writeTransaction(db, async () => {
    await db.insert(settings).values({ key: "store.f", value: "2" });
    const rows = await rowsOf<{ value: string }>(db, sql`SELECT value FROM settings WHERE key = ${"store.f"}`);
    expect(rows.map((r) => r.value)).toEqual(["2"]);
  });
});

test("a read right after a commit sees it, however many reads came just before (the reader's shared snapshot is renewed)", async () => {
  for (let i = 0; i < 50; i++) {
    expect(await valueOf("store.g")).toBe(i === 0 ? undefined : String(i - 1)); // reads that keep a snapshot open
    await writeTransaction(db, async (tx) => {
      await tx.insert(settings).values({ key: "store.g", value: String(i) }).onConflictDoUpdate({ target: settings.key, set: { value: String(i) } });
    });
    expect(await valueOf("store.g")).toBe(String(i)); // at once, within the same turn
  }
});
