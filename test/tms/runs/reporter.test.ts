import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "../harness";

// What the Qase reporters send to the v2 results endpoint, and what must come of it.
let h: Harness;
let existing: number;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Reporter", code: "REP" });
  existing = (await h.api("POST", "/case/REP", { title: "Existing" })).body.result.id;
});
afterAll(() => h.close());

const newRun = async () => (await h.api("POST", "/run/REP", { title: "R" })).body.result.id as number;
const post = (runId: number, results: unknown[]) => h.api("POST", `/api/v2/REP/run/${runId}/results`, { results });
const resultsOf = async (runId: number) => (await h.api("GET", `/result/REP?run=${runId}&limit=100`)).body.result.entities as any[];
const suite = (...titles: string[]) => ({ suite: { data: titles.map((title) => ({ title, public_id: null })) } });

test("a retried batch (same result ids) stores nothing twice", async () => {
  const runId = await newRun();
  const batch = [
    { id: "0b6c6f1e-1", title: "Existing", testops_id: existing, execution: { status: "failed" } },
    { id: "0b6c6f1e-2", title: "Unlinked once", execution: { status: "passed" } },
  ];
  const first = await post(runId, batch);
  expect(first.body.result.stored).toBe(2);
  const retry = await post(runId, batch);
  expect(retry.status).toBe(200);
  expect(retry.body.result.stored).toBe(0);
  expect(retry.body.result.results.map((r: any) => [r.hash, r.duplicate])).toEqual(first.body.result.results.map((r: any) => [r.hash, true]));
  expect(await resultsOf(runId)).toHaveLength(2);
  const cases = (await h.api("GET", "/case/REP?search=Unlinked%20once")).body.result.entities;
  expect(cases).toHaveLength(1);
  // The same id in another run is another result.
  expect((await post(await newRun(), batch)).body.result.stored).toBe(2);
});

test("a result for a case id that does not exist is stored, matched by signature, with the reason", async () => {
  const runId = await newRun();
  const r = await post(runId, [
    { title: "Stale annotation", testops_id: 987654, execution: { status: "passed" }, relations: suite("Area") },
    { title: "Existing", testops_id: existing, execution: { status: "passed" } },
  ]);
  expect(r.status).toBe(200);
  expect(r.body.result.errors).toEqual([]);
  const [stale, fine] = r.body.result.results;
  expect(stale.unlinked_reason).toContain("Test case 987654 does not exist");
  expect(stale.case_id).not.toBe(987654);
  expect(fine).toMatchObject({ case_id: existing, unlinked_reason: null });
  const stored = (await h.api("GET", `/result/REP/${stale.hash}`)).body.result;
  expect(stored.unlinked_reason).toContain("987654");
  expect((await h.api("GET", `/case/REP/${stale.case_id}`)).body.result.title).toBe("Stale annotation");
});

test("bad items are reported one by one and every good one is stored", async () => {
  const runId = await newRun();
  const r = await post(runId, [
    { title: "good 1", execution: { status: "passed" } },
    { execution: { status: "passed" } },
    { title: "bad status", execution: { status: "exploded" } },
    "not even an object",
    { title: "good 2", execution: { status: "failed" } },
  ]);
  expect(r.status).toBe(200);
  expect(r.body.result.stored).toBe(2);
  expect(r.body.result.errors.map((e: any) => [e.index, e.field])).toEqual([[1, "results.1.title"], [2, "results.2.execution.status"], [3, "results.3"]]);
  expect(r.body.result.results.map((x: any) => x.index)).toEqual([0, 4]);
  expect((await resultsOf(runId)).map((x) => x.status).sort()).toEqual(["failed", "passed"]);
});

test("the same title in two suites is two cases (signature), and each is found again", async () => {
  const runId = await newRun();
  const r = await post(runId, [
    { title: "logs in", execution: { status: "passed" }, relations: suite("Web") },
    { title: "logs in", execution: { status: "failed" }, relations: suite("Mobile") },
  ]);
  const [web, mobile] = r.body.result.results;
  expect(web.case_id).not.toBe(mobile.case_id);
  const again = await post(runId, [
    { title: "logs in", execution: { status: "passed" }, relations: suite("Mobile") },
    { title: "logs in", execution: { status: "passed" }, signature: "explicit::signature" },
  ]);
  expect(again.body.result.results[0].case_id).toBe(mobile.case_id);
  expect([web.case_id, mobile.case_id]).not.toContain(again.body.result.results[1].case_id);
});

test("fields and parameters describe the case a result creates; unknown fields are reported", async () => {
  const runId = await newRun();
  const r = await post(runId, [{
    title: "pays with card", execution: { status: "passed" }, params: { browser: "firefox" },
    fields: { severity: "critical", priority: "high", description: "Checkout", preconditions: "A basket", layer: "e2e", tags: "pay, card", colour: "blue", behavior: "sideways" },
  }]);
  expect(r.body.result.warnings.map((w: any) => w.field)).toEqual(["results.0.fields.colour", "results.0.fields.behavior"]);
  const c = (await h.api("GET", `/case/REP/${r.body.result.results[0].case_id}`)).body.result;
  // v2 fields are names (qase-api-v2-client's ResultCreateFields are strings); the v1 case answers Qase's numbers.
  expect(c).toMatchObject({ severity: 2, priority: 1, description: "Checkout", preconditions: "A basket", layer: 1, automation: 2, is_automated: true, params: { browser: ["firefox"] } });
  expect(c.tags).toEqual([{ title: "pay" }, { title: "card" }]);
  const stored = (await resultsOf(runId))[0];
  expect(stored.param).toEqual({ browser: "firefox" });
});

test("step texts, expected results, data and nested steps are stored and shown", async () => {
  const runId = await newRun();
  const r = await post(runId, [{
    title: "steps", execution: { status: "failed" },
    steps: [
      { data: { action: "Open the page", expected_result: "It opens", input_data: "/login" }, execution: { status: "passed" } },
      {
        data: { action: "Submit" }, execution: { status: "failed", comment: "500" },
        steps: [{ data: { action: "Click send" }, execution: { status: "failed" }, steps: [{ data: { action: "Wait" }, execution: { status: "passed" } }] }],
      },
    ],
  }]);
  const stored = (await h.api("GET", `/result/REP/${r.body.result.results[0].hash}`)).body.result;
  // v1 step statuses are Qase's numbers (TestStepResult.status: 1 passed, 2 failed), nested steps too.
  expect(stored.status).toBe("failed");
  expect(stored.steps).toMatchObject([
    { position: 1, status: 1, action: "Open the page", expected_result: "It opens", data: "/login", steps: [] },
    { position: 2, status: 2, action: "Submit", comment: "500", steps: [{ position: 1, action: "Click send", status: 2, steps: [{ action: "Wait", status: 1 }] }] },
  ]);
  const badNested = await post(runId, [{ title: "bad nested", execution: { status: "passed" }, steps: [{ data: { action: "a" }, steps: [{ execution: { status: 5 } }] }] }]);
  expect(badNested.body.result.errors[0].field).toStartWith("results.0.steps.0.steps.0");
});

test("the single-result endpoint is idempotent by id too, and its bad input is a 400", async () => {
  const runId = await newRun();
  const body = { id: "single-1", title: "single", execution: { status: "passed" } };
  const a = await h.api("POST", `/api/v2/REP/run/${runId}/result`, body);
  const b = await h.api("POST", `/api/v2/REP/run/${runId}/result`, body);
  expect([a.status, b.status]).toEqual([200, 200]);
  expect(b.body.result).toMatchObject({ hash: a.body.result.hash, duplicate: true });
  expect(await resultsOf(runId)).toHaveLength(1);
  const bad = await h.api("POST", `/api/v2/REP/run/${runId}/result`, { title: "x", execution: { status: "exploded" } });
  expect([bad.status, bad.body.error.field]).toEqual([400, "execution.status"]);
});

test("a suite title with tabs is a suite path: existing levels reused by title under the same parent", async () => {
  const runId = await newRun();
  const r = await post(runId, [
    { title: "Nested once", execution: { status: "passed" }, relations: suite("Top\tMiddle") },
    { title: "Nested twice", execution: { status: "passed" }, relations: suite("Top", "Middle\t Leaf ") },
  ]);
  expect(r.body.result.errors).toEqual([]);
  const suites = (await h.api("GET", "/suite/REP?limit=100")).body.result.entities as any[];
  const [top] = suites.filter((s) => s.title === "Top" && s.parent_id === null);
  const middles = suites.filter((s) => s.title === "Middle");
  expect(middles.map((s) => s.parent_id)).toEqual([top.id]);
  const [leaf] = suites.filter((s) => s.title === "Leaf");
  expect(leaf.parent_id).toBe(middles[0].id);
  const caseOf = async (i: number) => (await h.api("GET", `/case/REP/${r.body.result.results[i].case_id}`)).body.result;
  expect((await caseOf(0)).suite_id).toBe(middles[0].id);
  expect((await caseOf(1)).suite_id).toBe(leaf.id);
});

test("a step attachment given in both data and execution is stored once", async () => {
  const runId = await newRun();
  const r = await post(runId, [{ title: "Attached twice", execution: { status: "passed" }, steps: [{ data: { action: "Shot", attachments: ["7"] }, execution: { status: "passed", attachments: ["7", "8"] } }] }]);
  expect(r.body.result.errors).toEqual([]);
  expect((await resultsOf(runId))[0].steps[0].attachments).toEqual([7, 8]);
});
