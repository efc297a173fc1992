import { afterAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../src/db/statement";
import { createTestApp } from "../helpers";
import { createProject } from "./harness";

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });

test("the admin API needs the admin bearer token, checked before the body", async () => {
  const r = await t.request("POST", "/api/admin/webhooks", { body: { nonsense: true } });
  expect(r.status).toBe(401);
  expect(r.headers.get("www-authenticate")).toBe("Bearer");
  expect((await t.request("GET", "/api/admin/webhooks", { headers: { authorization: "Bearer wrong" } })).status).toBe(401);
});

test("create → 201 with a whsec_ secret shown once; list and get never show it", async () => {
  await createProject(t, "DEMO");
  const c = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/in", events: ["case.created", "run.completed"], project: "DEMO", description: "CI bridge" }));
  expect(c.status).toBe(201);
  expect(c.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
  expect(Buffer.from(c.body.secret.slice(6), "base64").length).toBeGreaterThanOrEqual(24);
  expect(c.body).toMatchObject({ url: "https://hooks.example.com/in", events: ["case.created", "run.completed"], project: "DEMO", description: "CI bridge", enabled: true, disabledReason: null });
  const one = await json(await t.admin("GET", `/api/admin/webhooks/${c.body.id}`));
  expect(one.status).toBe(200);
  expect(one.body.secret).toBeUndefined();
  expect(one.body.id).toBe(c.body.id);
  const list = await json(await t.admin("GET", "/api/admin/webhooks"));
  expect(list.body.items.some((s: any) => s.id === c.body.id)).toBe(true);
  expect(JSON.stringify(list.body)).not.toContain("whsec_");
});

test.each([
  [{ url: "ftp://hooks.example.com/x", events: ["*"] }, "url"],
  [{ url: "https://user:pw@hooks.example.com/x", events: ["*"] }, "url"],
  [{ url: "http://127.0.0.1:8080/x", events: ["*"] }, "url"],
  [{ url: "http://169.254.169.254/latest/meta-data", events: ["*"] }, "url"],
  [{ url: "not a url", events: ["*"] }, "url"],
  [{ url: "https://hooks.example.com/x", events: ["case.exploded"] }, "events"],
  [{ url: "https://hooks.example.com/x", events: ["*", "case.created"] }, "events"],
  [{ url: "https://hooks.example.com/x", events: [] }, "events"],
  [{ url: "https://hooks.example.com/x" }, "events"],
])("bad input %j → 400 naming the field", async (body, field: string) => {
  const r = await json(await t.admin("POST", "/api/admin/webhooks", body));
  expect(r.status).toBe(400);
  expect(r.body.status).toBe(false);
  expect(JSON.stringify(r.body.error)).toContain(field);
});

test("a PATCH changes only what it names: a disabled subscription stays disabled when another field is edited", async () => {
  const c = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/p", events: ["*"], enabled: false, description: "before" }));
  expect(c.body.enabled).toBe(false);
  const p = await json(await t.admin("PATCH", `/api/admin/webhooks/${c.body.id}`, { description: "after" }));
  expect(p.status).toBe(200);
  expect(p.body).toMatchObject({ enabled: false, description: "after", url: "https://hooks.example.com/p", events: ["*"] });
  expect((await json(await t.admin("GET", `/api/admin/webhooks/${c.body.id}`))).body.enabled).toBe(false);
  // An empty PATCH changes nothing either.
  expect((await json(await t.admin("PATCH", `/api/admin/webhooks/${c.body.id}`, {}))).body).toMatchObject({ enabled: false, description: "after" });
});

test("patch, re-enable clears the disabled reason, delete → 204 then 404", async () => {
  const c = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/a", events: ["*"] }));
  const id = c.body.id;
  const p = await json(await t.admin("PATCH", `/api/admin/webhooks/${id}`, { events: ["suite.created"], enabled: false, project: null, description: "paused" }));
  expect(p.status).toBe(200);
  expect(p.body).toMatchObject({ events: ["suite.created"], enabled: false, description: "paused", project: null });
  expect((await t.admin("PATCH", `/api/admin/webhooks/${id}`, { url: "gopher://x" })).status).toBe(400);
  expect((await json(await t.admin("PATCH", `/api/admin/webhooks/${id}`, { enabled: true }))).body.enabled).toBe(true);
  expect((await t.admin("DELETE", `/api/admin/webhooks/${id}`)).status).toBe(204);
  expect((await t.admin("GET", `/api/admin/webhooks/${id}`)).status).toBe(404);
  expect((await t.admin("DELETE", `/api/admin/webhooks/${id}`)).status).toBe(404);
  expect((await t.admin("PATCH", `/api/admin/webhooks/${id}`, { enabled: true })).status).toBe(404);
  expect((await t.admin("GET", "/api/admin/webhooks/abc")).status).toBe(400);
});

test("rotate-secret returns a new secret and a 24 h overlap", async () => {
  const c = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/r", events: ["*"] }));
  const r = await json(await t.admin("POST", `/api/admin/webhooks/${c.body.id}/rotate-secret`));
  expect(r.status).toBe(200);
  expect(r.body.secret).toMatch(/^whsec_/);
  expect(r.body.secret).not.toBe(c.body.secret);
  const overlap = Date.parse(r.body.previousSecretExpiresAt) - Date.now();
  expect(overlap).toBeGreaterThan(23 * 3600e3);
  expect(overlap).toBeLessThanOrEqual(24 * 3600e3);
  expect((await json(await t.admin("GET", `/api/admin/webhooks/${c.body.id}`))).body.previousSecretExpiresAt).toBe(r.body.previousSecretExpiresAt);
  expect((await t.admin("POST", "/api/admin/webhooks/999999/rotate-secret")).status).toBe(404);
});

test("test endpoint: unknown event → 400, unknown subscription → 404, disabled → 409, ok → 202 with a pending delivery", async () => {
  const c = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/t", events: ["run.deleted"] }));
  const id = c.body.id;
  expect((await t.admin("POST", `/api/admin/webhooks/${id}/test`, { event: "nope" })).status).toBe(400);
  expect((await t.admin("POST", `/api/admin/webhooks/999999/test`, { event: "case.created" })).status).toBe(404);
  expect((await t.admin("POST", `/api/admin/webhooks/${id}/test`, { event: "case.created", count: 1001 })).status).toBe(400);
  const ok = await json(await t.admin("POST", `/api/admin/webhooks/${id}/test`, { event: "case.created", count: 3 }));
  expect(ok.status).toBe(202);
  expect(ok.body.deliveryIds.length).toBe(3);
  expect(new Set(ok.body.webhookIds).size).toBe(3);
  const d = await json(await t.admin("GET", `/api/admin/deliveries/${ok.body.deliveryIds[0]}`));
  expect(d.body).toMatchObject({ status: "pending", event: "case.created", subscriptionId: id, attemptCount: 0, attempts: [] });
  expect(d.body.payload.title).toBeString();
  const page = await json(await t.admin("GET", `/api/admin/webhooks/${id}/deliveries?status=pending&limit=2`));
  expect(page.body.total).toBe(3);
  expect(page.body.items.length).toBe(2);
  expect((await t.admin("GET", `/api/admin/webhooks/${id}/deliveries?status=weird`)).status).toBe(400);
  await t.admin("PATCH", `/api/admin/webhooks/${id}`, { enabled: false });
  expect((await t.admin("POST", `/api/admin/webhooks/${id}/test`, { event: "case.created" })).status).toBe(409);
});

test("delivery endpoints: 404 for unknown ids, recover validates since", async () => {
  expect((await t.admin("GET", "/api/admin/deliveries/999999")).status).toBe(404);
  expect((await t.admin("POST", "/api/admin/deliveries/999999/redeliver")).status).toBe(404);
  expect((await t.admin("POST", "/api/admin/webhooks/999999/recover", { since: "2026-01-01T00:00:00Z" })).status).toBe(404);
  expect((await t.admin("GET", "/api/admin/webhooks/999999/deliveries")).status).toBe(404);
  const c = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/v", events: ["*"] }));
  expect((await t.admin("POST", `/api/admin/webhooks/${c.body.id}/recover`, { since: "yesterday" })).status).toBe(400);
  const ok = await json(await t.admin("POST", `/api/admin/webhooks/${c.body.id}/recover`, { since: 0 }));
  expect(ok).toEqual({ status: 202, body: { requeued: 0 } });
});

test("the OpenAPI document lists the admin routes and every outbound event under `webhooks`", async () => {
  const r = await t.request("GET", "/openapi/json");
  if (r.status === 404) throw new Error("OpenAPI document route not found");
  const doc = (await r.json()) as any;
  expect(Object.keys(doc.webhooks ?? {}).length).toBe(29);
  expect(doc.webhooks["case.created"].post.requestBody.content["application/json"].schema.properties.payload.properties.steps).toBeDefined();
  expect(doc.paths["/api/admin/webhooks"]).toBeDefined();
  expect(doc.paths["/api/admin/deliveries/{id}/redeliver"]).toBeDefined();
});

test("once subscription ids would no longer fit in a delivery id, creating one is refused with 409 and nothing is written", async () => {
  const own = createTestApp();
  try {
    const first = await json(await own.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/a", events: ["*"] }));
    expect(first.status).toBe(201);
    // As if two million subscriptions had been created (and deleted) before.
    const last = 2 ** 21 - 1;
    if (own.ctx.sqlite) own.ctx.sqlite.run("UPDATE sqlite_sequence SET seq = ? WHERE name = 'webhook_subscriptions'", [last]);
    else await rowsOf(own.ctx.db, sql`SELECT setval(pg_get_serial_sequence('webhook_subscriptions', 'id'), ${last})`);
    const refused = await json(await own.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/b", events: ["*"] }));
    expect(refused.status).toBe(409);
    expect(refused.body.error.code).toBe("conflict");
    expect((await json(await own.admin("GET", "/api/admin/webhooks"))).body.total).toBe(1);
  } finally {
    own.close();
  }
});
