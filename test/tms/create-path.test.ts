import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import { createTestApp, onPostgres } from "../helpers";
import { execute, pipelined, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { createCase, LAST_POSITION_SQL } from "../../src/tms/cases/service";
import { fieldsFor } from "../../src/tms/custom-fields/service";
import { customFields } from "../../src/tms/custom-fields/tables";
import { projectCounters, projects } from "../../src/tms/projects/tables";
import { cases } from "../../src/tms/cases/tables";
import { callerAndProject } from "../../src/tms/shared/api";
import { callerOf } from "../../src/tms/shared/auth";
import { apiCalls } from "./api-calls";

/**
 * The v1 case create's path as PostgreSQL's round trips shaped it (docs/benchmarks/postgres.md,
 * "Fewer round trips per create"): statements sent together still answer as if sent one by one,
 * the project's confirmation still wins over the work sent with it, the case fields read without
 * the query builder are the rows it gave, and a case's position is read from the end of its index.
 */
let t: ReturnType<typeof createTestApp>;
let token: string;
const { api, ok } = apiCalls(() => t, () => token);

beforeAll(async () => {
  t = createTestApp();
  token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "create-path" })).json()) as { token: string }).token;
  for (const code of ["PATH", "GONE", "POS"]) await ok("POST", "/project", { title: code, code });
});
afterAll(() => t.close());

test("pipelined: every statement settles before it answers; the first failure in the order given is thrown, not the first to fail in time", async () => {
  const settled: string[] = [];
  const later = <T>(ms: number, name: string, value: T, fail = false) =>
    new Promise<T>((resolve, reject) => setTimeout(() => (settled.push(name), fail ? reject(new Error(name)) : resolve(value)), ms));
  expect(await pipelined(later(5, "a", 1), later(1, "b", "two"))).toEqual([1, "two"]);
  settled.length = 0;
  await expect(pipelined(later(20, "first", 1, true), later(1, "second", 2, true), later(10, "third", 3))).rejects.toThrow("first");
  expect(settled).toEqual(["second", "third", "first"]);
});

test("a create in a project deleted after the route resolved it is a 404 whatever the work sent with the project's check did: bad input or good, nothing written, no number spent", async () => {
  const [gone] = await t.ctx.db.select().from(projects).where(eq(projects.code, "GONE"));
  expect(await ok("POST", "/case/GONE", { title: "before" })).toEqual({ id: 1 });
  await writeTransaction(t.ctx.db, (tx) => tx.delete(projects).where(eq(projects.id, gone!.id)));
  const caller = { tokenId: 0, userId: null, workspaceId: gone!.workspaceId };
  for (const body of [{ title: "valid" }, { title: "bad field", custom_field: { "999": "x" } }, { title: "bad step", steps: [{ action: "" }] }])
    await expect(createCase(t.ctx.db, caller, gone!, body)).rejects.toMatchObject({ status: 404, code: "not_found" });
  expect(await t.ctx.db.select().from(cases).where(eq(cases.projectId, gone!.id))).toEqual([]);
  expect(await t.ctx.db.select().from(projectCounters).where(eq(projectCounters.projectId, gone!.id))).toEqual([]);
});

test("the case fields read by a statement written once are the rows drizzle's query builder gives: JSON options and project codes parsed, booleans, nulls", async () => {
  await ok("POST", "/custom_field", { title: "Pick", entity: "case", type: "selectbox", value: [{ id: 1, title: "one" }, { id: 2, title: "two" }], is_required: true, is_enabled_for_all_projects: false, projects_codes: ["PATH"] });
  await ok("POST", "/custom_field", { title: "Free", entity: "case", type: "string", is_filterable: false });
  await ok("POST", "/custom_field", { title: "Run's", entity: "run", type: "number" });
  const project = (await t.ctx.db.select().from(projects).where(eq(projects.code, "PATH")))[0]!;
  const built = await t.ctx.db.select().from(customFields).where(eq(customFields.entity, "case")).orderBy(customFields.id);
  expect(built.length).toBe(2);
  expect(built[0]!.options).toEqual([{ id: 1, title: "one" }, { id: 2, title: "two" }]);
  expect(await fieldsFor(t.ctx.db, project, "case")).toEqual(built);
  expect(await fieldsFor(t.ctx.db, { code: "POS", workspaceId: project.workspaceId }, "case")).toEqual([built[1]!]);
  // And through a create: the selectbox is validated against the parsed options, and required.
  expect((await api("POST", "/case/PATH", { title: "no pick" })).status).toBe(400);
  expect((await api("POST", "/case/PATH", { title: "bad pick", custom_field: { [String(built[0]!.id)]: "3" } })).status).toBe(400);
  const made = (await ok("POST", "/case/PATH", { title: "picked", custom_field: { [String(built[0]!.id)]: "two" } })).id;
  expect((await ok("GET", `/case/PATH/${made}`)).custom_fields).toEqual([{ id: built[0]!.id, value: "2" }]);
});

test(`a case's position is the last of its suite + 1, read from the end of the position index${onPostgres ? " (PostgreSQL: one index entry, not every case of the project's root)" : ""}`, async () => {
  const project = (await t.ctx.db.select().from(projects).where(eq(projects.code, "POS")))[0]!;
  const suite = (await ok("POST", "/suite/POS", { title: "s" })).id;
  // 3 000 cases in the project's root and in the suite, written directly (the API would take minutes).
  const rows = onPostgres ? "SELECT g FROM generate_series(1, 3000) AS g" : "WITH RECURSIVE s(g) AS (SELECT 1 UNION ALL SELECT g + 1 FROM s WHERE g < 3000) SELECT g FROM s";
  const suiteKey = (await rowsOf<{ id: number }>(t.ctx.db, sql`SELECT id FROM tms_suites WHERE project_id = ${project.id} AND number = ${suite}`))[0]!.id;
  await writeTransaction(t.ctx.db, (tx) =>
    execute(tx, sql.raw(`INSERT INTO tms_cases (project_id, number, suite_id, position, title, created, updated)
      SELECT ${project.id}, 1000 + g, CASE WHEN g % 2 = 0 THEN ${suiteKey} END, 10 * g, 'bulk', '2026-01-01', '2026-01-01' FROM (${rows}) AS n`)),
  );
  if (onPostgres) {
    await execute(t.ctx.db, sql`ANALYZE tms_cases`);
    // The plan a prepared statement gets once it is reused (generic: the project is a parameter).
    for (const [text, params, wanted] of [[LAST_POSITION_SQL.inNone, [project.id], 29_990], [LAST_POSITION_SQL.inSuite, [project.id, suiteKey], 30_000]] as const) {
      const plan = await writeTransaction(t.ctx.db, async (tx) => {
        await execute(tx, sql`SET LOCAL plan_cache_mode = force_generic_plan`);
        await execute(tx, sql.raw(`PREPARE last_position AS ${text.replace(/\?(\d)/g, "$$$1")}`));
        const [row] = await rowsOf<{ "QUERY PLAN": unknown }>(tx, sql.raw(`EXPLAIN (ANALYZE, FORMAT JSON) EXECUTE last_position(${params.join(", ")})`));
        const [answer] = await rowsOf<{ m: number }>(tx, sql.raw(`EXECUTE last_position(${params.join(", ")})`));
        await execute(tx, sql`DEALLOCATE last_position`);
        return { plan: JSON.stringify(row!["QUERY PLAN"]), m: answer!.m };
      });
      expect(plan.m).toBe(wanted);
      // Every node of the plan produced at most one row: no scan of the project's cases.
      const produced = [...plan.plan.matchAll(/"Actual Rows":\s*(\d+)/g)].map((m) => Number(m[1]));
      expect({ text, produced: Math.max(...produced) }).toEqual({ text, produced: 1 });
    }
  } else {
    for (const text of [LAST_POSITION_SQL.inNone, LAST_POSITION_SQL.inSuite]) {
      // In a transaction: an EXPLAIN on SQLite's reader connection keeps its snapshot from moving on.
      const plan = JSON.stringify(await writeTransaction(t.ctx.db, (tx) => rowsOf(tx, sql.raw(`EXPLAIN QUERY PLAN ${text.replace(/\?\d/g, "1")}`))));
      expect(plan).toContain("tms_cases_position");
      expect(plan).not.toContain("TEMP B-TREE");
    }
  }
  expect(await ok("POST", "/case/POS", { title: "in the root" })).toEqual({ id: 1 });
  expect(await ok("POST", "/case/POS", { title: "in the suite", suite_id: suite })).toEqual({ id: 2 });
  const positions = (await t.ctx.db.select({ number: cases.number, position: cases.position }).from(cases).where(eq(cases.projectId, project.id))).filter((c) => c.number < 1000).sort((a, b) => a.number - b.number);
  expect(positions).toEqual([{ number: 1, position: 29_991 }, { number: 2, position: 30_001 }]);
});

test("a project route's token and project are read once per request, together: the route and callerOf answer from that read; another request reads again", async () => {
  const made = (await (await t.admin("POST", "/api/admin/api-tokens", { name: "once" })).json()) as { token: string; id: number };
  const request = () => new Request("http://gatehouse.test/api/v1/case/PATH", { headers: { token: made.token } });
  const first = request();
  const read = await callerAndProject(t.ctx, first, "PATH");
  expect(read.project?.code).toBe("PATH");
  expect(read.caller.tokenId).toBe(made.id);
  expect(await callerAndProject(t.ctx, first, "NOPE")).toBe(read); // what the request read, not read again
  expect((await callerAndProject(t.ctx, request(), "NOPE")).project).toBeUndefined();
  // Revoked now: the request that authenticated keeps its caller; a new one is refused.
  expect((await t.admin("DELETE", `/api/admin/api-tokens/${made.id}`)).status).toBeLessThan(300);
  expect(await callerOf(t.ctx, first)).toEqual(read.caller);
  await expect(callerAndProject(t.ctx, request(), "PATH")).rejects.toMatchObject({ status: 401 });
  await expect(callerOf(t.ctx, request())).rejects.toMatchObject({ status: 401 });
  // Through the API: a bad token is a 401 before the body is read, a known token's unknown project a 404 before it is validated.
  expect((await api("POST", "/case/NOPE", { title: 7 })).status).toBe(404);
  expect((await t.request("POST", "/api/v1/case/PATH", { body: { title: "x" }, headers: { token: made.token } })).status).toBe(401);
});
