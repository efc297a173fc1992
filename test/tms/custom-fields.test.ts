import { afterAll, expect, test } from "bun:test";
import { AxiosError } from "axios";
import { Configuration, CustomFieldsApi } from "qase-api-client";
import { count, eq } from "drizzle-orm";
import { qaseClientHarness } from "./harness";
import { startReceiver } from "../webhooks/harness";
import { webhookDeliveries } from "../../src/webhooks/tables";
import { first } from "../../src/db/transaction";

/**
 * Custom fields belong to a workspace (docs/tms.md "Custom fields"): two workspaces' tokens
 * through app.handle (the contract checker validates every answer), the official
 * `CustomFieldsApi` over HTTP, and webhook deliveries to real local receivers.
 */
const { h, v1, origin, close } = await qaseClientHarness();
afterAll(close);
const json = async (r: Response) => (await r.json()) as any;
const ws = (await json(await h.t.admin("POST", "/api/admin/workspaces", { name: "Beta" }))).id as number;
const otherToken = (await json(await h.t.admin("POST", "/api/admin/api-tokens", { name: "beta", workspaceId: ws }))).token as string;

/** The default workspace's token (`h.api`) and the other workspace's (`as`). */
const as = async (method: string, path: string, body?: unknown) => {
  const r = await h.t.request(method, `/api/v1${path}`, { body, headers: { token: otherToken } });
  return { status: r.status, body: await json(r) };
};
const okWith = (call: typeof as) => async (method: string, path: string, body?: unknown) => {
  const r = await call(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};
const ok = okWith(h.api);
const okAs = okWith(as);

await ok("POST", "/project", { title: "Alpha", code: "CA" });
await okAs("POST", "/project", { title: "Beta", code: "CB" });

test("a token lists, reads, changes and deletes its own workspace's custom fields only; another workspace's id is a 404 like a missing one", async () => {
  const mine = (await ok("POST", "/custom_field", { title: "Mine", entity: "case", type: "string", is_enabled_for_all_projects: false, projects_codes: ["ca"] })).id;
  const theirs = (await okAs("POST", "/custom_field", { title: "Theirs", entity: 0, type: 0 })).id;
  expect(await ok("GET", `/custom_field/${mine}`)).toMatchObject({ title: "Mine", projects_codes: ["CA"], is_enabled_for_all_projects: false });
  expect(await okAs("GET", `/custom_field/${theirs}`)).toMatchObject({ title: "Theirs", type: "number", projects_codes: [] });

  expect((await ok("GET", "/custom_field?limit=100")).entities.map((f: any) => f.id)).toEqual([mine]);
  expect(await okAs("GET", "/custom_field?limit=100")).toMatchObject({ total: 1, filtered: 1, count: 1, entities: [{ id: theirs, title: "Theirs" }] });

  // Another workspace's field answers exactly as a field that does not exist (the id aside).
  const missing = 9_999_999;
  const same = (body: any, id: number) => JSON.stringify(body).replaceAll(String(id), "<id>");
  for (const [method, body] of [["GET"], ["PATCH", { title: "Taken over" }], ["DELETE"]] as const) {
    const cross = await as(method, `/custom_field/${mine}`, body);
    const none = await as(method, `/custom_field/${missing}`, body);
    expect(`${method} ${cross.status} ${cross.body.error?.code}`).toBe(`${method} 404 not_found`);
    expect(same(cross.body, mine)).toBe(same(none.body, missing));
    const back = await h.api(method, `/custom_field/${theirs}`, body);
    expect(`${method} ${back.status}`).toBe(`${method} 404`);
  }
  // Nothing the refused calls named changed.
  expect(await ok("GET", `/custom_field/${mine}`)).toMatchObject({ title: "Mine" });
  expect(await okAs("GET", `/custom_field/${theirs}`)).toMatchObject({ title: "Theirs" });

  expect(await okAs("PATCH", `/custom_field/${theirs}`, { title: "Theirs renamed" })).toEqual({ id: theirs });
  expect(await okAs("GET", `/custom_field/${theirs}`)).toMatchObject({ title: "Theirs renamed" });
  expect(await ok("DELETE", `/custom_field/${mine}`)).toEqual({ id: mine });
  expect(await okAs("DELETE", `/custom_field/${theirs}`)).toEqual({ id: theirs });
  expect((await as("GET", `/custom_field/${theirs}`)).status).toBe(404);
});

test("projects_codes name projects of the field's workspace only: another workspace's project is a 400 naming the field, and nothing is written", async () => {
  const total = async (call: typeof as) => (await okWith(call)("GET", "/custom_field")).total;
  const [mineBefore, theirsBefore] = [await total(h.api), await total(as)];
  for (const codes of [["CA"], ["cb", "ca"], ["NOPE"]]) {
    const r = await as("POST", "/custom_field", { title: "Reach", entity: "case", type: "text", is_enabled_for_all_projects: false, projects_codes: codes });
    expect([r.status, r.body.error?.field]).toEqual([400, "projects_codes"]);
  }
  const refused = await h.api("POST", "/custom_field", { title: "Reach", entity: "case", type: "text", projects_codes: ["CB"] });
  expect([refused.status, refused.body.error.field, refused.body.error.message]).toEqual([400, "projects_codes", 'Unknown project code "CB" in this workspace']);
  expect([await total(h.api), await total(as)]).toEqual([mineBefore, theirsBefore]);

  const theirs = (await okAs("POST", "/custom_field", { title: "Reach", entity: "case", type: "text", is_enabled_for_all_projects: false, projects_codes: ["cb", "CB"] })).id;
  expect((await okAs("GET", `/custom_field/${theirs}`)).projects_codes).toEqual(["CB"]);
  const patched = await as("PATCH", `/custom_field/${theirs}`, { title: "Reach far", projects_codes: ["CB", "CA"] });
  expect([patched.status, patched.body.error?.field]).toEqual([400, "projects_codes"]);
  expect(await okAs("GET", `/custom_field/${theirs}`)).toMatchObject({ title: "Reach", projects_codes: ["CB"] });
  await okAs("DELETE", `/custom_field/${theirs}`);
});

test("a case is checked against its project's workspace's fields only (single create, update and bulk)", async () => {
  // Required in the default workspace, for all its projects: not for the other workspace's.
  const required = (await ok("POST", "/custom_field", { title: "Ticket", entity: "case", type: "string", is_required: true })).id;
  const amount = (await okAs("POST", "/custom_field", { title: "Amount", entity: "case", type: "number" })).id;
  try {
    const r = await h.api("POST", "/case/CA", { title: "needs its ticket" });
    expect([r.status, r.body.error.field]).toEqual([400, `custom_field.${required}`]);
    const inB = (await okAs("POST", "/case/CB", { title: "no ticket here", custom_field: { [amount]: "5" } })).id;
    expect((await okAs("GET", `/case/CB/${inB}`)).custom_fields).toEqual([{ id: amount, value: "5" }]);

    // The other workspace's field does not exist for a project here, and the other way round.
    const foreign = await h.api("POST", "/case/CA", { title: "x", custom_field: { [required]: "T-1", [amount]: "5" } });
    expect([foreign.status, foreign.body.error.field]).toEqual([400, `custom_field.${amount}`]);
    const back = await as("PATCH", `/case/CB/${inB}`, { custom_field: { [required]: "T-1" } });
    expect([back.status, back.body.error.field]).toEqual([400, `custom_field.${required}`]);
    const bulkForeign = await as("POST", "/case/CB/bulk", { cases: [{ title: "ok", custom_field: { [amount]: "1" } }, { title: "bad", custom_field: { [required]: "T-2" } }] });
    expect([bulkForeign.status, bulkForeign.body.error.field]).toEqual([400, `cases.1.custom_field.${required}`]);
    expect((await okAs("GET", "/case/CB")).total).toBe(1); // the refused bulk wrote nothing

    const bulk = await okAs("POST", "/case/CB/bulk", { cases: [{ title: "one", custom_field: { [amount]: "1" } }, { title: "two" }] });
    expect(bulk.ids).toHaveLength(2);
    const inA = (await ok("POST", "/case/CA/bulk", { cases: [{ title: "with ticket", custom_field: { [required]: "T-3" } }] })).ids[0];
    expect((await ok("GET", `/case/CA/${inA}`)).custom_fields).toEqual([{ id: required, value: "T-3" }]);
  } finally {
    await ok("DELETE", `/custom_field/${required}`);
    await okAs("DELETE", `/custom_field/${amount}`);
  }
});

test("custom_field.* events carry the field's workspace: workspace-limited subscriptions get their own, project-limited ones none", async () => {
  const receivers = { beta: startReceiver(), main: startReceiver(), project: startReceiver() };
  try {
    const subscribe = async (url: string, filter: object) => {
      const r = await h.t.admin("POST", "/api/admin/webhooks", { url, events: ["*"], ...filter });
      expect(r.status).toBe(201);
      return (await json(r)).id as number;
    };
    await subscribe(receivers.beta.url, { workspace: ws });
    await subscribe(receivers.main.url, { workspace: 1 });
    const projectSub = await subscribe(receivers.project.url, { project: "CB" });

    const theirs = (await okAs("POST", "/custom_field", { title: "Beta field", entity: "case", type: "text" })).id;
    await okAs("PATCH", `/custom_field/${theirs}`, { title: "Beta field renamed" });
    await okAs("DELETE", `/custom_field/${theirs}`);
    const mine = (await ok("POST", "/custom_field", { title: "Main field", entity: "case", type: "text" })).id;
    await ok("DELETE", `/custom_field/${mine}`);
    // A project event, so the project-limited subscription demonstrably receives what is its own.
    const caseId = (await okAs("POST", "/case/CB", { title: "for the project subscription" })).id;
    await h.settle();

    await receivers.beta.waitFor(4);
    await receivers.main.waitFor(2);
    await receivers.project.waitFor(1);
    const seen = (r: typeof receivers.beta) => r.received.map((x) => {
      const e = JSON.parse(x.body);
      return [e.event, e.payload.id, x.headers["gatehouse-workspace"], x.headers["gatehouse-project"] ?? null];
    });
    expect(seen(receivers.beta)).toEqual([
      ["custom_field.created", theirs, String(ws), null],
      ["custom_field.updated", theirs, String(ws), null],
      ["custom_field.deleted", theirs, String(ws), null],
      ["case.created", caseId, String(ws), "CB"],
    ]);
    expect(seen(receivers.main)).toEqual([["custom_field.created", mine, "1", null], ["custom_field.deleted", mine, "1", null]]);
    expect(seen(receivers.project).map((e) => e[0])).toEqual(["case.created"]);
    // Not merely late: no delivery of a custom field event was ever queued for the project-limited subscription.
    expect((await first(h.t.ctx.db.select({ n: count() }).from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, projectSub))))!.n).toBe(1);
  } finally {
    for (const r of Object.values(receivers)) r.stop();
  }
});

test("the official qase-api-client CustomFieldsApi works, and a token of another workspace cannot reach the fields", async () => {
  const api = new CustomFieldsApi(v1);
  const id = (await api.createCustomField({ title: "Component", entity: 0, type: 3, value: [{ id: 1, title: "Web" }, { id: 2, title: "API" }], is_enabled_for_all_projects: false, projects_codes: ["CA"] })).data.result!.id!;
  const got = (await api.getCustomField(id)).data.result!;
  expect(got).toMatchObject({ id, title: "Component", type: "selectbox", projects_codes: ["CA"], is_enabled_for_all_projects: false });
  expect(JSON.parse(got.value!)).toEqual([{ id: 1, title: "Web" }, { id: 2, title: "API" }]);
  expect((await api.getCustomFields(undefined, undefined, 100, 0)).data.result!.entities!.map((f) => f.id)).toContain(id);
  expect((await api.updateCustomField(id, { title: "Area", replace_values: { Web: "Browser" } })).data.status).toBe(true);
  expect(JSON.parse((await api.getCustomField(id)).data.result!.value!)).toEqual([{ id: 1, title: "Browser" }, { id: 2, title: "API" }]);

  const other = new CustomFieldsApi(new Configuration({ apiKey: otherToken, basePath: `${origin}/api/v1` }));
  expect((await other.getCustomFields()).data.result!.entities!.map((f) => f.id)).not.toContain(id);
  for (const call of [() => other.getCustomField(id), () => other.updateCustomField(id, { title: "x" }), () => other.deleteCustomField(id)]) {
    expect(await call().then((r) => r.status, (e: AxiosError) => e.response?.status)).toBe(404);
  }
  expect((await api.deleteCustomField(id)).data.status).toBe(true);
});

test("a deleted field's values are kept on the case but no longer shown (GET and lists)", async () => {
  await h.api("POST", "/project", { title: "Gone fields", code: "GF" });
  const keep = (await h.api("POST", "/custom_field", { title: "Keep", entity: "case", type: "string" })).body.result.id;
  const drop = (await h.api("POST", "/custom_field", { title: "Drop", entity: "case", type: "string" })).body.result.id;
  const id = (await h.api("POST", "/case/GF", { title: "x", custom_field: { [keep]: "a", [drop]: "b" } })).body.result.id;
  expect((await h.api("GET", `/case/GF/${id}`)).body.result.custom_fields).toEqual([{ id: keep, value: "a" }, { id: drop, value: "b" }]);
  expect((await h.api("DELETE", `/custom_field/${drop}`)).status).toBe(200);
  expect((await h.api("GET", `/case/GF/${id}`)).body.result.custom_fields).toEqual([{ id: keep, value: "a" }]);
  expect((await h.api("GET", "/case/GF")).body.result.entities[0].custom_fields).toEqual([{ id: keep, value: "a" }]);
});
