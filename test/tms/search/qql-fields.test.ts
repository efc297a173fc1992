import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "../harness";
import { eq } from "drizzle-orm";
import { writeTransaction } from "../../../src/db/transaction";
import { cases } from "../../../src/tms/cases/tables";

// QQL's date functions, Qase's field names (milestone, suite and plan by title, tags, author,
// isManual…) and custom fields, through the real HTTP surface.
let h: Harness;
let grace: string;
const s: Record<string, number> = {};
beforeAll(async () => {
  h = await tmsHarness();
  const ok = async (method: string, path: string, body?: unknown, token?: string) => {
    const r = token
      ? await h.t.request(method, `/api/v1${path}`, { body, headers: { token } }).then(async (x) => ({ status: x.status, body: (await x.json()) as any }))
      : await h.api(method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  await ok("POST", "/project", { title: "Fields", code: "QF" });
  const scim = ((await (await h.t.admin("POST", "/api/admin/scim-tokens", { name: "idp" })).json()) as any).token;
  const made = await h.t.request("POST", "/scim/v2/Users", {
    headers: { authorization: `Bearer ${scim}`, "content-type": "application/scim+json" },
    rawBody: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "grace@example.com", name: { givenName: "Grace", familyName: "Hopper" }, displayName: "Grace Hopper" }),
  });
  if (made.status !== 201) throw new Error(`SCIM user: ${made.status}`);
  s.grace = Number(((await made.json()) as any).id);
  grace = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "grace", userId: s.grace })).json()) as any).token;

  s.sprint = (await ok("POST", "/milestone/QF", { title: "Sprint 12" })).id;
  s.other = (await ok("POST", "/milestone/QF", { title: "Sprint 13" })).id;
  s.auth = (await ok("POST", "/suite/QF", { title: "Auth" })).id;
  s.ticket = (await ok("POST", "/custom_field", { title: "Ticket", entity: "case", type: "string" })).id;
  s.area = (await ok("POST", "/custom_field", { title: "Area", entity: "case", type: "selectbox", value: [{ title: "Web" }, { title: "API" }] })).id;
  s.points = (await ok("POST", "/custom_field", { title: "Points", entity: "case", type: "number" })).id;
  s.checked = (await ok("POST", "/custom_field", { title: "Reviewed", entity: "case", type: "checkbox" })).id;
  s.login = (await ok("POST", "/case/QF", {
    title: "Log in", suite_id: s.auth, milestone_id: s.sprint, tags: ["smoke", "Auth"], isManual: true,
    custom_field: { [s.ticket]: "JIRA-101", [s.area]: "Web", [s.points]: "5", [s.checked]: "true" },
  }, grace)).id;
  s.pay = (await ok("POST", "/case/QF", { title: "Pay", tags: ["payments"], isManual: false, custom_field: { [s.points]: "13", [s.checked]: "0" } })).id;
  s.old = (await ok("POST", "/case/QF", { title: "Legacy export", milestone_id: s.other })).id;
  // An old case, so the date functions have something to leave out.
  await writeTransaction(h.t.ctx.db, (tx) => tx.update(cases).set({ created: "2025-01-01T08:00:00.000000Z" }).where(eq(cases.title, "Legacy export")));
  s.plan = (await ok("POST", "/plan/QF", { title: "Release plan", cases: [s.login, s.pay] })).id;
  s.run = (await ok("POST", "/run/QF", { title: "Sprint run", milestone_id: s.sprint, plan_id: s.plan, tags: ["nightly"] }, grace)).id;
  await ok("POST", `/result/QF/${s.run}`, { case_id: s.login, status: "failed" }, grace);
  await ok("POST", `/run/QF/${s.run}/complete`);
  s.open = (await ok("POST", "/run/QF", { title: "Open run", cases: [s.pay] })).id;
  await ok("POST", "/defect/QF", { title: "Login broken", actual_result: "500", severity: "blocker", milestone_id: s.sprint, tags: ["auth"] });
});
afterAll(() => h.close());

const search = async (query: string) => h.api("GET", `/search?query=${encodeURIComponent(query)}&limit=100`);
const titles = async (query: string) => {
  const r = await search(query);
  if (r.status !== 200) throw new Error(`${query}: ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result.entities.map((e: any) => e.title ?? e.case_id).sort();
};
const refused = async (query: string) => {
  const r = await search(query);
  expect([r.status, r.body.error?.field]).toEqual([400, "query"]);
  return r.body.error.message as string;
};

test("the four examples of @qase/mcp-server's qql_search description answer", async () => {
  expect(await titles('entity = "case" and project = "QF" and status = "Actual"')).toEqual(["Legacy export", "Log in", "Pay"]);
  expect(await titles('entity = "defect" and severity = "blocker" and status = "open"')).toEqual(["Login broken"]);
  expect(await titles('entity = "result" and status = "failed" and ended >= now("-7d")')).toEqual([s.login]);
  expect(await titles('entity = "run" and milestone ~ "Sprint 12"')).toEqual(["Sprint run"]);
});

test("date functions compare with stored times; a day literal is its start", async () => {
  expect(await titles('entity = "case" and created >= startOfDay()')).toEqual(["Log in", "Pay"]);
  expect(await titles('entity = "case" and created < startOfMonth("-1m")')).toEqual(["Legacy export"]);
  expect(await titles('entity = "case" and created >= "2025-01-01" and created <= endOfDay("2025-01-01")')).toEqual(["Legacy export"]);
  expect(await titles('entity = "result" and ended < now("-7d")')).toEqual([]);
  expect(await titles('entity = "run" and ended is not empty and started <= now()')).toEqual(["Sprint run"]);
  expect(await titles('entity = "run" and isEnded = false and isStarted is true')).toEqual(["Open run"]);
  expect(await refused('entity = "case" and created > now("-3h")')).toContain('Qase takes no "h" offsets');
  expect(await refused('entity = "case" and title = now()')).toContain('now() is a date; "title" is not a date field');
  expect(await refused('entity = "case" and created > yesterday()')).toContain("Unknown function yesterday()");
  expect(await refused('entity = "case" and created > "last tuesday"')).toContain('"created" takes a date');
});

test("milestone, suite and plan by title; tags; isManual; author by name, e-mail, id and currentUser()", async () => {
  expect(await titles('entity = "case" and milestone = "sprint 12"')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and milestone is empty')).toEqual(["Pay"]);
  expect(await titles('entity = "case" and suite = "Auth"')).toEqual(["Log in"]);
  expect(await titles('entity = "run" and plan ~ "release"')).toEqual(["Sprint run"]);
  expect(await titles('entity = "defect" and milestone = "Sprint 12" and tags = "AUTH"')).toEqual(["Login broken"]);
  expect(await titles('entity = "result" and milestone = "Sprint 12"')).toEqual([s.login]);
  expect(await titles('entity = "case" and tags = "auth"')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and tags in ["payments", "smoke"]')).toEqual(["Log in", "Pay"]);
  expect(await titles('entity = "case" and tags !~ "pay"')).toEqual(["Legacy export", "Log in"]);
  expect(await titles('entity = "case" and tags is empty')).toEqual(["Legacy export"]);
  expect(await titles('entity = "case" and isManual = true')).toEqual(["Legacy export", "Log in"]);
  expect(await titles('entity = "case" and isManual is false')).toEqual(["Pay"]);
  expect(await titles('entity = "case" and author = "Grace Hopper"')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and author = "GRACE@example.com"')).toEqual(["Log in"]);
  expect(await titles(`entity = "case" and author = ${s.grace}`)).toEqual(["Log in"]);
  expect(await titles('entity = "run" and createdBy ~ "hopper"')).toEqual(["Sprint run"]);
  expect(await titles('entity = "case" and author != "Grace Hopper"')).toEqual(["Legacy export", "Pay"]);
  const mine = await h.t.request("GET", `/api/v1/search?query=${encodeURIComponent('entity = "case" and author = currentUser()')}`, { headers: { token: grace } });
  expect(((await mine.json()) as any).result.entities.map((c: any) => c.title)).toEqual(["Log in"]);
  // The harness's token belongs to no one.
  expect(await refused('entity = "case" and author = currentUser()')).toContain("belongs to none");
  expect(await refused('entity = "case" and tags > "a"')).toContain('"tags" is compared with =, !=, ~, !~ or in');
  expect(await refused('entity = "case" order by tags')).toContain("cannot be ordered");
});

test('custom fields by title: cf["…"] on text, selectbox (by option title), number and checkbox fields', async () => {
  expect(await titles('entity = "case" and cf["Ticket"] = "jira-101"')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and cf["ticket"] ~ "JIRA"')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and cf["Area"] = "web"')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and cf["Area"] in ["API", "Web"]')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and cf["Points"] > 8')).toEqual(["Pay"]);
  expect(await titles('entity = "case" and cf["Points"] >= 5 order by id')).toEqual(["Log in", "Pay"]);
  expect(await titles('entity = "case" and cf["Reviewed"] = true')).toEqual(["Log in"]);
  expect(await titles('entity = "case" and cf["Reviewed"] is false')).toEqual(["Pay"]);
  expect(await titles('entity = "case" and cf["Ticket"] is empty')).toEqual(["Legacy export", "Pay"]);
  expect(await titles('entity = "case" and cf["Ticket"] != "JIRA-101"')).toEqual(["Legacy export", "Pay"]);
  expect(await refused('entity = "case" and cf["Colour"] = "red"')).toContain('Unknown custom field "Colour"');
  expect(await refused('entity = "case" and cf["Area"] = "Mobile"')).toContain('takes one of its values ("Web", "API")');
  expect(await refused('entity = "case" and cf["Points"] = "many"')).toContain("takes a number");
  expect(await refused('entity = "case" and cf["Ticket"] > "a"')).toContain("only number fields");
  // A field is looked up among the searched entity's fields: "Ticket" is a case field.
  expect(await refused('entity = "run" and cf["Ticket"] = "x"')).toContain('Unknown custom field "Ticket": no run field');
  expect(await refused('entity = "plan" and cf["Ticket"] = "x"')).toContain("cases, runs and defects");
  expect(await refused('entity = "case" and cf[Ticket] = "x"')).toContain('cf["Title"]');
});

test("a deleted custom field is not searchable, and another workspace's fields are not seen", async () => {
  const gone = (await h.api("POST", "/custom_field", { title: "Gone soon", entity: "case", type: "string" })).body.result.id;
  await h.api("POST", "/case/QF", { title: "Tagged", custom_field: { [gone]: "x" } });
  expect(await titles('entity = "case" and cf["Gone soon"] = "x"')).toEqual(["Tagged"]);
  await h.api("DELETE", `/custom_field/${gone}`);
  expect(await refused('entity = "case" and cf["Gone soon"] = "x"')).toContain("Unknown custom field");

  const ws = ((await (await h.t.admin("POST", "/api/admin/workspaces", { name: "Elsewhere" })).json()) as any).id;
  const theirs = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "elsewhere", workspaceId: ws })).json()) as any).token;
  const call = async (method: string, path: string, body?: unknown) => (await (await h.t.request(method, `/api/v1${path}`, { body, headers: { token: theirs } })).json()) as any;
  await call("POST", "/custom_field", { title: "Secret field", entity: "case", type: "string" });
  expect(await refused('entity = "case" and cf["Secret field"] = "x"')).toContain("Unknown custom field");
  // Their token finds their field, and none of this workspace's cases.
  const q = encodeURIComponent('entity = "case" and cf["Secret field"] is empty');
  expect((await call("GET", `/search?query=${q}`)).result.total).toBe(0);
  expect((await call("GET", `/search?query=${encodeURIComponent('entity = "case" and cf["Ticket"] = "JIRA-101"')}`)).error.message).toContain("Unknown custom field");
});

test("runs and defects are searched by their own custom fields", async () => {
  const build = (await h.api("POST", "/custom_field", { title: "Build", entity: "run", type: "number" })).body.result.id;
  const found = (await h.api("POST", "/custom_field", { title: "Found in", entity: "defect", type: "string" })).body.result.id;
  await h.api("POST", "/run/QF", { title: "Build 7", custom_field: { [build]: "7" } });
  await h.api("POST", "/run/QF", { title: "Build 12", custom_field: { [build]: "12" } });
  await h.api("POST", "/defect/QF", { title: "Seen in beta", actual_result: "x", custom_field: { [found]: "Beta 2" } });
  expect(await titles('entity = "run" and cf["Build"] >= 10')).toEqual(["Build 12"]);
  expect(await titles('entity = "run" and cf["build"] is not empty')).toEqual(["Build 12", "Build 7"]);
  expect(await titles('entity = "defect" and cf["Found in"] ~ "beta"')).toEqual(["Seen in beta"]);
  expect(await refused('entity = "defect" and cf["Build"] = 7')).toContain('Unknown custom field "Build": no defect field');
});
