import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Validation", code: "VAL" });
});
afterAll(() => h.close());

const expectError = (r: { status: number; body: any }, status: number, field?: string) => {
  expect(r.status).toBe(status);
  expect(r.body.status).toBe(false);
  expect(typeof r.body.error.message).toBe("string");
  if (field) expect(r.body.error.field).toBe(field);
};

test("missing, unknown and revoked tokens → 401 JSON", async () => {
  for (const headers of [{}, { token: "nope" }, { authorization: `Bearer ${h.token}` }] as Record<string, string>[]) {
    const r = await h.t.request("GET", "/api/v1/project", { headers });
    expect(r.status).toBe(401);
    expect(r.headers.get("content-type")).toContain("application/json");
    expect(((await r.json()) as any).status).toBe(false);
  }
  const r = await h.t.request("POST", "/api/v2/VAL/run/1/results", { body: { results: [] } });
  expect(r.status).toBe(401);
});

test("bad bodies → 400 naming the field", async () => {
  expectError(await h.api("POST", "/project", { title: "x", code: "1bad" }), 400, "code");
  expectError(await h.api("POST", "/case/VAL", { description: "no title" }), 400, "title");
  expectError(await h.api("POST", "/case/VAL", { title: "t", severity: "enormous" }), 400, "severity");
  expectError(await h.api("POST", "/case/VAL", { title: "t", steps: [{ action: "ok" }, { expected_result: "no action" }] }), 400, "steps.1.action");
  expectError(await h.api("POST", "/case/VAL", { title: "t", steps: [{ shared: "deadbeef" }] }), 400, "steps.0.shared");
  expectError(await h.api("POST", "/case/VAL", { title: "t", suite_id: 999 }), 400, "suite_id");
  expectError(await h.api("POST", "/case/VAL", { title: "t", attachments: ["abc"] }), 400, "attachments.0");
  // A schema error inside an optional (`X | null`) field names the place in X, not the field.
  expectError(await h.api("POST", "/case/VAL", { title: "t", steps: [{ action: "ok" }, { action: 5 }] }), 400, "steps.1.action");
  expectError(await h.api("POST", "/case/VAL", { title: "t", tags: ["ok", "x".repeat(256)] }), 400, "tags.1");
  expectError(await h.api("POST", "/case/VAL", { title: "t", custom_field: { "999": "x" } }), 400, "custom_field.999");
  expectError(await h.api("POST", "/suite/VAL", { title: "s", parent_id: 12345 }), 400, "parent_id");
  expectError(await h.api("POST", "/plan/VAL", { title: "p" }), 400, "cases");
  expectError(await h.api("POST", "/plan/VAL", { title: "p", cases: [424242] }), 400, "cases");
  expectError(await h.api("POST", "/custom_field", { title: "f", entity: 0, type: 9 }), 400, "type");
  expectError(await h.api("POST", "/custom_field", { title: "f", entity: 0, type: "selectbox" }), 400, "value");
  expectError(await h.api("POST", "/custom_field", { title: "f", entity: 0, type: "number", value: [{ title: "x" }] }), 400, "value");
  expectError(await h.api("POST", "/milestone/VAL", { title: "m", status: "paused" }), 400, "status");
  expectError(await h.api("POST", "/defect/VAL", { title: "d", actual_result: "a", step: 1 }), 400, "step");
  expectError(await h.api("POST", "/run/VAL", { title: "" }), 400, "title");
  const run = (await h.api("POST", "/run/VAL", { title: "r" })).body.result.id;
  expectError(await h.api("POST", `/result/VAL/${run}`, { case_id: 1, status: "great" }), 400, "status");
  expectError(await h.api("PATCH", `/run/VAL/${run}/public`, { status: "yes" }), 400, "status");
});

test("malformed JSON → 400; unknown project or entity → 404; non-numeric id → 400", async () => {
  const r = await h.t.request("POST", "/api/v1/case/VAL", { rawBody: "{not json", headers: { token: h.token, "content-type": "application/json" } });
  expect(r.status).toBe(400);
  expectError(await h.api("GET", "/project/NOPE"), 404);
  expectError(await h.api("POST", "/case/NOPE", { title: "x" }), 404);
  for (const path of ["/case/VAL/999", "/suite/VAL/999", "/milestone/VAL/999", "/plan/VAL/999", "/run/VAL/999", "/defect/VAL/999", "/shared_step/VAL/abc", "/custom_field/999", "/result/VAL/abc"])
    expectError(await h.api("GET", path), 404);
  for (const [m, path] of [["PATCH", "/case/VAL/999"], ["DELETE", "/suite/VAL/999"], ["POST", "/run/VAL/999/complete"], ["PATCH", "/defect/VAL/resolve/999"], ["DELETE", "/custom_field/999"]] as const)
    expectError(await h.api(m, path, m === "PATCH" ? {} : undefined), 404);
  expectError(await h.api("GET", "/case/VAL/abc"), 400, "id");
});

test("entities of one project are not reachable through another", async () => {
  await h.api("POST", "/project", { title: "Other", code: "OTH" });
  const id = (await h.api("POST", "/case/OTH", { title: "theirs" })).body.result.id;
  expectError(await h.api("GET", `/case/VAL/${id}`), 404);
  expectError(await h.api("POST", "/plan/VAL", { title: "p", cases: [id] }), 400, "cases");
});

test("Qase clients' nulls and extra fields are accepted", async () => {
  const c = await h.api("POST", "/case/VAL", {
    title: "From a generated client", description: null, preconditions: null, suite_id: null, milestone_id: null, severity: null,
    steps: null, tags: null, params: null, parameters: null, custom_field: null, layer: 2, is_flaky: 0, isManual: true,
    created_at: "2020-01-01", somethingNew: { nested: true },
  });
  expect(c.status).toBe(200);
  const s = await h.api("POST", "/suite/VAL", { title: "s", description: null, preconditions: null, parent_id: null });
  expect(s.status).toBe(200);
  const p = await h.api("POST", "/plan/VAL", { title: "p", cases: [c.body.result.id], description: null });
  expect(p.status).toBe(200);
  const r = await h.api("POST", "/run/VAL", { title: "r", description: null, cases: null, plan_id: null, environment_id: null, environment_slug: null, milestone_id: null, tags: null, is_autotest: true, configurations: null });
  expect(r.status).toBe(200);
  const res = await h.api("POST", `/result/VAL/${r.body.result.id}`, {
    case_id: c.body.result.id, status: "passed", time: null, time_ms: 12, defect: null, attachments: null, stacktrace: null, comment: null, param: null, steps: null, author_id: null,
  });
  expect(res.status).toBe(200);
});

test("required case custom fields must be filled; selectbox values must be one of the options", async () => {
  const f = (await h.api("POST", "/custom_field", { title: "Team", entity: 0, type: 3, value: [{ title: "Red" }, { title: "Blue" }], is_required: true, projects_codes: ["VAL"], is_enabled_for_all_projects: false })).body.result.id;
  expectError(await h.api("POST", "/case/VAL", { title: "no team" }), 400, `custom_field.${f}`);
  expectError(await h.api("POST", "/case/VAL", { title: "bad team", custom_field: { [f]: "3" } }), 400, `custom_field.${f}`);
  const ok = await h.api("POST", "/case/VAL", { title: "team by title", custom_field: { [f]: "Blue" } });
  expect(ok.status).toBe(200);
  expect((await h.api("GET", `/case/VAL/${ok.body.result.id}`)).body.result.custom_fields).toEqual([{ id: f, value: "2" }]);
  // Another project does not have the field, so it is neither required nor accepted there.
  expect((await h.api("POST", "/case/OTH", { title: "fine" })).status).toBe(200);
  await h.api("DELETE", `/custom_field/${f}`);
});

test("lists use the Qase shape with limit/offset", async () => {
  for (let i = 0; i < 3; i++) await h.api("POST", "/milestone/VAL", { title: `m${i}` });
  const r = await h.api("GET", "/milestone/VAL?limit=2&offset=1");
  expect(r.body.status).toBe(true);
  expect(r.body.result).toMatchObject({ total: 3, filtered: 3, count: 2 });
  expect(r.body.result.entities.map((m: any) => m.title)).toEqual(["m1", "m2"]);
  expectError(await h.api("GET", "/milestone/VAL?limit=1000"), 400, "limit");
  const search = await h.api("GET", "/case/VAL?search=generated&limit=100");
  expect(search.body.result.filtered).toBe(1);
  const a = (await h.api("POST", "/case/VAL", { title: "filter-a", severity: 2, priority: 1, custom_field: {} })).body.result.id;
  const b = (await h.api("POST", "/case/VAL", { title: "filter-b", severity: "minor", automation: 2 })).body.result.id;
  const ids = async (q: string) => (await h.api("GET", `/case/VAL?limit=100&${q}`)).body.result.entities.map((c: any) => c.id).filter((id: number) => id === a || id === b);
  expect(await ids("severity=critical,minor")).toEqual([a, b]);
  expect(await ids("severity=2")).toEqual([a]);
  expect(await ids("priority=high")).toEqual([a]);
  expect(await ids("automation=automated")).toEqual([b]);
  expectError(await h.api("GET", "/case/VAL?severity=huge"), 400, "severity");
});

test("a suite cannot be moved under its own subtree", async () => {
  const a = (await h.api("POST", "/suite/VAL", { title: "a" })).body.result.id;
  const b = (await h.api("POST", "/suite/VAL", { title: "b", parent_id: a })).body.result.id;
  expectError(await h.api("PATCH", `/suite/VAL/${a}`, { parent_id: b }), 400, "parent_id");
  expectError(await h.api("PATCH", `/suite/VAL/${a}`, { parent_id: a }), 400, "parent_id");
});

test("a defect is resolved once; a second resolve is 409", async () => {
  const c = (await h.api("POST", "/case/VAL", { title: "dc", custom_field: {} })).body.result.id;
  const d = (await h.api("POST", "/defect/VAL", { title: "d", actual_result: "a", case_id: c })).body.result.id;
  expect((await h.api("PATCH", `/defect/VAL/resolve/${d}`)).status).toBe(200);
  expectError(await h.api("PATCH", `/defect/VAL/resolve/${d}`), 409);
});
