import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { isEnvelope, tmsHarness, type Harness } from "./harness";

/**
 * Every one of the 29 events of spec §6.2: an API call sequence that produces it, and the
 * envelope the subscriber receives.
 */
let h: Harness;
const ISO_MICRO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

beforeAll(async () => {
  h = await tmsHarness();
  expect((await h.api("POST", "/project", { title: "Events", code: "EV" })).status).toBe(200);
});
afterAll(() => h.close());

async function ok(method: string, path: string, body?: unknown) {
  const r = await h.api(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  expect(r.body.status).toBe(true);
  return r.body.result;
}

describe("custom_field.*", () => {
  test("custom_field.created (selectbox values in value), .updated, .deleted", async () => {
    const { id } = await ok("POST", "/custom_field", { title: "Component", entity: 0, type: 3, value: [{ title: "Auth" }, { title: "Billing" }], is_filterable: true, is_visible: true, is_required: false, default_value: null });
    const e = await h.expectEvent("custom_field.created", (p) => p.id === id);
    expect(isEnvelope(e)).toBe(true);
    expect(e.payload).toEqual({ id, title: "Component", isRequired: false, isFilterable: true, isVisible: true, default_value: "", value: { "1": "Auth", "2": "Billing" }, type: "selectbox" });

    const text = await ok("POST", "/custom_field", { title: "Notes", entity: "case", type: "text" });
    expect((await h.expectEvent("custom_field.created", (p) => p.id === text.id)).payload).toMatchObject({ type: "text", value: null });

    await ok("PATCH", `/custom_field/${id}`, { title: "Component area" });
    expect((await h.expectEvent("custom_field.updated")).payload).toEqual({ id });
    await ok("DELETE", `/custom_field/${text.id}`);
    expect((await h.expectEvent("custom_field.deleted")).payload).toEqual({ id: text.id });
  });
});

describe("milestone.*", () => {
  test("created, updated, deleted", async () => {
    const { id } = await ok("POST", "/milestone/EV", { title: "Release 1", description: "first" });
    expect((await h.expectEvent("milestone.created")).payload).toEqual({ id, title: "Release 1", description: "first" });
    await ok("PATCH", `/milestone/EV/${id}`, { status: "completed" });
    expect((await h.expectEvent("milestone.updated")).payload).toEqual({ id });
    await ok("DELETE", `/milestone/EV/${id}`);
    expect((await h.expectEvent("milestone.deleted")).payload).toEqual({ id });
  });
});

describe("shared_step.*", () => {
  test("created, updated, deleted (by hash)", async () => {
    const { hash } = await ok("POST", "/shared_step/EV", { title: "Log in", action: "Sign in as alice", expected_result: "Dashboard shown" });
    expect(hash).toMatch(/^[0-9a-f]{40}$/);
    expect((await h.expectEvent("shared_step.created")).payload).toEqual({ hash, title: "Log in", action: "Sign in as alice", expected_result: "Dashboard shown" });
    await ok("PATCH", `/shared_step/EV/${hash}`, { action: "Sign in as bob" });
    expect((await h.expectEvent("shared_step.updated")).payload).toEqual({ hash });
    await ok("DELETE", `/shared_step/EV/${hash}`);
    expect((await h.expectEvent("shared_step.deleted")).payload).toEqual({ hash });
  });
});

describe("suite.* and case.*", () => {
  test("suite.created with parent_id, suite.updated", async () => {
    const root = await ok("POST", "/suite/EV", { title: "Auth", description: "sign-in", preconditions: "db seeded" });
    expect((await h.expectEvent("suite.created")).payload).toEqual({ id: root.id, title: "Auth", description: "sign-in", preconditions: "db seeded", parent_id: null });
    const child = await ok("POST", "/suite/EV", { title: "Passwords", parent_id: root.id });
    expect((await h.expectEvent("suite.created")).payload).toEqual({ id: child.id, title: "Passwords", description: "", preconditions: "", parent_id: root.id });
    await ok("PATCH", `/suite/EV/${child.id}`, { title: "Password rules" });
    expect((await h.expectEvent("suite.updated")).payload).toEqual({ id: child.id });
  });

  test("case.created carries the full §6.3 payload", async () => {
    const suite = await ok("POST", "/suite/EV", { title: "Checkout" });
    const ms = await ok("POST", "/milestone/EV", { title: "M" });
    const field = await ok("POST", "/custom_field", { title: "Area", entity: 0, type: 1 });
    const { hash } = await ok("POST", "/shared_step/EV", { title: "Login", action: "Log in", expected_result: "Logged in" });
    await h.clear();
    const { id } = await ok("POST", "/case/EV", {
      title: "Pay with card", description: "d", preconditions: "p", postconditions: "q",
      severity: 3, priority: 1, type: 8, behavior: 3, suite_id: suite.id, milestone_id: ms.id, automation: 2,
      attachments: ["7", 8],
      steps: [{ shared: hash }, { action: "Pay", expected_result: "Paid", attachments: [9] }],
      custom_field: { [String(field.id)]: "payments" },
    });
    const e = await h.expectEvent("case.created");
    expect(isEnvelope(e)).toBe(true);
    expect(e.payload).toEqual({
      id, position: 1, title: "Pay with card", description: "d", preconditions: "p", postconditions: "q",
      severity: "major", priority: "high", type: "functional", behavior: "negative", suite_id: suite.id, milestone_id: ms.id,
      is_automated: true, is_deprecated: false, revision: 1,
      steps: [
        { position: 1, action: "Log in", expected_result: "Logged in", shared_hash: hash, attachments: [] },
        { position: 2, action: "Pay", expected_result: "Paid", shared_hash: null, attachments: [9] },
      ],
      attachments: [7, 8], custom_fields: [{ field_id: String(field.id), value: "payments" }],
      created: e.payload.created, updated: e.payload.updated,
    });
    expect(e.payload.created).toMatch(ISO_MICRO);
    expect(e.payload.updated).toBe(e.payload.created);

    // Enum names are accepted as well as Qase's numbers; defaults are the §6.3 values.
    const named = await ok("POST", "/case/EV", { title: "Named", severity: "blocker", priority: "low", type: "smoke", behavior: "destructive" });
    expect((await h.expectEvent("case.created", (p) => p.id === named.id)).payload).toMatchObject({ severity: "blocked", priority: "low", type: "smoke", behavior: "destructive" });
    const plain = await ok("POST", "/case/EV", { title: "Plain" });
    expect((await h.expectEvent("case.created", (p) => p.id === plain.id)).payload).toMatchObject({ severity: "normal", priority: "undefined", type: "other", behavior: "undefined", suite_id: null, milestone_id: null, steps: [], attachments: [], custom_fields: [] });
  });

  test("case.updated (id only) increments revision; case.cloned; case.deleted", async () => {
    const { id } = await ok("POST", "/case/EV", { title: "Refund" });
    await h.clear();
    await ok("PATCH", `/case/EV/${id}`, { title: "Refund to card" });
    expect((await h.expectEvent("case.updated")).payload).toEqual({ id });
    await ok("PATCH", `/case/EV/${id}`, { priority: 2 });
    await h.expectEvent("case.updated");
    const got = await ok("GET", `/case/EV/${id}`);
    expect(got.revision).toBe(3);
    expect(got.title).toBe("Refund to card");
    expect(got.updated >= got.created).toBe(true);

    const clone = await ok("POST", `/case/EV/${id}/clone`, { title: "Refund (copy)" });
    expect((await h.expectEvent("case.cloned")).payload).toEqual({ id: clone.id, from_id: id });
    const copy = await ok("GET", `/case/EV/${clone.id}`);
    expect(copy).toMatchObject({ title: "Refund (copy)", priority: 2, revision: 1 }); // 2 = medium

    await ok("DELETE", `/case/EV/${id}`);
    expect((await h.expectEvent("case.deleted")).payload).toEqual({ id });
    expect((await h.api("GET", `/case/EV/${id}`)).status).toBe(404);
  });

  test("suite.cloned copies the subtree's cases; suite.deleted", async () => {
    const root = await ok("POST", "/suite/EV", { title: "Orders" });
    const child = await ok("POST", "/suite/EV", { title: "Returns", parent_id: root.id });
    const c1 = await ok("POST", "/case/EV", { title: "Place order", suite_id: root.id });
    const c2 = await ok("POST", "/case/EV", { title: "Return item", suite_id: child.id });
    await h.clear();
    const clone = await ok("POST", `/suite/EV/${root.id}/clone`, {});
    expect((await h.expectEvent("suite.cloned", (p) => p.from_id === root.id)).payload).toEqual({ id: clone.id, from_id: root.id });
    const childClone = (await h.expectEvent("suite.cloned", (p) => p.from_id === child.id)).payload.id;
    const cc1 = (await h.expectEvent("case.cloned", (p) => p.from_id === c1.id)).payload.id;
    const cc2 = (await h.expectEvent("case.cloned", (p) => p.from_id === c2.id)).payload.id;
    expect((await ok("GET", `/case/EV/${cc1}`)).suite_id).toBe(clone.id);
    expect((await ok("GET", `/case/EV/${cc2}`)).suite_id).toBe(childClone);
    expect((await ok("GET", `/suite/EV/${childClone}`)).parent_id).toBe(clone.id);

    await ok("DELETE", `/suite/EV/${root.id}`);
    expect((await h.expectEvent("suite.deleted", (p) => p.id === root.id)).payload).toEqual({ id: root.id });
    await h.expectEvent("suite.deleted", (p) => p.id === child.id);
    // Without destination_id the subtree's cases go with it; the clone is untouched.
    await h.expectEvent("case.deleted", (p) => p.id === c1.id);
    await h.expectEvent("case.deleted", (p) => p.id === c2.id);
    expect((await h.api("GET", `/case/EV/${cc2}`)).status).toBe(200);
  });
});

describe("plan.*, run.*, defect.*", () => {
  let cases: number[] = [];
  test("plan.created, run.started from the plan with environment, plan.updated → run.updated", async () => {
    cases = [];
    for (const title of ["A", "B", "C", "D"]) cases.push((await ok("POST", "/case/EV", { title: `Plan case ${title}` })).id);
    await h.clear();
    const plan = await ok("POST", "/plan/EV", { title: "Smoke", description: "before deploy", cases: cases.slice(0, 2) });
    expect((await h.expectEvent("plan.created")).payload).toEqual({ id: plan.id, title: "Smoke", description: "before deploy", cases: cases.slice(0, 2) });

    const run = await ok("POST", "/run/EV", { title: "Nightly", plan_id: plan.id, environment_slug: "staging" });
    expect((await h.expectEvent("run.started")).payload).toEqual({ id: run.id, title: "Nightly", description: "", plan_id: plan.id, cases_count: 2, environment: "staging" });
    const done = await ok("POST", "/run/EV", { title: "Finished", plan_id: plan.id });
    await ok("POST", `/run/EV/${done.id}/complete`);
    await h.clear();

    await ok("PATCH", `/plan/EV/${plan.id}`, { cases: [...cases.slice(0, 2), cases[2], cases[3]] });
    expect((await h.expectEvent("plan.updated")).payload).toEqual({ id: plan.id, cases });
    expect((await h.expectEvent("run.updated")).payload).toEqual({ id: run.id, cases_added: 2 });
    // The completed run of the same plan does not change.
    expect((await h.inbox()).filter((e) => e.event === "run.updated")).toEqual([]);
    expect((await ok("GET", `/run/EV/${run.id}`)).cases).toEqual(cases);
    expect((await ok("GET", `/run/EV/${done.id}`)).cases).toEqual(cases.slice(0, 2));

    await ok("DELETE", `/plan/EV/${plan.id}`);
    expect((await h.expectEvent("plan.deleted")).payload).toEqual({ id: plan.id, cases });
  });

  test("run.started from a case list without plan or environment; report toggle; complete; delete", async () => {
    const run = await ok("POST", "/run/EV", { title: "Ad hoc", description: "by hand", cases: cases.slice(0, 3) });
    expect((await h.expectEvent("run.started")).payload).toEqual({ id: run.id, title: "Ad hoc", description: "by hand", plan_id: null, cases_count: 3, environment: null });

    await ok("PATCH", `/run/EV/${run.id}/public`, { status: true });
    expect((await h.expectEvent("run.report_changed")).payload).toEqual({ id: run.id, visible: true });
    await ok("PATCH", `/run/EV/${run.id}/public`, { status: false });
    expect((await h.expectEvent("run.report_changed")).payload).toEqual({ id: run.id, visible: false });

    await ok("POST", `/result/EV/${run.id}`, { case_id: cases[0], status: "passed" });
    await ok("POST", `/result/EV/${run.id}`, { case_id: cases[1], status: "failed" });
    await ok("POST", `/result/EV/${run.id}`, { case_id: cases[2], status: "blocked" });
    await ok("POST", `/run/EV/${run.id}/complete`);
    const e = await h.expectEvent("run.completed");
    expect(isEnvelope(e)).toBe(true);
    expect(e.payload).toEqual({ id: run.id, cases: 3, passed: 1, failed: 1, blocked: 1, duration: e.payload.duration });
    expect(Number.isInteger(e.payload.duration) && e.payload.duration >= 0).toBe(true);

    await ok("DELETE", `/run/EV/${run.id}`);
    expect((await h.expectEvent("run.deleted")).payload).toEqual({ id: run.id });
    expect((await h.api("GET", `/run/EV/${run.id}`)).status).toBe(404);
  });

  test("run.aborted carries untested", async () => {
    const run = await ok("POST", "/run/EV", { title: "To abort", cases });
    await ok("POST", `/result/EV/${run.id}`, { case_id: cases[0], status: "passed" });
    await ok("POST", `/run/EV/${run.id}/abort`);
    expect((await h.expectEvent("run.aborted")).payload).toMatchObject({ id: run.id, cases: 4, passed: 1, failed: 0, untested: 3, blocked: 0 });
  });

  test("defect.created from a failed result and directly; defect.resolved; defect.deleted", async () => {
    const c = await ok("POST", "/case/EV", { title: "With steps", steps: [{ action: "one" }, { action: "two" }, { action: "three" }] });
    const run = await ok("POST", "/run/EV", { title: "Defects", cases: [c.id] });
    await h.clear();
    const r = await ok("POST", `/result/EV/${run.id}`, {
      case_id: c.id, status: "failed", comment: "Button does nothing", defect: true, attachments: [44],
      steps: [{ position: 1, status: "passed" }, { position: 2, status: "failed" }, { position: 3, status: "skipped" }],
    });
    const fromResult = await h.expectEvent("defect.created");
    expect(fromResult.payload).toEqual({ id: fromResult.payload.id, title: "With steps: failed", case_id: c.id, step: 2, actual_result: "Button does nothing", attachments: [44] });

    const direct = await ok("POST", "/defect/EV", { title: "Crash on save", actual_result: "500 page", severity: 2, case_id: c.id, step: 3, attachments: [5, 6] });
    expect((await h.expectEvent("defect.created")).payload).toEqual({ id: direct.id, title: "Crash on save", case_id: c.id, step: 3, actual_result: "500 page", attachments: [5, 6] });

    const byHash = await ok("POST", "/defect/EV", { title: "Filed later", actual_result: "still broken", result_hash: r.hash });
    expect((await h.expectEvent("defect.created")).payload).toMatchObject({ id: byHash.id, case_id: c.id, step: 2 });

    await ok("PATCH", `/defect/EV/resolve/${direct.id}`);
    expect((await h.expectEvent("defect.resolved")).payload).toEqual({ id: direct.id });
    await ok("DELETE", `/defect/EV/${direct.id}`);
    expect((await h.expectEvent("defect.deleted")).payload).toEqual({ id: direct.id });
  });
});

test("the sequences above received every event of the catalog", async () => {
  const { EVENT_NAMES } = await import("../../src/webhooks/catalog");
  expect(EVENT_NAMES.length).toBe(29);
  expect(EVENT_NAMES.filter((n) => !h.observed.has(n))).toEqual([]);
});
