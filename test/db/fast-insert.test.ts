import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { sql } from "drizzle-orm";
import { fastInserter } from "../../src/db/fast-insert";
import { first, writeTransaction } from "../../src/db/transaction";
import { cases } from "../../src/tms/cases/tables";
import { defects } from "../../src/tms/defects/tables";
import { projects } from "../../src/tms/projects/tables";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());

/** A project to hang rows on, created through the API as a client would. */
async function project(code: string) {
  const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: `fast-${code}` })).json()) as { token: string }).token;
  expect((await t.request("POST", "/api/v1/project", { body: { title: code, code }, headers: { token } })).status).toBe(200);
  return (await first(t.ctx.db.select().from(projects).where(eq(projects.code, code))))!;
}

test("the row it answers is the row drizzle reads back: defaults, JSON and boolean columns, the new id", async () => {
  const p = await project("FASTA");
  const insertCase = fastInserter(cases);
  const now = "2026-11-25T10:00:00.000000Z";
  const given = { projectId: p.id, number: 1, position: 1, title: "plain", created: now, updated: now };
  const answered = await writeTransaction(t.ctx.db, (tx) => insertCase(tx, given));
  const stored = await first(t.ctx.db.select().from(cases).where(eq(cases.id, answered.id)));
  expect(stored).toBeDefined();
  expect(answered).toEqual(stored!);
  expect(answered.severity).toBe("normal"); // the column default
  expect(answered.steps).toEqual([]);

  const full = {
    ...given, number: 2, title: "full", severity: "critical" as const, isFlaky: true, tags: ["a", "b"], params: { browser: ["firefox"] },
    steps: [{ position: 1, action: "open", expected_result: "it opens", data: "", shared_hash: null, attachments: [] }],
  };
  const answeredFull = await writeTransaction(t.ctx.db, (tx) => insertCase(tx, full));
  expect(answeredFull).toEqual((await first(t.ctx.db.select().from(cases).where(eq(cases.id, answeredFull.id))))!);
  expect(answeredFull.id).toBeGreaterThan(answered.id);
});

test("each row gets its own copy of a JSON default (no row shares another's array)", async () => {
  const p = await project("FASTB");
  const insertDefect = fastInserter(defects);
  const now = "2026-11-25T10:00:00.000000Z";
  const caseRow = await writeTransaction(t.ctx.db, (tx) => fastInserter(cases)(tx, { projectId: p.id, number: 1, position: 1, title: "c", created: now, updated: now }));
  const base = { projectId: p.id, title: "d", actualResult: "boom", caseId: caseRow.id, created: now, updated: now };
  const [a, b] = await writeTransaction(t.ctx.db, async (tx) => [await insertDefect(tx, { ...base, number: 1 }), await insertDefect(tx, { ...base, number: 2 })]);
  expect(a!.tags).toEqual([]);
  a!.tags.push("mutated");
  expect(b!.tags).toEqual([]);
  expect((await first(t.ctx.db.select().from(defects).where(eq(defects.id, b!.id))))!.tags).toEqual([]);
});

test("a rolled-back transaction leaves no row behind", async () => {
  const p = await project("FASTC");
  const insertCase = fastInserter(cases);
  const now = "2026-11-25T10:00:00.000000Z";
  await expect(
    writeTransaction(t.ctx.db, async (tx) => {
      await insertCase(tx, { projectId: p.id, number: 1, position: 1, title: "rolled back", created: now, updated: now });
      throw new Error("later step fails");
    }),
  ).rejects.toThrow("later step fails");
  expect(await t.ctx.db.select().from(cases).where(eq(cases.title, "rolled back"))).toEqual([]);
});

test("a table whose default SQLite computes is refused when the inserter is made, not at the first insert", () => {
  const stamped = sqliteTable("stamped", { id: integer("id").primaryKey(), at: text("at").default(sql`CURRENT_TIMESTAMP`) });
  expect(() => fastInserter(stamped)).toThrow("stamped.at has an SQL default");
});
