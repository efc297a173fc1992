import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, sql } from "drizzle-orm";
import postgres from "postgres";
import { createTestApp, onPostgres } from "../helpers";
import { execute, rowsOf } from "../../src/db/statement";
import { first, writeTransaction } from "../../src/db/transaction";
import { storeOf } from "../../src/db/store";
import { insertCase } from "../../src/tms/cases/service";
import { projects } from "../../src/tms/projects/tables";
import { projectWrite } from "../../src/tms/shared/write";
import { apiCalls } from "./api-calls";

/**
 * Where a per-project number is taken (docs/storage.md, "Per-project numbers"): bad input never
 * spends one, on either engine; a create that fails after taking its number leaves a gap on
 * PostgreSQL (the counter committed on its own) and none on SQLite (one transaction with the
 * create); and on PostgreSQL the counter is not held through a create's COMMIT.
 */
let t: ReturnType<typeof createTestApp>;
let token: string;

const { api, ok } = apiCalls(() => t, () => token);
const newCase = async (code: string, title = "a case") => (await ok("POST", `/case/${code}`, { title })).id as number;

/** Test-only fault: the database refuses to insert a case titled `refused…` — a create that fails after it took its number. */
async function refuseTitledCases(): Promise<void> {
  const statements = onPostgres
    ? [
        `CREATE FUNCTION refuse_titled_cases() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.title LIKE 'refused%' THEN RAISE EXCEPTION 'refused by the test'; END IF; RETURN NEW; END $$`,
        `CREATE TRIGGER refuse_titled_cases BEFORE INSERT ON tms_cases FOR EACH ROW EXECUTE FUNCTION refuse_titled_cases()`,
      ]
    : [`CREATE TRIGGER refuse_titled_cases BEFORE INSERT ON tms_cases WHEN NEW.title LIKE 'refused%' BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`];
  await writeTransaction(t.ctx.db, async (tx) => {
    for (const s of statements) await execute(tx, sql.raw(s));
  });
}

beforeAll(async () => {
  t = createTestApp();
  token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "numbering" })).json()) as { token: string }).token;
  for (const code of ["BAD", "FAIL", "RACE", "HELD", "LOCK"]) await ok("POST", "/project", { title: code, code });
  await refuseTitledCases();
});
afterAll(() => t.close());

test("bad input spends no number: every kind's next create after a refused one gets the next number", async () => {
  const refused = async (path: string, body: unknown, field: string) => {
    const r = await api("POST", path, body);
    expect([path, r.status, r.body?.field ?? r.body?.error?.field ?? JSON.stringify(r.body)]).toEqual([path, 400, expect.stringContaining(field)]);
  };
  expect(await newCase("BAD")).toBe(1);
  await refused("/case/BAD", { title: "x", suite_id: 99 }, "suite_id");
  await refused("/case/BAD", { title: "x", steps: [{ action: "" }] }, "steps.0.action");
  expect(await newCase("BAD")).toBe(2);

  // A bulk is validated whole before its numbers are taken: its third element's bad suite refuses it.
  await refused("/case/BAD/bulk", { cases: [{ title: "b1" }, { title: "b2" }, { title: "b3", suite_id: 99 }] }, "cases.2.suite_id");
  expect((await ok("POST", "/case/BAD/bulk", { cases: [{ title: "b1" }, { title: "b2" }] })).ids).toEqual([3, 4]);

  // v1 results that create a case and a defect, refused for a later item naming no case of the project.
  const run = (await ok("POST", "/run/BAD", { title: "r", cases: [1] })).id;
  await refused(`/result/BAD/${run}/bulk`, {
    results: [{ case: { title: "created by a result" }, status: "failed", defect: true }, { case_id: 1, status: "failed", defect: true }, { case_id: 99, status: "passed" }],
  }, "results.2.case_id");
  expect(await newCase("BAD")).toBe(5);
  expect((await ok("POST", "/defect/BAD", { title: "d", actual_result: "x" })).id).toBe(1);

  await refused("/milestone/BAD", { title: "m", due_date: 1e15 }, "due_date");
  expect((await ok("POST", "/milestone/BAD", { title: "m", due_date: 1767225600 })).id).toBe(1);
  await refused("/suite/BAD", { title: "s", parent_id: 99 }, "parent_id");
  expect((await ok("POST", "/suite/BAD", { title: "s" })).id).toBe(1);
  await refused("/plan/BAD", { title: "p", cases: [1, 99] }, "cases");
  expect((await ok("POST", "/plan/BAD", { title: "p", cases: [1] })).id).toBe(1);
  await refused("/run/BAD", { title: "r", milestone_id: 99 }, "milestone_id");
  expect((await ok("POST", "/run/BAD", { title: "r" })).id).toBe(run + 1);
  await refused("/defect/BAD", { title: "d", actual_result: "x", case_id: 99 }, "case_id");
  expect((await ok("POST", "/defect/BAD", { title: "d", actual_result: "x" })).id).toBe(2);
});

test(`a create that fails after taking its number: ${onPostgres ? "a gap on PostgreSQL (the counter committed on its own)" : "no gap on SQLite (the counter rolls back with the create)"}; the next create gets a higher number`, async () => {
  expect(await newCase("FAIL")).toBe(1);
  const failed = await api("POST", "/case/FAIL", { title: "refused: the insert fails" });
  expect(failed.status).toBe(500);
  expect(await newCase("FAIL")).toBe(onPostgres ? 3 : 2);
  // A bulk whose insert fails half way leaves its whole block unused on PostgreSQL.
  expect((await api("POST", "/case/FAIL/bulk", { cases: [{ title: "fine" }, { title: "refused too" }] })).status).toBe(500);
  expect(await newCase("FAIL")).toBe(onPostgres ? 6 : 3);
  const listed = (await ok("GET", "/case/FAIL?limit=100")).entities.map((c: any) => c.id);
  expect(listed).toEqual(onPostgres ? [1, 3, 6] : [1, 2, 3]);
});

test("parallel creates, some failing after taking their numbers: no number twice; the next create is above them all", async () => {
  const creates = Array.from({ length: 30 }, (_, i) => api("POST", "/case/RACE", { title: i % 3 === 2 ? `refused ${i}` : `race ${i}` }));
  const answers = await Promise.all(creates);
  expect(answers.map((a) => a.status).sort()).toEqual([...Array(20).fill(200), ...Array(10).fill(500)]);
  const numbers = answers.filter((a) => a.status === 200).map((a) => a.body.result.id as number).sort((a, b) => a - b);
  expect(new Set(numbers).size).toBe(20);
  if (onPostgres) expect(numbers.every((n) => n >= 1 && n <= 30)).toBe(true);
  else expect(numbers).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  expect(await newCase("RACE")).toBe(onPostgres ? 31 : 21);
  // each number names the entity answered under it
  const listed = (await ok("GET", "/case/RACE?limit=100")).entities;
  expect(listed.map((c: any) => c.id)).toEqual([...numbers, onPostgres ? 31 : 21]);
});

test.skipIf(!onPostgres)("on PostgreSQL only (SQLite has one writer): a create completes while another create's transaction in the same project is still open — the counter is not held to its COMMIT", async () => {
  expect(await newCase("HELD")).toBe(1);
  const project = (await first(t.ctx.db.select().from(projects).where(eq(projects.code, "HELD"))))!;
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let tookNumber!: (n: number) => void;
  const numbered = new Promise<number>((r) => (tookNumber = r));
  const held = writeTransaction(t.ctx.db, async (tx) => {
    const row = await insertCase(projectWrite(tx, project), { tokenId: 0, userId: null, workspaceId: project.workspaceId }, { title: "held open" });
    tookNumber(row.number);
    await released; // the transaction stays open, its counter taken and its row inserted
    return row.number;
  });
  try {
    expect(await numbered).toBe(2);
    // Held through COMMIT, the counter row would keep this create waiting until `release`.
    const meanwhile = await Promise.race([newCase("HELD", "while the other is open"), Bun.sleep(20_000).then(() => "still waiting after 20 s")]);
    expect(meanwhile).toBe(3);
  } finally {
    release();
  }
  expect(await held).toBe(2);
  expect((await ok("GET", "/case/HELD?limit=10")).entities.map((c: any) => c.id)).toEqual([1, 2, 3]);
}, 60_000);

test.skipIf(!onPostgres)("on PostgreSQL only: the counter connection commits without waiting for the WAL flush and waits for a counter row at most its lock_timeout (503, never a hang)", async () => {
  const store = storeOf(t.ctx.db);
  expect(await rowsOf(store.counters!, sql`SELECT current_setting('synchronous_commit') AS sync, current_setting('lock_timeout') AS lock`)).toEqual([{ sync: "off", lock: "2s" }]);
  expect(await rowsOf(t.ctx.db, sql`SELECT current_setting('synchronous_commit') AS sync`)).toEqual([{ sync: "on" }]);

  expect(await newCase("LOCK")).toBe(1);
  const project = (await first(t.ctx.db.select().from(projects).where(eq(projects.code, "LOCK"))))!;
  // Another session holds the project's case counter (as a project deletion's cascade does until it commits).
  const other = postgres(t.databaseUrl!, { max: 1, onnotice: () => {} });
  try {
    const holding = other.begin(async (tx) => {
      await tx`SELECT last FROM tms_project_counters WHERE project_id = ${project.id} AND entity = 'case' FOR UPDATE`;
      await Bun.sleep(6_000);
    });
    await Bun.sleep(200);
    const started = performance.now();
    const r = await api("POST", "/case/LOCK", { title: "waits for the counter" });
    expect([r.status, r.body?.error?.code ?? r.body?.code]).toEqual([503, "unavailable"]);
    expect(performance.now() - started).toBeLessThan(5_500);
    await holding;
  } finally {
    await other.end();
  }
  expect(await newCase("LOCK")).toBe(2);
}, 60_000);
