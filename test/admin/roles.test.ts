import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { execute } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { adminRouteRoles } from "../../src/admin";
import { ROLE_KEY, routeRoleTable } from "../../src/admin/roles";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });
const as = (token: string) => (method: string, path: string, body?: unknown) =>
  t.request(method, path, { body, headers: { authorization: `Bearer ${token}` } });

async function tokenWith(role: "viewer" | "operator" | "owner", name = `${role} script`) {
  const r = await json(await t.admin("POST", "/api/admin/admin-tokens", { name, role, expiresInDays: 30 }));
  expect(r.status).toBe(201);
  return r.body.token as string;
}

describe("the route-role table", () => {
  test("every admin route of the app declares a role (a new route without one fails here)", () => {
    const routes = adminRouteRoles(t.app);
    expect(routes.length).toBeGreaterThan(30);
    const undeclared = routes.filter((r) => r.role === undefined).map((r) => `${r.method} ${r.path}`);
    expect(undeclared).toEqual([]);
  });

  test("the walk sees a route that declares no role (the test above can fail)", () => {
    const fake = { routes: [{ method: "GET", path: "/api/admin/new-thing", hooks: { detail: { summary: "forgot the role" } } }, { method: "GET", path: "/api/other", hooks: {} }] };
    expect(adminRouteRoles(fake)).toEqual([{ method: "GET", path: "/api/admin/new-thing", role: undefined }]);
  });

  test("the OpenAPI document publishes each admin operation's role", async () => {
    const doc = (await (await t.request("GET", "/openapi/json")).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    const ops = Object.entries(doc.paths).filter(([p]) => p.startsWith("/api/admin")).flatMap(([, item]) => Object.values(item));
    expect(ops.length).toBeGreaterThan(30);
    for (const op of ops) expect(["viewer", "operator", "owner"]).toContain(op[ROLE_KEY] as string);
  });

  test("matching: static segments beat parameters, unknown paths are null, undeclared means owner, encoded segments take the stricter", () => {
    const roleOf = routeRoleTable([
      { method: "GET", path: "/api/admin/webhooks/:id", role: "viewer" },
      { method: "GET", path: "/api/admin/webhooks/events", role: "operator" },
      { method: "POST", path: "/api/admin/webhooks/:id/test", role: "operator" },
      { method: "DELETE", path: "/api/admin/x/:id", role: undefined },
    ]);
    expect(roleOf("GET", "/api/admin/webhooks/7")).toBe("viewer");
    expect(roleOf("HEAD", "/api/admin/webhooks/7")).toBe("viewer");
    expect(roleOf("GET", "/api/admin/webhooks/events")).toBe("operator");
    expect(roleOf("GET", "/api/admin/webhooks/%65vents")).toBe("operator");
    expect(roleOf("POST", "/api/admin/webhooks/7/test")).toBe("operator");
    expect(roleOf("PUT", "/api/admin/webhooks/7")).toBeNull();
    expect(roleOf("GET", "/api/admin/nothing")).toBeNull();
    expect(roleOf("DELETE", "/api/admin/x/1")).toBe("owner");
  });
});

describe("roles through the admin API", () => {
  test("a viewer reads everything and changes nothing: 403 before the body is read", async () => {
    const viewer = as(await tokenWith("viewer"));
    for (const path of ["/api/admin/webhooks", "/api/admin/scim", "/api/admin/scim-tokens", "/api/admin/api-tokens", "/api/admin/workspaces", "/api/admin/instance", "/api/admin/directory/users", "/api/admin/provisioning-log"])
      expect((await viewer("GET", path)).status).toBe(200);
    let pulled = false;
    const stream = new ReadableStream({ pull() { pulled = true; } }, { highWaterMark: 0 });
    const r = await t.app.handle(new Request("http://localhost/api/admin/webhooks", { method: "POST", headers: { authorization: `Bearer ${(await tokenWith("viewer", "viewer 2"))}`, "content-type": "application/json" }, body: stream }));
    expect(r.status).toBe(403);
    expect(pulled).toBe(false);
    const body = (await r.json()) as any;
    expect(body.error).toMatchObject({ code: "forbidden" });
    expect(body.error.message).toContain("operator");
    expect((await viewer("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(403);
    expect((await viewer("GET", "/api/admin/admin-tokens")).status).toBe(403);
  });

  test("an operator runs webhooks and tokens, but not SCIM on/off, workspaces or admin tokens", async () => {
    const operator = as(await tokenWith("operator"));
    const sub = await json(await operator("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/op", events: ["*"] }));
    expect(sub.status).toBe(201);
    expect((await operator("PATCH", `/api/admin/webhooks/${sub.body.id}`, { enabled: false })).status).toBe(200);
    expect((await operator("POST", "/api/admin/scim-tokens", { name: "Okta (operator)" })).status).toBe(201);
    expect((await operator("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(403);
    expect((await operator("POST", "/api/admin/workspaces", { name: "Nope" })).status).toBe(403);
    expect((await operator("POST", "/api/admin/admin-tokens", { name: "escalate", role: "owner", expiresInDays: 1 })).status).toBe(403);
    expect((await json(await t.admin("GET", "/api/admin/scim"))).body.enabled).toBe(true);
  });

  test("an owner token does everything; unknown admin paths stay 404 for any role", async () => {
    const owner = as(await tokenWith("owner"));
    expect((await owner("PATCH", "/api/admin/scim", { enabled: true })).status).toBe(200);
    expect((await owner("GET", "/api/admin/admin-tokens")).status).toBe(200);
    expect((await as(await tokenWith("viewer", "viewer 3"))("GET", "/api/admin/no-such-thing")).status).toBe(404);
  });
});

describe("admin API tokens", () => {
  test("shown once, named uniquely among live tokens, listed without the secret, revoked at once", async () => {
    const c = await json(await t.admin("POST", "/api/admin/admin-tokens", { name: "Deploy bot", role: "operator", expiresInDays: 7 }));
    expect(c.status).toBe(201);
    expect(c.body.token).toMatch(/^gadm_[A-Za-z0-9_-]{43}$/);
    expect(c.body).toMatchObject({ name: "Deploy bot", role: "operator", state: "active", createdBy: "GATEHOUSE_ADMIN_TOKEN", revokedAt: null });
    expect(Date.parse(c.body.expiresAt) - Date.parse(c.body.createdAt)).toBe(7 * 86_400_000);
    const dup = await json(await t.admin("POST", "/api/admin/admin-tokens", { name: "deploy BOT", role: "viewer", expiresInDays: 7 }));
    expect(dup.status).toBe(409);
    const list = await json(await t.admin("GET", "/api/admin/admin-tokens"));
    expect(JSON.stringify(list.body)).not.toContain(c.body.token);
    expect(list.body.items.find((i: any) => i.id === c.body.id)).toMatchObject({ name: "Deploy bot", state: "active" });
    const bot = as(c.body.token);
    expect((await bot("GET", "/api/admin/webhooks")).status).toBe(200);
    const revoked = await json(await t.admin("DELETE", `/api/admin/admin-tokens/${c.body.id}`));
    expect(revoked.body.state).toBe("revoked");
    const after = await bot("GET", "/api/admin/webhooks");
    expect(after.status).toBe(401);
    expect(after.headers.get("www-authenticate")).toBe("Bearer");
    // the name is free again once the old token is revoked
    expect((await t.admin("POST", "/api/admin/admin-tokens", { name: "Deploy bot", role: "viewer", expiresInDays: 1 })).status).toBe(201);
    expect((await t.admin("DELETE", "/api/admin/admin-tokens/999999")).status).toBe(404);
  });

  test("an expired token is refused; bad input is a 400 naming the field", async () => {
    const c = await json(await t.admin("POST", "/api/admin/admin-tokens", { name: "short-lived", role: "viewer", expiresInDays: 1 }));
    await writeTransaction(t.ctx.db, (tx) => execute(tx, sql`UPDATE admin_tokens SET expires_at = ${Date.now() - 1} WHERE id = ${c.body.id}`));
    expect((await as(c.body.token)("GET", "/api/admin/instance")).status).toBe(401);
    expect((await json(await t.admin("GET", "/api/admin/admin-tokens"))).body.items.find((i: any) => i.id === c.body.id).state).toBe("expired");
    for (const [body, field] of [[{ name: "x", role: "root", expiresInDays: 1 }, "role"], [{ name: "x", role: "viewer", expiresInDays: 0 }, "expiresInDays"], [{ name: "", role: "viewer", expiresInDays: 1 }, "name"]] as const) {
      const r = await json(await t.admin("POST", "/api/admin/admin-tokens", body));
      expect(r.status).toBe(400);
      expect(JSON.stringify(r.body.error)).toContain(field);
    }
    expect((await as("gadm_not-a-real-token")("GET", "/api/admin/instance")).status).toBe(401);
  });
});

test("the live-name rule is held by the database too (a writer that skipped the check is refused)", async () => {
  const insert = () =>
    writeTransaction(t.ctx.db, (tx) =>
      execute(tx, sql`INSERT INTO admin_tokens (name, role, token_hash, created_by, created_at, expires_at) VALUES ('Twin', 'viewer', ${crypto.randomUUID()}, 'test', 0, 9000000000000000)`),
    );
  await insert();
  // The engine's own refusal (drizzle wraps it: the cause says which constraint).
  const refused = await insert().then(
    () => "inserted",
    (e: Error) => String((e.cause as Error | undefined)?.message ?? e.message),
  );
  expect(refused).toMatch(/UNIQUE|unique/);
});
