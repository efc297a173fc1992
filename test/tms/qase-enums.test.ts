import { afterAll, expect, test } from "bun:test";
import {
  CasesApi, Configuration, DefectsApi, PlansApi, ResultsApi, RunsApi, SearchApi, SystemFieldsApi, TestStepResultCreateStatusEnum,
  type Defect, type DefectCreate, type Result, type Run, type TestCase,
} from "qase-api-client";
import { Configuration as V2Configuration, ResultsApi as V2ResultsApi } from "qase-api-v2-client";
import { qaseClientHarness } from "./harness";

/**
 * Enums as the official Qase clients declare them (`qase-api-client` 1.1.15 models): TestCase's
 * severity, priority, type, layer, behavior, status, automation and is_flaky are numbers; Run has
 * the number in `status` and the name in `status_text`; Result.status, Defect.severity/status are
 * strings; TestStepResult.status is a number. The clients talk to a listening Gatehouse over HTTP;
 * the models type what they deserialize, so a field of the wrong kind fails `tsc` here as well as
 * the assertions.
 */
const { h, origin, v1, close } = await qaseClientHarness();
afterAll(close);
await h.api("POST", "/project", { title: "Enums", code: "EN" });


test("cases: created with Qase's numbers, read back as the same numbers; the webhook payload carries the names", async () => {
  const cases = new CasesApi(v1);
  const id = (await cases.createCase("EN", {
    title: "Refund a card payment", severity: 2, priority: 1, type: 8, layer: 2, behavior: 3, status: 1, automation: 2, is_flaky: 1,
  })).data.result!.id!;
  const got: TestCase = (await cases.getCase("EN", id)).data.result!;
  expect(got).toMatchObject({ severity: 2, priority: 1, type: 8, layer: 2, behavior: 3, status: 1, automation: 2, is_flaky: 1, isManual: false, isToBeAutomated: false });
  for (const f of ["severity", "priority", "type", "layer", "behavior", "status", "automation", "is_flaky"] as const) expect(typeof got[f]).toBe("number");

  // The same case in its case.created event: spec §6.3's names.
  const event = await h.expectEvent("case.created", (p) => p.id === id);
  expect(event.payload).toMatchObject({ severity: "critical", priority: "high", type: "functional", behavior: "negative", is_automated: true, is_deprecated: false });

  // Update with numbers; the names the API took before still work.
  await cases.updateCase("EN", id, { severity: 6, priority: 3, type: 2, layer: 3, behavior: 4, status: 2, is_flaky: 0, automation: 0 });
  expect((await cases.getCase("EN", id)).data.result).toMatchObject({ severity: 6, priority: 3, type: 2, layer: 3, behavior: 4, status: 2, automation: 0, is_flaky: 0, isManual: true });
  const byName = await h.api("PATCH", `/case/EN/${id}`, { severity: "blocker", priority: "medium", type: "regression", layer: "e2e", behavior: "positive", status: "actual", automation: "automated" });
  expect(byName.status).toBe(200);
  expect((await cases.getCase("EN", id)).data.result).toMatchObject({ severity: 1, priority: 2, type: 3, layer: 1, behavior: 2, status: 0, automation: 2 });

  // Defaults are numbers too.
  const plain = (await cases.createCase("EN", { title: "Plain" })).data.result!.id!;
  expect((await cases.getCase("EN", plain)).data.result).toMatchObject({ severity: 4, priority: 0, type: 1, layer: 0, behavior: 1, status: 0, automation: 0, is_flaky: 0 });
});

test("automation keeps Qase's three states, set by `automation` or by isManual/isToBeAutomated, and filters by them", async () => {
  const cases = new CasesApi(v1);
  const planned = (await cases.createCase("EN", { title: "Planned", automation: 1 })).data.result!.id!;
  expect((await cases.getCase("EN", planned)).data.result).toMatchObject({ automation: 1, isManual: true, isToBeAutomated: true });
  expect((await h.expectEvent("case.created", (p) => p.id === planned)).payload.is_automated).toBe(false);
  const viaFlags = (await cases.createCase("EN", { title: "Planned by flags", isManual: true, isToBeAutomated: true, automation: 2 })).data.result!.id!; // the flags win, as in Qase
  expect((await cases.getCase("EN", viaFlags)).data.result).toMatchObject({ automation: 1 });
  await cases.updateCase("EN", viaFlags, { isManual: false });
  expect((await cases.getCase("EN", viaFlags)).data.result).toMatchObject({ automation: 2, isManual: false, isToBeAutomated: false });
  // @qase/mcp-server's automation mapping sends the flags as numbers (isManual 0|1, isToBeAutomated 1).
  const asNumbers = async (flags: object) => (await h.api("POST", "/case/EN", { title: "Flags as numbers", ...flags })).body;
  for (const [flags, automation] of [[{ isManual: 0 }, 2], [{ isManual: 1, isToBeAutomated: 1 }, 1], [{ isManual: 1, isToBeAutomated: 0 }, 0]] as const) {
    const id = (await asNumbers(flags)).result.id;
    expect((await cases.getCase("EN", id)).data.result!.automation).toBe(automation);
  }
  const bulk = await h.api("POST", "/case/EN/bulk", { cases: [{ title: "Bulk flags as numbers", isManual: 1, isToBeAutomated: 1 }] });
  expect((await cases.getCase("EN", bulk.body.result.ids[0])).data.result!.automation).toBe(1);
  expect((await h.api("POST", "/case/EN", { title: "x", isManual: 2 })).body.error.field).toBe("isManual");
  const manual = (await cases.createCase("EN", { title: "Manual", automation: 0 })).data.result!.id!;
  await cases.updateCase("EN", manual, { isToBeAutomated: true });
  expect((await cases.getCase("EN", manual)).data.result!.automation).toBe(1);

  // getCases(code, search, milestone, suite, severity, priority, type, behavior, automation)
  const titles = async (automation: string) => (await cases.getCases("EN", "Plan", undefined, undefined, undefined, undefined, undefined, undefined, automation)).data.result!.entities!.map((c: TestCase) => c.title);
  expect(await titles("to-be-automated")).toEqual(["Planned"]);
  expect(await titles("1")).toEqual(["Planned"]);
  expect(await titles("automated")).toEqual(["Planned by flags"]);
  expect(await titles("is-not-automated")).toEqual(["Planned"]);

  // QQL, with Qase's labels or the numbers.
  const search = new SearchApi(v1);
  const qql = async (cond: string) => ((await search.search(`entity = "case" and project = "EN" and title ~ "Plan" and ${cond}`)).data.result!.entities! as TestCase[]).map((c) => c.title);
  expect(await qql('automation = "To be automated"')).toEqual(["Planned"]);
  expect(await qql("automation = 2")).toEqual(["Planned by flags"]);
  expect(await qql('automation != "Not automated" order by id')).toEqual(["Planned", "Planned by flags"]);
});

test("bulk create and list filters take numbers; lists answer numbers", async () => {
  const cases = new CasesApi(v1);
  const bulk = await cases.bulk("EN", { cases: [{ title: "Bulk smoke", type: 2, severity: 5 }, { title: "Bulk security", type: 4, severity: 5, priority: 1 }] });
  expect(bulk.data.status).toBe(true);
  // getCases(code, search, milestone, suite, severity, priority, type, …): Qase passes the filters as strings.
  const list = (await cases.getCases("EN", "Bulk", undefined, undefined, "5", undefined, "4")).data.result!;
  expect(list.entities!.map((c: TestCase) => [c.title, c.type, c.severity, c.priority])).toEqual([["Bulk security", 4, 5, 1]]);
  expect((await cases.getCases("EN", "Bulk", undefined, undefined, "minor", "high")).data.result!.entities!.map((c: TestCase) => c.title)).toEqual(["Bulk security"]);
});

test("a value outside an enum is a 400 naming the field and listing the values", async () => {
  for (const [field, value] of [["severity", 9], ["type", 0], ["priority", "urgent"], ["automation", 3], ["layer", "ui"]] as const) {
    const r = await h.api("POST", "/case/EN", { title: "bad", [field]: value });
    expect([r.status, r.body.error.field]).toEqual([400, field]);
    expect(r.body.error.message).toContain("1 = ");
  }
  const bulk = await h.api("POST", "/case/EN/bulk", { cases: [{ title: "ok" }, { title: "bad", severity: 7 }] });
  expect([bulk.status, bulk.body.error.field]).toEqual([400, "cases.1.severity"]);
  const filter = await h.api("GET", "/case/EN?severity=catastrophic");
  expect([filter.status, filter.body.error.field]).toEqual([400, "severity"]);
});

test("runs (status + status_text), results (status name, step statuses numbers), defects (names), plans, QQL and system fields", async () => {
  const cases = new CasesApi(v1);
  const a = (await cases.createCase("EN", { title: "Run me", severity: 3 })).data.result!.id!;
  const b = (await cases.createCase("EN", { title: "Run me too" })).data.result!.id!;
  const plan = (await new PlansApi(v1).createPlan("EN", { title: "Release", cases: [a, b] })).data.result!.id!;
  expect((await new PlansApi(v1).getPlan("EN", plan)).data.result).toMatchObject({ id: plan, title: "Release" });

  const runs = new RunsApi(v1);
  const run = (await runs.createRun("EN", { title: "Nightly", plan_id: plan })).data.result!.id!;
  const active: Run = (await runs.getRun("EN", run)).data.result!;
  expect([active.status, active.status_text]).toEqual([0, "in_progress"]); // Qase's word for an active run

  const results = new ResultsApi(v1);
  const hash = (await results.createResult("EN", run, {
    case_id: a, status: "failed", defect: true,
    steps: [{ status: TestStepResultCreateStatusEnum.PASSED, action: "Open" }, { status: TestStepResultCreateStatusEnum.FAILED, action: "Pay" }],
  })).data.result!.hash!;
  const result: Result = (await results.getResult("EN", hash)).data.result!;
  expect(result.status).toBe("failed"); // Result.status is a string in the model
  expect(result.steps!.map((s) => s.status)).toEqual([1, 2]); // TestStepResult.status: 1 passed, 2 failed
  await results.createResult("EN", run, { case_id: b, status: "skipped" });

  // The defect the failed result filed, and one created with Qase's numeric severity: names on the way out.
  const defects = new DefectsApi(v1);
  const filed: Defect = (await defects.getDefects("EN")).data.result!.entities![0]!;
  expect([filed.severity, filed.status]).toEqual(["normal", "open"]);
  const body: DefectCreate = { title: "Pay button dead", actual_result: "Nothing happens", severity: 1 };
  const own = (await defects.createDefect("EN", { ...body, case_id: a } as DefectCreate)).data.result!.id!; // case_id: Gatehouse's defects name their case
  expect((await defects.getDefect("EN", own)).data.result).toMatchObject({ severity: "blocker", status: "open" }); // Qase's spelling (§6.3's case payload says "blocked")

  await runs.completeRun("EN", run);
  const done: Run = (await runs.getRun("EN", run)).data.result!;
  expect([done.status, done.status_text]).toEqual([1, "failed"]); // completed with a failed case: Qase's run outcome
  // Qase's run filter words and numbers both select it.
  for (const status of ["completed", "1", "complete", "aborted,completed", "failed", "passed,failed"]) {
    expect((await runs.getRuns("EN", undefined, status)).data.result!.entities!.map((r: Run) => r.id)).toEqual([run]);
  }
  for (const status of ["in_progress", "passed", "aborted"]) expect((await runs.getRuns("EN", undefined, status)).data.result!.entities).toEqual([]);

  // QQL answers each entity in its API view: numbers where the models declare numbers.
  const search = new SearchApi(v1);
  const found = (await search.search('entity = "case" and project = "EN" and severity = 3 and title = "Run me"')).data.result!.entities! as TestCase[];
  expect(found.map((c) => [c.id, c.severity, c.type])).toEqual([[a, 3, 1]]);
  const runHit = (await search.search('entity = "run" and project = "EN"')).data.result!.entities! as Run[];
  expect(runHit.map((r) => [r.status, r.status_text])).toEqual([[1, "failed"]]);

  // /system_field's option ids are exactly the numbers above.
  const fields = (await new SystemFieldsApi(v1).getSystemFields()).data.result!;
  const ids = (slug: string) => Object.fromEntries(fields.find((f) => f.slug === slug)!.options!.map((o) => [o.slug, o.id]));
  expect(ids("severity")).toEqual({ undefined: 0, blocker: 1, critical: 2, major: 3, normal: 4, minor: 5, trivial: 6 });
  expect(ids("type")).toMatchObject({ other: 1, smoke: 2, regression: 3, functional: 8 });
  expect(ids("result_status")).toMatchObject({ passed: 1, failed: 2, skipped: 5, in_progress: 7, invalid: 8 });
});

test("a v1 result naming its case by title creates it with ResultCreateCase's slugs; a bad slug is a 400 naming it", async () => {
  const run = (await new RunsApi(v1).createRun("EN", { title: "v1 titles" })).data.result!.id!;
  const results = new ResultsApi(v1);
  const made = await results.createResult("EN", run, { status: "passed", case: { title: "Made by a v1 result", severity: "critical", priority: "low", layer: "api", description: "from a script" } });
  const got: TestCase = (await new CasesApi(v1).getCase("EN", made.data.result!.case_id!)).data.result!;
  expect(got).toMatchObject({ title: "Made by a v1 result", severity: 2, priority: 3, layer: 2, description: "from a script" });
  const bad = await h.api("POST", `/result/EN/${run}`, { status: "passed", case: { title: "Bad slug", layer: "ui" } });
  expect([bad.status, bad.body.error.field]).toEqual([400, "case.layer"]);
});

test("qase-api-v2-client: the reporters' field names create a case that v1 answers with numbers", async () => {
  const run = (await new RunsApi(v1).createRun("EN", { title: "Reporter run" })).data.result!.id!;
  const v2 = new V2ResultsApi(new V2Configuration({ apiKey: h.token, basePath: `${origin}/api/v2` }));
  const created = await v2.createResultV2("EN", run, {
    title: "Reporter-made case", execution: { status: "passed" },
    fields: { severity: "blocker", priority: "low", layer: "api", behavior: "destructive", type: "smoke", is_flaky: "true" },
  });
  const caseId = created.data.result!.case_id!;
  const got: TestCase = (await new CasesApi(v1).getCase("EN", caseId)).data.result!;
  expect(got).toMatchObject({ severity: 1, priority: 3, layer: 2, behavior: 4, type: 2, is_flaky: 1, automation: 2 });
  expect((await h.expectEvent("case.created", (p) => p.id === caseId)).payload).toMatchObject({ severity: "blocked", priority: "low", type: "smoke", behavior: "destructive" });
});

test("status_text is Qase's run outcome: in_progress, passed (no negative latest result), failed (failed, blocked or invalid), aborted; the filter takes the same words", async () => {
  const runs = new RunsApi(v1);
  const results = new ResultsApi(v1);
  const c = (await new CasesApi(v1).createCase("EN", { title: "Outcome" })).data.result!.id!;
  const run = async (title: string, statuses: string[]) => {
    const id = (await runs.createRun("EN", { title, cases: [c] })).data.result!.id!;
    for (const status of statuses) await results.createResult("EN", id, { case_id: c, status });
    return id;
  };
  const active = await run("still running", ["failed"]);
  const failedLast = await run("passed then failed", ["passed", "failed"]); // the latest result counts
  const passedLast = await run("failed then passed", ["failed", "passed"]);
  const blocked = await run("blocked", ["blocked"]);
  const untested = await run("nothing ran", []);
  for (const id of [failedLast, passedLast, blocked, untested]) await runs.completeRun("EN", id);
  const aborted = await run("aborted", ["failed"]);
  expect((await h.api("POST", `/run/EN/${aborted}/abort`)).status).toBe(200);

  const mine = [active, failedLast, passedLast, blocked, untested, aborted];
  const text = async (id: number) => (await runs.getRun("EN", id)).data.result!.status_text;
  expect(await Promise.all(mine.map(text))).toEqual(["in_progress", "failed", "passed", "failed", "passed", "aborted"]);
  const selected = async (status: string) => {
    const r = await h.api("GET", `/run/EN?limit=100&status=${status}`);
    expect(r.status).toBe(200);
    return (r.body.result.entities as Run[]).map((x) => x.id!).filter((id) => mine.includes(id));
  };
  expect(await selected("failed")).toEqual([failedLast, blocked]);
  expect(await selected("passed")).toEqual([passedLast, untested]);
  expect(await selected("in_progress")).toEqual([active]);
  expect(await selected("aborted")).toEqual([aborted]);
  expect(await selected("passed,aborted")).toEqual([passedLast, untested, aborted]);
  // QQL names run statuses the same way (Qase's QQL docs: status = "in progress", "passed", "failed", "aborted")
  const qql = async (query: string) => ((await new SearchApi(v1).search(`entity = "run" and project = "EN" and ${query}`, 100)).data.result!.entities! as Run[]).map((r) => r.id!).filter((id) => mine.includes(id));
  expect(await qql('status = "failed"')).toEqual([failedLast, blocked]);
  expect(await qql('status = "Passed"')).toEqual([passedLast, untested]);
  expect(await qql('status = "in progress"')).toEqual([active]);
  expect(await qql('status in ["failed", "aborted"]')).toEqual([failedLast, blocked, aborted]);
  expect(await qql('status != "failed"')).toEqual([active, passedLast, untested, aborted]);
  expect(await qql("status = 1")).toEqual([failedLast, passedLast, blocked, untested]); // the number: completed, either outcome
  const unknown = await h.api("GET", "/run/EN?status=finished");
  expect(unknown.status).toBe(400);
  expect(unknown.body.error).toMatchObject({ field: "status", message: expect.stringContaining("in_progress, passed, failed or aborted") });
});
