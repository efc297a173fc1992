import { afterAll, beforeAll, expect, test } from "bun:test";
import { AuthorsApi, CasesApi, CustomFieldsApi, DefectsApi, EnvironmentsApi, MilestonesApi, ResultsApi, RunsApi, SharedStepsApi, SuitesApi } from "qase-api-client";
import { qaseClientHarness } from "./harness";

/**
 * Every filter qase-api-client's list methods send, walked one parameter at a time against a
 * listening Gatehouse: each narrows the list as documented, or answers 400 naming the parameter —
 * never a 200 that silently ignored it.
 */
const { h, v1, close } = await qaseClientHarness();
afterAll(close);

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await h.api(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};
/** The 400 a client call ends in, as `[status, error.field]`. */
const refused = async (call: Promise<unknown>) => {
  try {
    await call;
    return [200, null];
  } catch (e: any) {
    return [e.response?.status, e.response?.data?.error?.field];
  }
};
const ids = (r: { data: { result?: { entities?: { id?: number }[] } } }) => r.data.result!.entities!.map((e) => e.id);

let s: { login: number; checkout: number; m1: number; m2: number; env: number; c1: number; c2: number; c3: number; r1: number; r2: number; user: number };
let beforeSecond: string;
beforeAll(async () => {
  await ok("POST", "/project", { title: "Filters", code: "LF" });
  const login = (await ok("POST", "/suite/LF", { title: "Login" })).id;
  const checkout = (await ok("POST", "/suite/LF", { title: "Checkout" })).id;
  const m1 = (await ok("POST", "/milestone/LF", { title: "Alpha release" })).id;
  const m2 = (await ok("POST", "/milestone/LF", { title: "Beta release" })).id;
  const env = (await ok("POST", "/environment/LF", { title: "Staging", slug: "staging" })).id;
  const c1 = (await ok("POST", "/case/LF", { title: "Log in", suite_id: login, milestone_id: m1, severity: 2, type: 8 })).id;
  const c2 = (await ok("POST", "/case/LF", { title: "Pay", suite_id: checkout, priority: 1 })).id;
  const c3 = (await ok("POST", "/case/LF", { title: "Refund", suite_id: checkout })).id;
  await ok("POST", "/shared_step/LF", { title: "Open the login page", action: "Open /login" });
  await ok("POST", "/shared_step/LF", { title: "Pay with a card", action: "Pay" });
  const r1 = (await ok("POST", "/run/LF", { title: "Nightly", milestone_id: m1, environment_id: env, cases: [c1, c2] })).id;
  // A person's token, so results have a member.
  const scim = ((await (await h.t.admin("POST", "/api/admin/scim-tokens", { name: "idp" })).json()) as any).token;
  const made = await h.t.request("POST", "/scim/v2/Users", {
    headers: { authorization: `Bearer ${scim}`, "content-type": "application/scim+json" },
    rawBody: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "grace@example.com", name: { givenName: "Grace", familyName: "Hopper" }, displayName: "Grace Hopper" }),
  });
  expect(made.status).toBe(201);
  const user = Number(((await made.json()) as any).id);
  const personal = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "grace", userId: user })).json()) as any).token;
  const asGrace = await h.t.request("POST", `/api/v1/result/LF/${r1}`, { body: { case_id: c1, status: "passed" }, headers: { token: personal } });
  expect(asGrace.status).toBe(200);
  await Bun.sleep(5);
  beforeSecond = new Date().toISOString().replace("T", " ").slice(0, 23);
  await Bun.sleep(5);
  await ok("POST", `/result/LF/${r1}`, { case_id: c2, status: "failed" });
  const r2 = (await ok("POST", "/run/LF", { title: "Smoke", milestone_id: m2, cases: [c3] })).id;
  await ok("POST", `/result/LF/${r2}`, { case_id: c3, status: "blocked" });
  await ok("POST", "/defect/LF", { title: "Open one", actual_result: "x" });
  const resolved = (await ok("POST", "/defect/LF", { title: "Resolved one", actual_result: "x" })).id;
  await ok("PATCH", `/defect/LF/resolve/${resolved}`);
  await ok("POST", "/custom_field", { title: "Ticket", entity: "case", type: "string" });
  await ok("POST", "/custom_field", { title: "Build", entity: "run", type: "number" });
  s = { login, checkout, m1, m2, env, c1, c2, c3, r1, r2, user };
});

test("ResultsApi.getResults: status, run, case_id, member, api, from_end_time, to_end_time", async () => {
  const results = new ResultsApi(v1);
  const get = (o: { status?: string; run?: string; caseId?: string; member?: string; api?: boolean; from?: string; to?: string }) =>
    results.getResults("LF", o.status, o.run, o.caseId, o.member, o.api, o.from, o.to, 100, 0);
  const pairs = async (o: Parameters<typeof get>[0]) => (await get(o)).data.result!.entities!.map((r) => `${r.run_id}:${r.case_id}:${r.status}`).sort();
  expect(await pairs({})).toHaveLength(3);
  expect(await pairs({ status: "failed,blocked" })).toEqual([`${s.r1}:${s.c2}:failed`, `${s.r2}:${s.c3}:blocked`]);
  expect(await pairs({ run: `${s.r1},${s.r2}` })).toHaveLength(3);
  expect(await pairs({ run: String(s.r2) })).toEqual([`${s.r2}:${s.c3}:blocked`]);
  expect(await pairs({ caseId: String(s.c1) })).toEqual([`${s.r1}:${s.c1}:passed`]);
  expect(await pairs({ member: String(s.user) })).toEqual([`${s.r1}:${s.c1}:passed`]);
  expect(await pairs({ api: true })).toHaveLength(3);
  expect(await pairs({ api: false })).toEqual([]);
  expect(await pairs({ from: beforeSecond })).toHaveLength(2);
  expect(await pairs({ to: beforeSecond })).toEqual([`${s.r1}:${s.c1}:passed`]);
  expect((await get({ status: "failed" })).data.result).toMatchObject({ total: 3, filtered: 1, count: 1 });
  expect(await refused(get({ status: "exploded" }))).toEqual([400, "status"]);
  expect(await refused(get({ run: "one" }))).toEqual([400, "run"]);
  expect(await refused(get({ caseId: "-1" }))).toEqual([400, "case_id"]);
  expect(await refused(get({ member: "x" }))).toEqual([400, "member"]);
  expect(await refused(results.getResults("LF", undefined, undefined, undefined, undefined, "maybe" as never))).toEqual([400, "api"]);
  expect(await refused(get({ from: "yesterday" }))).toEqual([400, "from_end_time"]);
  expect(await refused(get({ to: "2026-13-45" }))).toEqual([400, "to_end_time"]);
});

test("RunsApi.getRuns: search, status, milestone, environment, from_start_time, to_start_time, include", async () => {
  const runs = new RunsApi(v1);
  const get = (o: { search?: string; status?: string; milestone?: number; environment?: number; from?: number; to?: number; include?: string }) =>
    runs.getRuns("LF", o.search, o.status, o.milestone, o.environment, o.from, o.to, 100, 0, o.include);
  expect(ids(await get({}))).toEqual([s.r1, s.r2]);
  expect(ids(await get({ search: "nigh" }))).toEqual([s.r1]);
  expect(ids(await get({ status: "in_progress" }))).toEqual([s.r1, s.r2]);
  expect(ids(await get({ milestone: s.m2 }))).toEqual([s.r2]);
  expect(ids(await get({ environment: s.env }))).toEqual([s.r1]);
  const now = Math.floor(Date.now() / 1000);
  expect(ids(await get({ from: now - 3600 }))).toEqual([s.r1, s.r2]);
  expect(ids(await get({ from: now + 3600 }))).toEqual([]);
  expect(ids(await get({ to: now - 3600 }))).toEqual([]);
  expect(ids(await get({ include: "cases" }))).toEqual([s.r1, s.r2]);
  expect(await refused(get({ include: "defects" }))).toEqual([400, "include"]);
  expect(await refused(get({ status: "sleeping" }))).toEqual([400, "status"]);
  expect(await refused(runs.getRuns("LF", undefined, undefined, "x" as never))).toEqual([400, "milestone"]);
  expect(await refused(runs.getRuns("LF", undefined, undefined, undefined, undefined, "soon" as never))).toEqual([400, "from_start_time"]);
  expect((await runs.getRun("LF", s.r1, "cases")).data.result?.id).toBe(s.r1);
  expect(await refused(runs.getRun("LF", s.r1, "defects"))).toEqual([400, "include"]);
});

test("CasesApi.getCases: every filter; external issues and include answer 400 naming them", async () => {
  const cases = new CasesApi(v1);
  const get = (o: Partial<Record<"search" | "severity" | "priority" | "type" | "behavior" | "automation" | "status", string>> & { milestone?: number; suite?: number }) =>
    cases.getCases("LF", o.search, o.milestone, o.suite, o.severity, o.priority, o.type, o.behavior, o.automation, o.status, undefined, undefined, undefined, 100, 0);
  expect(ids(await get({}))).toEqual([s.c1, s.c2, s.c3]);
  expect(ids(await get({ search: "pay" }))).toEqual([s.c2]);
  expect(ids(await get({ milestone: s.m1 }))).toEqual([s.c1]);
  expect(ids(await get({ suite: s.checkout }))).toEqual([s.c2, s.c3]);
  expect(ids(await get({ severity: "2" }))).toEqual([s.c1]);
  expect(ids(await get({ priority: "high" }))).toEqual([s.c2]);
  expect(ids(await get({ type: "8" }))).toEqual([s.c1]);
  expect(ids(await get({ behavior: "destructive" }))).toEqual([]);
  expect(ids(await get({ automation: "is-not-automated" }))).toEqual([s.c1, s.c2, s.c3]);
  expect(ids(await get({ status: "draft" }))).toEqual([]);
  for (const [field, o] of [["severity", { severity: "awful" }], ["priority", { priority: "9" }], ["type", { type: "x" }], ["behavior", { behavior: "x" }], ["automation", { automation: "x" }], ["status", { status: "x" }]] as const)
    expect(await refused(get(o))).toEqual([400, field]);
  // External issues: the filters and `include` are tested with attach/detach (test/tms/case-external-issues.test.ts).
  expect(await refused(cases.getCases("LF", undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, "jira" as never))).toEqual([400, "external_issues[type]"]);
  expect(await refused(cases.getCases("LF", undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, "steps"))).toEqual([400, "include"]);
  expect(await refused(cases.getCase("LF", s.c1, "steps"))).toEqual([400, "include"]);
});

test("search on suites, milestones, shared steps, environments, authors; defects by status; custom fields by entity and type", async () => {
  expect((await new SuitesApi(v1).getSuites("LF", "check", 100, 0)).data.result).toMatchObject({ total: 2, filtered: 1, entities: [{ id: s.checkout }] });
  expect(ids(await new MilestonesApi(v1).getMilestones("LF", "beta", 100, 0))).toEqual([s.m2]);
  expect((await new SharedStepsApi(v1).getSharedSteps("LF", "login", 100, 0)).data.result!.entities!.map((x) => x.title)).toEqual(["Open the login page"]);
  expect(ids(await new EnvironmentsApi(v1).getEnvironments("LF", "stag", undefined, 100, 0))).toEqual([s.env]);
  expect(ids(await new EnvironmentsApi(v1).getEnvironments("LF", undefined, "production", 100, 0))).toEqual([]);
  const authors = new AuthorsApi(v1);
  expect(ids(await authors.getAuthors("hopper", "user", 100, 0))).toEqual([s.user]);
  expect(ids(await authors.getAuthors(undefined, "app", 100, 0))).toEqual([]);
  expect(await refused(authors.getAuthors(undefined, "robot" as never))).toEqual([400, "type"]);
  const defects = new DefectsApi(v1);
  expect((await defects.getDefects("LF", "resolved", 100, 0)).data.result!.entities!.map((d) => d.title)).toEqual(["Resolved one"]);
  expect((await defects.getDefects("LF", "in_progress", 100, 0)).data.result!.entities).toEqual([]);
  expect(await refused(defects.getDefects("LF", "closed" as never))).toEqual([400, "status"]);
  const fields = new CustomFieldsApi(v1);
  expect((await fields.getCustomFields("run", undefined, 100, 0)).data.result!.entities!.map((f) => f.title)).toEqual(["Build"]);
  expect((await fields.getCustomFields(undefined, "string", 100, 0)).data.result!.entities!.map((f) => f.title)).toEqual(["Ticket"]);
  expect(await refused(fields.getCustomFields("plan" as never))).toEqual([400, "entity"]);
  expect(await refused(fields.getCustomFields(undefined, "radio"))).toEqual([400, "type"]);
});
