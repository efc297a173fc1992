import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { count } from "drizzle-orm";
import { createTestApp, until } from "../helpers";
import { startDeliveryLoop } from "../../src/webhooks/dispatcher";
import { webhookEvents } from "../../src/webhooks/tables";
import { startReceiver } from "../webhooks/harness";
import { first } from "../../src/db/transaction";
import { apiCalls } from "./api-calls";

/**
 * Per-project numbers: cases, suites, milestones, plans, runs and defects are numbered within
 * their project, and every surface — paths, bodies, answers, v2 results, QQL, webhook payloads —
 * speaks those numbers. Two projects (NA, NB) are filled so that their numbers and the rows'
 * internal keys differ: NA's entities come first, so NB's number 1s are not row 1s.
 */
let t: ReturnType<typeof createTestApp>;
let token: string;
let receiver: ReturnType<typeof startReceiver>;
let verifier: Webhook;
let loop: ReturnType<typeof startDeliveryLoop>;

const { api, ok } = apiCalls(() => t, () => token);

beforeAll(async () => {
  t = createTestApp({ webhookAllowPrivateTargets: true, webhookPollIntervalMs: 20, webhookTimeoutMs: 2000 });
  token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "numbering" })).json()) as { token: string }).token;
  receiver = startReceiver();
  const sub = await t.admin("POST", "/api/admin/webhooks", { url: receiver.url, events: ["*"] });
  verifier = new Webhook(((await sub.json()) as { secret: string }).secret);
  loop = startDeliveryLoop(t.ctx);
  for (const code of ["NA", "NB", "NC"]) await ok("POST", "/project", { title: code, code });
});
afterAll(async () => {
  await loop.stop();
  receiver.stop();
  t.close();
});

describe("two projects", () => {
  test("each numbers its cases, suites, milestones, plans, runs and defects from 1; GET by id resolves within the project", async () => {
    // NA first: two of each, so NB's 1s are the third rows of their tables.
    expect(await ok("POST", "/suite/NA", { title: "A suite 1" })).toEqual({ id: 1 });
    expect(await ok("POST", "/suite/NA", { title: "A suite 2", parent_id: 1 })).toEqual({ id: 2 });
    expect(await ok("POST", "/milestone/NA", { title: "A milestone 1" })).toEqual({ id: 1 });
    expect(await ok("POST", "/milestone/NA", { title: "A milestone 2" })).toEqual({ id: 2 });
    expect(await ok("POST", "/case/NA", { title: "A case 1", suite_id: 1, milestone_id: 1 })).toEqual({ id: 1 });
    expect(await ok("POST", "/case/NA", { title: "A case 2", suite_id: 2, milestone_id: 2 })).toEqual({ id: 2 });
    expect(await ok("POST", "/plan/NA", { title: "A plan 1", cases: [2, 1] })).toEqual({ id: 1 });
    expect(await ok("POST", "/plan/NA", { title: "A plan 2", cases: [2] })).toEqual({ id: 2 });
    expect(await ok("POST", "/run/NA", { title: "A run 1", plan_id: 1, milestone_id: 2 })).toEqual({ id: 1 });
    expect(await ok("POST", "/run/NA", { title: "A run 2", cases: [2] })).toEqual({ id: 2 });
    expect(await ok("POST", "/defect/NA", { title: "A defect 1", actual_result: "x", case_id: 1 })).toEqual({ id: 1 });
    expect(await ok("POST", "/defect/NA", { title: "A defect 2", actual_result: "x", case_id: 2, milestone_id: 2 })).toEqual({ id: 2 });

    expect(await ok("POST", "/suite/NB", { title: "B suite 1" })).toEqual({ id: 1 });
    expect(await ok("POST", "/milestone/NB", { title: "B milestone 1" })).toEqual({ id: 1 });
    expect(await ok("POST", "/case/NB", { title: "B case 1", suite_id: 1, milestone_id: 1 })).toEqual({ id: 1 });
    expect(await ok("POST", "/plan/NB", { title: "B plan 1", cases: [1] })).toEqual({ id: 1 });
    expect(await ok("POST", "/run/NB", { title: "B run 1", plan_id: 1, milestone_id: 1 })).toEqual({ id: 1 });
    expect(await ok("POST", "/defect/NB", { title: "B defect 1", actual_result: "x", case_id: 1, milestone_id: 1 })).toEqual({ id: 1 });

    // Each GET names the entity of its own project, and its references are numbers of that project.
    expect(await ok("GET", "/suite/NB/1")).toMatchObject({ id: 1, title: "B suite 1", parent_id: null, cases_count: 1 });
    expect(await ok("GET", "/suite/NA/2")).toMatchObject({ id: 2, title: "A suite 2", parent_id: 1, cases_count: 1 });
    expect(await ok("GET", "/milestone/NB/1")).toMatchObject({ id: 1, title: "B milestone 1" });
    expect(await ok("GET", "/case/NB/1")).toMatchObject({ id: 1, title: "B case 1", suite_id: 1, milestone_id: 1 });
    expect(await ok("GET", "/case/NA/2")).toMatchObject({ id: 2, title: "A case 2", suite_id: 2, milestone_id: 2 });
    expect(await ok("GET", "/plan/NB/1")).toMatchObject({ id: 1, title: "B plan 1", cases: [{ case_id: 1, assignee_id: null }] });
    expect((await ok("GET", "/plan/NA/1")).cases.map((c: any) => c.case_id)).toEqual([2, 1]);
    expect(await ok("GET", "/run/NB/1")).toMatchObject({ id: 1, run_id: 1, title: "B run 1", plan_id: 1, milestone: { id: 1 }, milestone_id: 1, cases: [1] });
    expect(await ok("GET", "/run/NA/1")).toMatchObject({ id: 1, title: "A run 1", plan_id: 1, milestone: { id: 2 }, milestone_id: 2, cases: [2, 1] });
    expect(await ok("GET", "/defect/NB/1")).toMatchObject({ id: 1, title: "B defect 1", case_id: 1, milestone_id: 1 });
    expect(await ok("GET", "/defect/NA/2")).toMatchObject({ id: 2, title: "A defect 2", case_id: 2, milestone_id: 2 });
    // Lists show the same numbers.
    expect((await ok("GET", "/case/NB")).entities.map((c: any) => [c.id, c.suite_id])).toEqual([[1, 1]]);
    expect((await ok("GET", "/case/NA?suite_id=2")).entities.map((c: any) => c.title)).toEqual(["A case 2"]);
    expect((await ok("GET", "/case/NB?suite_id=2")).entities).toEqual([]); // NB has no suite 2
    expect((await ok("GET", "/run/NA")).entities.map((r: any) => [r.id, r.plan_id, r.cases])).toEqual([[1, 1, [2, 1]], [2, null, [2]]]);
  });

  test("a number of another project's entity is refused (400 naming the field, 404 in a path); nothing is linked", async () => {
    // NA has suite, milestone, case, plan, run and defect 2; NB has only 1s.
    const refused = async (method: string, path: string, body: unknown, field: string) => {
      const r = await api(method, path, body);
      expect([r.status, r.body.error?.field]).toEqual([400, field]);
      expect(r.body.status).toBe(false);
      return r.body.errorMessage as string;
    };
    expect(await refused("POST", "/case/NB", { title: "x", suite_id: 2 }, "suite_id")).toContain("Suite 2 does not exist in this project");
    await refused("POST", "/case/NB", { title: "x", milestone_id: 2 }, "milestone_id");
    await refused("PATCH", "/case/NB/1", { suite_id: 2 }, "suite_id");
    await refused("POST", "/case/NB/1/clone", { suite_id: 2 }, "suite_id");
    await refused("POST", "/case/NB/bulk", { cases: [{ title: "ok" }, { title: "x", suite_id: 2 }] }, "cases.1.suite_id");
    await refused("POST", "/suite/NB", { title: "x", parent_id: 2 }, "parent_id");
    await refused("PATCH", "/suite/NB/1", { parent_id: 2 }, "parent_id");
    await refused("POST", "/suite/NB/1/clone", { parent_id: 2 }, "parent_id");
    await refused("DELETE", "/suite/NB/1", { destination_id: 2 }, "destination_id");
    expect(await refused("POST", "/plan/NB", { title: "x", cases: [1, 2] }, "cases")).toContain("Test case 2 does not exist in this project");
    await refused("PATCH", "/plan/NB/1", { cases: [2] }, "cases");
    await refused("POST", "/run/NB", { title: "x", plan_id: 2 }, "plan_id");
    await refused("POST", "/run/NB", { title: "x", cases: [2] }, "cases");
    await refused("POST", "/run/NB", { title: "x", milestone_id: 2 }, "milestone_id");
    await refused("POST", "/run/NB/external-issue", { type: "jira-cloud", links: [{ run_id: 1, external_issue: "https://j.example/1" }, { run_id: 2, external_issue: "https://j.example/2" }] }, "links.1.run_id");
    await refused("POST", "/defect/NB", { title: "x", actual_result: "x", case_id: 2 }, "case_id");
    await refused("POST", "/defect/NB", { title: "x", actual_result: "x", case_id: 1, milestone_id: 2 }, "milestone_id");
    await refused("POST", "/result/NB/1", { case_id: 2, status: "passed" }, "case_id");
    await refused("POST", "/result/NB/1/bulk", { results: [{ case_id: 1, status: "passed" }, { case_id: 2, status: "passed" }] }, "results.1.case_id");
    for (const path of ["/case/NB/2", "/suite/NB/2", "/milestone/NB/2", "/plan/NB/2", "/run/NB/2", "/defect/NB/2"]) {
      const r = await api("GET", path);
      expect([path, r.status, r.body.status]).toEqual([path, 404, false]);
    }
    expect((await api("POST", "/run/NB/2/complete")).status).toBe(404);
    expect((await api("POST", "/api/v2/NB/run/2/results", { results: [{ title: "t", execution: { status: "passed" } }] })).status).toBe(404);
    // Nothing of the refused requests was written: NB still has one case, one suite, no results, no external issue.
    expect((await ok("GET", "/project/NB")).counts).toMatchObject({ cases: 1, suites: 1, milestones: 1, runs: { total: 1 }, defects: { total: 1 } });
    expect((await ok("GET", "/result/NB")).total).toBe(0);
    expect((await ok("GET", "/run/NB/1")).external_issue).toBeNull();
    expect((await ok("GET", "/suite/NB/1")).cases_count).toBe(1);
  });

  test("v2 results: testops_id names a case of the run's project", async () => {
    const a = await ok("POST", "/api/v2/NA/run/1/results", { results: [{ title: "whatever A", testops_id: 1, execution: { status: "failed" } }] });
    const b = await ok("POST", "/api/v2/NB/run/1/results", { results: [{ title: "whatever B", testops_id: 1, execution: { status: "passed" } }] });
    expect(a.results.map((r: any) => [r.case_id, r.unlinked_reason])).toEqual([[1, null]]);
    expect(b.results.map((r: any) => [r.case_id, r.unlinked_reason])).toEqual([[1, null]]);
    // NB's run 1 has NB's case 1 passed; NA's run 1 has NA's case 1 failed.
    expect((await ok("GET", "/run/NB/1")).stats).toMatchObject({ total: 1, passed: 1, failed: 0 });
    expect((await ok("GET", "/run/NA/1")).stats).toMatchObject({ total: 2, passed: 0, failed: 1 });
    const resultOf = async (code: string, hash: string) => ok("GET", `/result/${code}/${hash}`);
    expect(await resultOf("NB", b.results[0].hash)).toMatchObject({ run_id: 1, case_id: 1, status: "passed" });
    expect(await resultOf("NA", a.results[0].hash)).toMatchObject({ run_id: 1, case_id: 1, status: "failed" });
    expect((await api("GET", `/result/NA/${b.results[0].hash}`)).status).toBe(404);

    // testops_ids [1, 2] into NB: 1 is NB's case; 2 exists only in NA, so the result is not linked
    // to NA's case 2 — it is matched by its signature in NB (a new case there) and says why.
    const both = await ok("POST", "/api/v2/NB/run/1/results", { results: [{ title: "B by two ids", testops_ids: [1, 2], execution: { status: "passed" } }] });
    expect(both.stored).toBe(2);
    expect(both.results.map((x: any) => [x.index, x.case_id])).toEqual([[0, 1], [0, 2]]);
    const stored = (await ok("GET", "/result/NB?run=1&limit=100")).entities.filter((r: any) => r.hash !== b.results[0].hash);
    expect(stored.map((r: any) => r.case_id).sort()).toEqual([1, 2]); // 2: NB's own next number
    expect(stored.find((r: any) => r.case_id === 2).unlinked_reason).toContain("Test case 2 does not exist in this project");
    expect(await ok("GET", "/case/NB/2")).toMatchObject({ id: 2, title: "B by two ids" });
    expect((await ok("GET", "/case/NA/2")).title).toBe("A case 2");
    expect((await ok("GET", "/run/NB/1")).cases).toEqual([1, 2]);
    expect((await ok("GET", "/result/NB?run=1&limit=100")).entities.every((r: any) => r.run_id === 1)).toBe(true);
    expect((await ok("GET", "/result/NA?run=2")).filtered).toBe(0);
  });

  test("QQL compares and answers numbers within the project", async () => {
    const search = async (q: string) => (await ok("GET", `/search?query=${encodeURIComponent(q)}&limit=100`)).entities;
    expect((await search('entity = "case" and project = "NB" and id = 1')).map((c: any) => [c.id, c.title, c.suite_id])).toEqual([[1, "B case 1", 1]]);
    // Suite 2 is NA's only: its case is found, and no case of NB.
    expect((await search('entity = "case" and suite_id = 2')).map((c: any) => c.title)).toEqual(["A case 2"]);
    expect((await search('entity = "run" and plan_id = 1 order by id')).map((r: any) => [r.title, r.id, r.plan_id])).toEqual([["A run 1", 1, 1], ["B run 1", 1, 1]]);
    expect((await search('entity = "result" and project = "NB" and run_id = 1 and case_id = 2')).map((r: any) => [r.run_id, r.case_id])).toEqual([[1, 2]]);
    expect((await search('entity = "defect" and case_id = 2')).map((d: any) => [d.title, d.id, d.case_id])).toEqual([["A defect 2", 2, 2]]);
    expect((await search('entity = "plan" and project = "NA" and id in (2)')).map((p: any) => [p.title, p.cases])).toEqual([["A plan 2", [{ case_id: 2, assignee_id: null }]]]);
  });

  test("webhook payloads carry the ids the API shows, and gatehouse-project tells the projects apart", async () => {
    const published = (await first(t.ctx.db.select({ n: count() }).from(webhookEvents)))!.n;
    await until(() => receiver.received.length >= published, "every event delivered");
    const deliveries = receiver.received.map((r) => {
      expect(() => verifier.verify(r.body, r.headers)).not.toThrow();
      const e = JSON.parse(r.body) as { event: string; payload: any };
      return { project: r.headers["gatehouse-project"], event: e.event, payload: e.payload, workspace: r.headers["gatehouse-workspace"] };
    });
    // The envelope is the spec's; which project it is about is the header.
    expect(deliveries.every((d) => d.workspace === "1" && (d.project === "NA" || d.project === "NB"))).toBe(true);
    const one = (project: string, event: string, where: (p: any) => boolean = () => true) => {
      const found = deliveries.filter((d) => d.project === project && d.event === event && where(d.payload));
      expect(found).toHaveLength(1);
      return found[0]!.payload;
    };
    const bCase = await ok("GET", "/case/NB/1");
    expect(one("NB", "case.created", (p) => p.title === "B case 1")).toMatchObject({ id: bCase.id, suite_id: bCase.suite_id, milestone_id: bCase.milestone_id });
    expect(one("NA", "case.created", (p) => p.title === "A case 2")).toMatchObject({ id: 2, suite_id: 2, milestone_id: 2 });
    expect(one("NB", "case.created", (p) => p.title === "B by two ids")).toMatchObject({ id: 2, suite_id: null });
    expect(one("NA", "suite.created", (p) => p.title === "A suite 2")).toMatchObject({ id: 2, parent_id: 1 });
    expect(one("NB", "suite.created")).toMatchObject({ id: 1, parent_id: null });
    expect(one("NB", "milestone.created")).toMatchObject({ id: 1, title: "B milestone 1" });
    expect(one("NA", "plan.created", (p) => p.id === 1)).toMatchObject({ id: 1, cases: [2, 1] });
    expect(one("NB", "plan.created")).toMatchObject({ id: 1, cases: [1] });
    expect(one("NB", "run.started")).toMatchObject({ id: 1, plan_id: 1, cases_count: 1 });
    expect(one("NA", "run.started", (p) => p.id === 2)).toMatchObject({ id: 2, plan_id: null });
    expect(one("NB", "defect.created")).toMatchObject({ id: 1, case_id: 1 });
    expect(one("NA", "defect.created", (p) => p.id === 2)).toMatchObject({ id: 2, case_id: 2 });
  });
});

test("a case and a suite cloned get their project's next numbers; from_id names the original", async () => {
  const s = await ok("POST", "/suite/NC", { title: "C suite" });
  const c = await ok("POST", "/case/NC", { title: "C case", suite_id: s.id });
  const copy = await ok("POST", `/case/NC/${c.id}/clone`, {});
  expect([s.id, c.id, copy.id]).toEqual([1, 1, 2]);
  const suiteCopy = await ok("POST", `/suite/NC/${s.id}/clone`, {});
  expect(suiteCopy.id).toBe(2);
  expect((await ok("GET", "/case/NC?suite_id=2")).entities.map((x: any) => [x.id, x.suite_id])).toEqual([[3, 2], [4, 2]]);
  await until(() => receiver.received.some((r) => r.headers["gatehouse-project"] === "NC" && JSON.parse(r.body).event === "suite.cloned"), "suite.cloned");
  const cloned = receiver.received.filter((r) => r.headers["gatehouse-project"] === "NC").map((r) => JSON.parse(r.body)).filter((e) => e.event.endsWith(".cloned"));
  expect(cloned.map((e) => [e.event, e.payload])).toContainEqual(["case.cloned", { id: 2, from_id: 1 }]);
  expect(cloned.map((e) => [e.event, e.payload])).toContainEqual(["suite.cloned", { id: 2, from_id: 1 }]);
});

test("parallel creates in two projects never share or skip a number", async () => {
  await ok("POST", "/project", { title: "P1", code: "PA" });
  await ok("POST", "/project", { title: "P2", code: "PB" });
  const creates = Array.from({ length: 40 }, (_, i) => {
    const code = i % 2 ? "PB" : "PA";
    return i % 4 < 2 ? ok("POST", `/case/${code}`, { title: `${code} case ${i}` }) : ok("POST", `/milestone/${code}`, { title: `${code} milestone ${i}` });
  });
  const ids = (await Promise.all(creates)).map((r) => r.id as number);
  const of = (code: string, kind: number) => ids.filter((_, i) => (i % 2 ? "PB" : "PA") === code && (i % 4 < 2 ? 0 : 1) === kind).sort((a, b) => a - b);
  const oneToTen = Array.from({ length: 10 }, (_, i) => i + 1);
  for (const code of ["PA", "PB"]) for (const kind of [0, 1]) expect(of(code, kind)).toEqual(oneToTen);
  // and each number names the entity created under it
  const cases = (await ok("GET", "/case/PB?limit=100")).entities;
  expect(cases.map((c: any) => c.id)).toEqual(oneToTen);
  expect(cases.every((c: any) => c.title.startsWith("PB case"))).toBe(true);
});

test("numbers are never reused after a delete", async () => {
  await ok("POST", "/project", { title: "Deletes", code: "ND" });
  const make = {
    case: () => ok("POST", "/case/ND", { title: "c" }),
    suite: () => ok("POST", "/suite/ND", { title: "s" }),
    milestone: () => ok("POST", "/milestone/ND", { title: "m" }),
    plan: () => ok("POST", "/plan/ND", { title: "p", cases: [1] }),
    run: () => ok("POST", "/run/ND", { title: "r" }),
    defect: () => ok("POST", "/defect/ND", { title: "d", actual_result: "x", case_id: 1 }),
  };
  const path: Record<string, string> = { case: "case", suite: "suite", milestone: "milestone", plan: "plan", run: "run", defect: "defect" };
  for (const [kind, create] of Object.entries(make)) {
    expect((await create()).id).toBe(1);
    expect((await create()).id).toBe(2);
    // the highest number goes: the next entity still gets a new one, and the old number stays gone
    await ok("DELETE", `/${path[kind]}/ND/2`);
    expect([kind, (await create()).id]).toEqual([kind, 3]);
    expect([kind, (await api("GET", `/${path[kind]}/ND/2`)).status]).toEqual([kind, 404]);
  }
});
