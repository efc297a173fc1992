import { afterAll, expect, test } from "bun:test";
import { CasesApi, Configuration, PlansApi, ProjectsApi, ResultsApi, RunsApi, SuitesApi } from "qase-api-client";
import { Configuration as V2Configuration, ResultsApi as V2ResultsApi } from "qase-api-v2-client";
import { isEnvelope, qaseClientHarness } from "./harness";

/**
 * Gatehouse driven by the official Qase clients (`qase-api-client` for v1, `qase-api-v2-client`
 * for the reporters' v2 results endpoint) over real HTTP, as an integrator would point them at it.
 */
const { h, origin, v1, close } = await qaseClientHarness();
afterAll(close);

test("project, suite, cases, plan, run, v1 + v2 results, public report, complete — and the deliveries", async () => {
  const projects = new ProjectsApi(v1);
  const created = await projects.createProject({ title: "Qase client", code: "QC", description: "driven by qase-api-client" });
  expect(created.data).toEqual({ status: true, result: { code: "QC" } });
  expect((await projects.getProject("QC")).data.result?.title).toBe("Qase client");
  expect((await projects.getProjects(10, 0)).data.result?.entities?.map((p) => p.code)).toContain("QC");

  const suite = (await new SuitesApi(v1).createSuite("QC", { title: "Login", description: "auth flows", parent_id: null })).data.result!.id!;
  const cases = new CasesApi(v1);
  const login = (await cases.createCase("QC", {
    title: "Log in with a valid password", suite_id: suite, severity: 2, priority: 1, type: 8, behavior: 2, automation: 2,
    steps: [{ action: "Open /login", expected_result: "Form shown" }, { action: "Submit valid credentials", expected_result: "Dashboard" }],
  })).data.result!.id!;
  const logout = (await cases.createCase("QC", { title: "Log out", suite_id: suite })).data.result!.id!;
  const got = (await cases.getCase("QC", login)).data.result!;
  expect(got).toMatchObject({ id: login, title: "Log in with a valid password", suite_id: suite, revision: 1 });
  expect(got.steps?.length).toBe(2);
  await cases.updateCase("QC", logout, { description: "Clears the session" });
  expect((await cases.getCases("QC", undefined, undefined, suite, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, 100, 0)).data.result?.total).toBe(2);

  const plan = (await new PlansApi(v1).createPlan("QC", { title: "Smoke", cases: [login, logout] })).data.result!.id!;
  const runs = new RunsApi(v1);
  const run = (await runs.createRun("QC", { title: "Nightly", plan_id: plan, environment_slug: "staging", is_autotest: true })).data.result!.id!;

  const results = new ResultsApi(v1);
  const first = await results.createResult("QC", run, { case_id: login, status: "failed", comment: "timeout", time_ms: 900 });
  expect(first.data.status).toBe(true);
  expect(first.data.result).toMatchObject({ case_id: login });
  await results.createResultBulk("QC", run, { results: [{ case_id: login, status: "passed", time_ms: 700 }, { case_id: logout, status: "blocked" }] });

  // The reporters' v2 endpoint: one linked by testops_id (overwrites logout), one unlinked (creates a case).
  const v2 = new V2ResultsApi(new V2Configuration({ apiKey: h.token, basePath: `${origin}/api/v2` }));
  const bulk = await v2.createResultsV2("QC", run, {
    results: [
      { title: "Log out", testops_id: logout, execution: { status: "passed", duration: 120, start_time: Date.now() / 1000 } },
      { title: "Reset password", execution: { status: "failed", stacktrace: "AssertionError" }, message: "no email", steps: [{ data: { action: "Request reset" }, execution: { status: "failed" as never } }] },
    ],
  });
  expect(bulk.data.status).toBe(true);
  const single = await v2.createResultV2("QC", run, { title: "Remember me", execution: { status: "skipped" } });
  expect(single.data.result?.hash).toMatch(/^[0-9a-f]{40}$/);

  const pub = await runs.updateRunPublicity("QC", run, { status: true });
  // The public report is served at the returned address, without a token.
  const page = await fetch(pub.data.result!.url!.replace("https://gatehouse.test", `${origin}`));
  expect([page.status, page.headers.get("content-type")]).toEqual([200, "text/html; charset=utf-8"]);
  expect(await page.text()).toContain("Nightly");
  const completed = await runs.completeRun("QC", run);
  expect(completed.data.status).toBe(true);

  const r = (await runs.getRun("QC", run)).data.result!;
  expect(r.stats).toMatchObject({ total: 4, passed: 2, failed: 1, skipped: 1 });

  // Deliveries the subscriber received for that session.
  expect((await h.expectEvent("case.created", (p) => p.id === login)).payload).toMatchObject({ severity: "critical", priority: "high", type: "functional", behavior: "positive", is_automated: true, suite_id: suite });
  await h.expectEvent("case.created", (p) => p.id === logout);
  await h.expectEvent("case.updated", (p) => p.id === logout);
  const resetCase = (await h.expectEvent("case.created", (p) => p.title === "Reset password")).payload.id;
  await h.expectEvent("case.created", (p) => p.title === "Remember me");
  await h.expectEvent("suite.created", (p) => p.id === suite);
  await h.expectEvent("plan.created", (p) => p.id === plan);
  expect((await h.expectEvent("run.started")).payload).toEqual({ id: run, title: "Nightly", description: "", plan_id: plan, cases_count: 2, environment: "staging" });
  expect((await h.expectEvent("run.report_changed")).payload).toEqual({ id: run, visible: true });
  const done = await h.expectEvent("run.completed");
  expect(isEnvelope(done)).toBe(true);
  // login: failed → passed; logout: blocked → passed; Reset password: failed; Remember me: skipped (untested)
  expect(done.payload).toEqual({ id: run, cases: 4, passed: 2, failed: 1, blocked: 0, duration: done.payload.duration });
  expect(resetCase).toBeGreaterThan(logout);
  expect(await h.inbox()).toEqual([]);
});

test("the client sees 401 for a bad token and 404 for an unknown project", async () => {
  const bad = new ProjectsApi(new Configuration({ apiKey: "not-a-token", basePath: `${origin}/api/v1` }));
  const e1 = await bad.getProjects().catch((e) => e);
  expect(e1.response?.status).toBe(401);
  expect(e1.response?.data?.status).toBe(false);
  const e2 = await new ProjectsApi(v1).getProject("NOPE").catch((e) => e);
  expect(e2.response?.status).toBe(404);
});
