import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "../harness";

let h: Harness;
let cases: number[] = [];

beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Runs", code: "RUN" });
  for (let i = 1; i <= 6; i++) cases.push((await h.api("POST", "/case/RUN", { title: `Case ${i}` })).body.result.id);
});
afterAll(() => h.close());

const run = async (body: object) => (await h.api("POST", "/run/RUN", { title: "R", ...body })).body.result.id as number;

test("counts come from the latest result per case; overwrites move a case between buckets", async () => {
  const id = await run({ cases });
  const post = (case_id: number, status: string) => h.api("POST", `/result/RUN/${id}`, { case_id, status });
  await post(cases[0]!, "failed");
  await post(cases[0]!, "passed"); // overwrite: failed → passed
  await post(cases[1]!, "passed");
  await post(cases[1]!, "failed"); // overwrite: passed → failed
  await post(cases[2]!, "blocked");
  await post(cases[3]!, "skipped"); // counts as untested
  await post(cases[4]!, "invalid"); // counts as failed
  // cases[5] has no result → untested
  const bulk = await h.api("POST", `/result/RUN/${id}/bulk`, { results: [{ case_id: cases[2], status: "passed" }, { case_id: cases[2], status: "blocked" }] });
  expect(bulk.body).toEqual({ status: true });

  const stats = (await h.api("GET", `/run/RUN/${id}`)).body.result.stats;
  expect(stats).toMatchObject({ total: 6, passed: 1, failed: 1, blocked: 1, skipped: 1, invalid: 1, untested: 1 });

  await h.api("POST", `/run/RUN/${id}/complete`);
  const e = await h.expectEvent("run.completed", (p) => p.id === id);
  expect(e.payload).toMatchObject({ cases: 6, passed: 1, failed: 2, blocked: 1 });
  // Every result is kept as history.
  expect((await h.api("GET", `/result/RUN?run=${id}&limit=100`)).body.result.total).toBe(9);
});

test("a result for a case outside the run adds the case to the run", async () => {
  const id = await run({ cases: [cases[0]] });
  await h.api("POST", `/result/RUN/${id}`, { case_id: cases[1], status: "passed" });
  await h.api("POST", `/run/RUN/${id}/abort`);
  expect((await h.expectEvent("run.aborted", (p) => p.id === id)).payload).toMatchObject({ cases: 2, passed: 1, untested: 1, failed: 0, blocked: 0 });
});

test("illegal transitions answer 409 with a clear message and change nothing", async () => {
  const aborted = await run({ cases });
  expect((await h.api("POST", `/run/RUN/${aborted}/abort`)).status).toBe(200);
  const c = await h.api("POST", `/run/RUN/${aborted}/complete`);
  expect(c.status).toBe(409);
  expect(c.body).toMatchObject({ status: false, error: { code: "conflict" } });
  expect(c.body.error.message).toContain("aborted");
  expect((await h.api("POST", `/run/RUN/${aborted}/abort`)).status).toBe(409);
  for (const [path, body] of [
    [`/result/RUN/${aborted}`, { case_id: cases[0], status: "passed" }],
    [`/result/RUN/${aborted}/bulk`, { results: [{ case_id: cases[0], status: "passed" }] }],
    [`/api/v2/RUN/run/${aborted}/results`, { results: [{ title: "x", testops_id: cases[0], execution: { status: "passed" } }] }],
  ] as const) {
    const r = await h.api("POST", path, body);
    expect(r.status).toBe(409);
    expect(r.body.error.message).toContain("aborted");
  }
  expect((await h.api("GET", `/run/RUN/${aborted}`)).body.result.stats.untested).toBe(6);
  const completed = await run({ cases });
  expect((await h.api("POST", `/run/RUN/${completed}/complete`)).status).toBe(200);
  expect((await h.api("POST", `/run/RUN/${completed}/abort`)).status).toBe(409);
});

test("a completed run takes results (as Qase's does): stays completed, stats and status_text follow, run.completed is not sent again", async () => {
  await h.clear();
  const id = await run({ cases: [cases[0], cases[1]] });
  await h.api("POST", `/result/RUN/${id}`, { case_id: cases[0], status: "passed" });
  expect((await h.api("POST", `/run/RUN/${id}/complete`)).status).toBe(200);
  await h.expectEvent("run.completed", (p) => p.id === id);
  const before = (await h.api("GET", `/run/RUN/${id}`)).body.result;
  expect(before).toMatchObject({ status: 1, status_text: "passed", stats: { passed: 1, untested: 1 } });

  expect((await h.api("POST", `/result/RUN/${id}`, { case_id: cases[1], status: "failed", time_ms: 40 })).status).toBe(200);
  expect((await h.api("POST", `/result/RUN/${id}/bulk`, { results: [{ case_id: cases[2], status: "passed" }] })).status).toBe(200);
  const v2 = await h.api("POST", `/api/v2/RUN/run/${id}/results`, { results: [{ title: "Made after completion", execution: { status: "blocked" } }] });
  expect(v2.body.result).toMatchObject({ stored: 1, errors: [] });
  const created = await h.expectEvent("case.created", (p) => p.title === "Made after completion");

  const after = (await h.api("GET", `/run/RUN/${id}`)).body.result;
  expect(after).toMatchObject({ status: 1, status_text: "failed", end_time: before.end_time, time_spent: 40 });
  expect(after.stats).toMatchObject({ total: 4, passed: 2, failed: 1, blocked: 1, untested: 0 });
  expect(after.cases).toEqual([cases[0], cases[1], cases[2], created.payload.id]);
  expect((await h.api("GET", `/run/RUN?status=failed&limit=100`)).body.result.entities.map((r: any) => r.id)).toContain(id);

  // Completing again (the next shard's reporter) answers as the first time and sends nothing.
  expect((await h.api("POST", `/run/RUN/${id}/complete`)).body).toEqual({ status: true, result: { id } });
  expect((await h.inbox()).filter((e) => e.event.startsWith("run.") && e.payload.id === id).map((e) => e.event)).toEqual(["run.started"]);
});

test("v2 results: by testops_id, by testops_ids, and by title (found or created as a case)", async () => {
  const id = await run({ cases: [cases[0], cases[1]] });
  await h.clear();
  const r = await h.api("POST", `/api/v2/RUN/run/${id}/results`, {
    results: [
      { title: "ignored title", testops_id: cases[0], execution: { status: "passed", duration: 1500 } },
      { title: "two ids", testops_ids: [cases[1], cases[2]], execution: { status: "failed", stacktrace: "boom" }, message: "broke" },
      { title: "Case 4", execution: { status: "blocked" } },
      { title: "Brand new test", execution: { status: "passed" }, fields: { severity: "major" }, relations: { suite: { data: [{ title: "Suite" }] } } },
    ],
  });
  expect(r.status).toBe(200);
  expect(r.body.result).toMatchObject({ stored: 5, errors: [], warnings: [] });
  // the item with two ids is answered with both of its results, under its own index
  expect(r.body.result.results.map((x: any) => [x.index, x.case_id])).toEqual([[0, cases[0]], [1, cases[1]], [1, cases[2]], [2, cases[3]], [3, expect.any(Number)]]);
  const created = await h.expectEvent("case.created", (p) => p.title === "Brand new test");
  expect(created.payload.is_automated).toBe(true);
  // Its suite path (relations.suite) was created as a suite, and is reused next time.
  const suite = await h.expectEvent("suite.created", (p) => p.title === "Suite");
  expect(created.payload.suite_id).toBe(suite.payload.id);
  const got = (await h.api("GET", `/run/RUN/${id}`)).body.result;
  expect(got.cases).toEqual([cases[0], cases[1], cases[2], cases[3], created.payload.id]);
  expect(got.stats).toMatchObject({ total: 5, passed: 2, failed: 2, blocked: 1, untested: 0 });
  expect(got.time_spent).toBe(1500);

  const one = await h.api("POST", `/api/v2/RUN/run/${id}/result`, { title: "Brand new test", execution: { status: "failed" }, relations: { suite: { data: [{ title: "Suite" }] } } });
  expect(one.body.result.case_id).toBe(created.payload.id);
  const sibling = await h.api("POST", `/api/v2/RUN/run/${id}/result`, { title: "Sibling", execution: { status: "passed" }, relations: { suite: { data: [{ title: "Suite", public_id: null }] } } });
  expect((await h.api("GET", `/case/RUN/${sibling.body.result.case_id}`)).body.result.suite_id).toBe(suite.payload.id);
  await h.expectEvent("case.created", (p) => p.title === "Sibling");
  expect((await h.inbox()).filter((e) => e.event === "case.created")).toEqual([]);
});

test("a bad result in a v1 bulk names its index and nothing of that batch is kept; a v2 bulk keeps the good ones", async () => {
  const id = await run({ cases });
  const r = await h.api("POST", `/result/RUN/${id}/bulk`, { results: [{ case_id: cases[0], status: "passed" }, { case_id: 99999, status: "passed" }] });
  expect(r.status).toBe(400);
  expect(r.body.error.field).toBe("results.1.case_id");
  const bad = await h.api("POST", `/api/v2/RUN/run/${id}/results`, { results: [{ title: "a", testops_id: cases[0], execution: { status: "passed" } }, { title: "b", execution: { status: "exploded" } }] });
  expect(bad.status).toBe(200);
  expect(bad.body.result.stored).toBe(1);
  expect(bad.body.result.errors).toEqual([{ index: 1, field: "results.1.execution.status", message: expect.stringContaining("exploded") }]);
  expect((await h.api("GET", `/run/RUN/${id}`)).body.result.stats).toMatchObject({ untested: 5, passed: 1 });
});

test("creating a run: include_all_cases, unknown plan/cases are 400 naming the field", async () => {
  const all = await run({ include_all_cases: true });
  expect((await h.api("GET", `/run/RUN/${all}`)).body.result.cases.length).toBeGreaterThanOrEqual(6);
  const badPlan = await h.api("POST", "/run/RUN", { title: "x", plan_id: 4242 });
  expect([badPlan.status, badPlan.body.error.field]).toEqual([400, "plan_id"]);
  const badCases = await h.api("POST", "/run/RUN", { title: "x", cases: [cases[0], 4242] });
  expect([badCases.status, badCases.body.error.field]).toEqual([400, "cases"]);
  const badEnv = await h.api("POST", "/run/RUN", { title: "x", environment_slug: "has spaces" });
  expect([badEnv.status, badEnv.body.error.field]).toEqual([400, "environment_slug"]);
});
