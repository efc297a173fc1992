import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql, type SQL } from "drizzle-orm";
import { execute, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { roleFromGroups } from "../../src/admin/signin/roles-from-groups";
import { createTestApp } from "../helpers";
import { CLIENT_ID, CLIENT_SECRET, GROUP_CONFIG, signIn, startOp } from "./op";

const BASE = "https://gatehouse.test";
let op: Awaited<ReturnType<typeof startOp>>;
let t: ReturnType<typeof createTestApp>;

beforeAll(async () => {
  op = await startOp(BASE);
  t = createTestApp({ baseUrl: BASE, oidcIssuer: op.issuer, oidcClientId: CLIENT_ID, oidcClientSecret: CLIENT_SECRET, oidcScopes: "openid email profile groups", ...GROUP_CONFIG, adminTokenWithOidc: true });
});
afterAll(async () => {
  t?.close();
  await op?.close();
});

const handle = (r: Request) => t.app.handle(r);
const COOKIE = "__Host-gatehouse_session";
/** An admin API call with the browser's cookie (and its CSRF token when given). */
const withSession = (jar: { header(): string }, csrf?: string) => (method: string, path: string, body?: unknown) =>
  t.request(method, path, { body, headers: { cookie: jar.header(), ...(csrf ? { "x-csrf-token": csrf } : {}) } });
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });

describe("sign-in through the IdP", () => {
  test("an owner signs in: an opaque HttpOnly, Secure, SameSite=Lax cookie; /me names the person; the sign-in is audited", async () => {
    const { jar, callback } = await signIn(handle, BASE, "olive.owner");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/console");
    const set = callback.headers.getSetCookie().find((c) => c.startsWith(COOKIE + "="))!;
    expect(set).toContain("HttpOnly");
    expect(set).toContain("Secure");
    expect(set).toContain("SameSite=Lax");
    expect(set).toContain("Path=/");
    expect(jar.get(COOKIE)).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // the database holds only its hash
    expect(JSON.stringify(await rowsOf(t.ctx.db, sql`SELECT * FROM admin_sessions`))).not.toContain(jar.get(COOKIE)!);
    const me = await json(await withSession(jar)("GET", "/api/admin/me"));
    expect(me.body).toMatchObject({ kind: "person", name: "olive.owner@example.com", role: "owner" });
    expect(me.body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const entry = (await json(await t.admin("GET", "/api/admin/audit-log?action=session.sign_in&outcome=success"))).body.items[0];
    expect(entry).toMatchObject({ actor: { kind: "person", name: "olive.owner@example.com", role: "owner" }, outcome: "success" });
  }, 30_000);

  test("each group gives its role; what a role may do is enforced for people too", async () => {
    const operator = await signIn(handle, BASE, "oscar.operator");
    const opMe = (await json(await withSession(operator.jar)("GET", "/api/admin/me"))).body;
    expect(opMe.role).toBe("operator");
    const asOperator = withSession(operator.jar, opMe.csrfToken);
    expect((await asOperator("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/person", events: ["*"] })).status).toBe(201);
    expect((await asOperator("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(403);
    const viewer = await signIn(handle, BASE, "vera.viewer");
    const vMe = (await json(await withSession(viewer.jar)("GET", "/api/admin/me"))).body;
    expect(vMe.role).toBe("viewer");
    expect((await withSession(viewer.jar)("GET", "/api/admin/webhooks")).status).toBe(200);
    expect((await withSession(viewer.jar, vMe.csrfToken)("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/v", events: ["*"] })).status).toBe(403);
    // The operator's action is in the log under their name.
    const created = (await json(await t.admin("GET", "/api/admin/audit-log?action=webhook.create&actor=oscar.operator@example.com"))).body.items[0];
    expect(created.actor).toEqual({ kind: "person", name: "oscar.operator@example.com", role: "operator" });
  }, 30_000);

  test("someone outside the admin groups gets the 'not an admin' page, no session, and a denied entry", async () => {
    const { jar, callback } = await signIn(handle, BASE, "nina.nobody");
    expect(callback.status).toBe(303);
    expect(callback.headers.get("location")).toBe("/auth/not-admin");
    expect(jar.get(COOKIE)).toBeUndefined();
    const page = await t.request("GET", "/auth/not-admin");
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("You are not a Gatehouse admin");
    const entry = (await json(await t.admin("GET", "/api/admin/audit-log?action=session.sign_in&outcome=denied"))).body.items[0];
    expect(entry).toMatchObject({ actor: { kind: "person", name: "nina.nobody@example.com", role: null }, detail: "not in an admin group" });
  }, 30_000);

  test("a callback this browser did not start (login CSRF) or a replayed one is refused", async () => {
    const started = await t.request("GET", "/auth/login");
    const state = new URL(started.headers.get("location")!).searchParams.get("state")!;
    // no login cookie: another browser's callback
    const forged = await t.request("GET", `/auth/callback?code=stolen&state=${state}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain("Sign-in failed");
    expect(forged.headers.getSetCookie().some((c) => c.startsWith(COOKIE + "=") && !c.includes("Max-Age=0"))).toBe(false);
    const failed = (await json(await t.admin("GET", "/api/admin/audit-log?action=session.sign_in&outcome=failure"))).body.items[0];
    expect(failed.actor.kind).toBe("anonymous");
    // The browser's own callback, sent again with its login cookie: refused before the code is redeemed twice.
    let last = { url: "", cookie: "" };
    const done = await signIn((r) => ((last = { url: r.url, cookie: r.headers.get("cookie") ?? "" }), handle(r)), BASE, "olive.owner");
    expect(done.callback.status).toBe(303);
    expect(last.cookie).toContain("__Secure-gatehouse_login=");
    const replayed = await handle(new Request(last.url, { headers: { cookie: last.cookie } }));
    expect(replayed.status).toBe(400);
    expect(await replayed.text()).toContain("This sign-in was already completed");
  }, 30_000);

  test("the login cookie on plain HTTP: no Secure, no __Secure- prefix, still only for the callback", async () => {
    const plain = createTestApp({ baseUrl: "http://127.0.0.1:8080", oidcIssuer: op.issuer, oidcClientId: CLIENT_ID, oidcClientSecret: CLIENT_SECRET, ...GROUP_CONFIG });
    try {
      const started = await plain.request("GET", "/auth/login");
      const set = started.headers.getSetCookie();
      expect(set).toHaveLength(1);
      expect(set[0]!).toMatch(/^gatehouse_login=v1\.[A-Za-z0-9_-]+; Path=\/auth\/callback; HttpOnly; SameSite=Lax; Max-Age=600$/);
    } finally {
      plain.close();
    }
  }, 30_000);
});

describe("sessions", () => {
  test("CSRF: a change without the token, or with a wrong one, is refused before the body is read and audited; with it, it passes", async () => {
    const { jar } = await signIn(handle, BASE, "olive.owner");
    const me = (await json(await withSession(jar)("GET", "/api/admin/me"))).body;
    let pulled = false;
    const stream = new ReadableStream({ pull() { pulled = true; } }, { highWaterMark: 0 });
    const forged = await t.app.handle(new Request("http://localhost/api/admin/webhooks", { method: "POST", headers: { cookie: jar.header(), "content-type": "application/json" }, body: stream }));
    expect(forged.status).toBe(403);
    expect(((await forged.json()) as any).error.code).toBe("csrf");
    expect(pulled).toBe(false);
    expect((await withSession(jar, "wrong")("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(403);
    expect((await json(await t.admin("GET", "/api/admin/scim"))).body.enabled).toBe(true);
    const refused = (await json(await t.admin("GET", "/api/admin/audit-log?action=access.csrf_refused"))).body.items[0];
    expect(refused).toMatchObject({ actor: { name: "olive.owner@example.com" }, outcome: "denied" });
    expect((await withSession(jar, me.csrfToken)("PATCH", "/api/admin/scim", { enabled: true })).status).toBe(200);
  }, 30_000);

  test("sign-out ends the session server-side and sends the browser to the IdP's end-session endpoint", async () => {
    const { jar } = await signIn(handle, BASE, "vera.viewer");
    const me = (await json(await withSession(jar)("GET", "/api/admin/me"))).body;
    expect((await t.request("POST", "/auth/logout", { headers: { cookie: jar.header() } })).status).toBe(403); // CSRF here too
    const out = await t.request("POST", "/auth/logout", { headers: { cookie: jar.header(), "x-csrf-token": me.csrfToken } });
    expect(out.status).toBe(200);
    const redirect = new URL(((await out.json()) as any).redirect);
    expect(redirect.origin).toBe(op.issuer);
    expect(redirect.searchParams.get("post_logout_redirect_uri")).toBe(`${BASE}/console`);
    expect(redirect.searchParams.get("id_token_hint")).toBeTruthy();
    expect(out.headers.getSetCookie().some((c) => c.startsWith(COOKIE + "=;") && c.includes("Max-Age=0"))).toBe(true);
    // The old cookie is dead even if the browser kept it.
    expect((await withSession(jar)("GET", "/api/admin/me")).status).toBe(401);
    expect((await json(await t.admin("GET", "/api/admin/audit-log?action=session.sign_out"))).body.items[0].actor.name).toBe("vera.viewer@example.com");
  }, 30_000);

  test("idle and absolute timeouts end a session; an owner can list and revoke sessions", async () => {
    const a = await signIn(handle, BASE, "oscar.operator");
    const b = await signIn(handle, BASE, "oscar.operator");
    const c = await signIn(handle, BASE, "oscar.operator");
    const ids = (await rowsOf<{ id: number }>(t.ctx.db, sql`SELECT id FROM admin_sessions ORDER BY id DESC LIMIT 3`)).map((r) => r.id).reverse();
    const change = (statement: SQL) => writeTransaction(t.ctx.db, (tx) => execute(tx, statement));
    await change(sql`UPDATE admin_sessions SET last_seen_at = ${Date.now() - t.ctx.config.sessionIdleTimeoutMs - 1} WHERE id = ${ids[0]!}`);
    expect((await withSession(a.jar)("GET", "/api/admin/me")).status).toBe(401);
    await change(sql`UPDATE admin_sessions SET expires_at = ${Date.now() - 1} WHERE id = ${ids[1]!}`);
    expect((await withSession(b.jar)("GET", "/api/admin/me")).status).toBe(401);
    const list = (await json(await t.admin("GET", "/api/admin/sessions"))).body.items;
    expect(list.some((s: any) => s.id === ids[2])).toBe(true);
    expect(list.some((s: any) => s.id === ids[0] || s.id === ids[1])).toBe(false);
    expect((await t.admin("DELETE", `/api/admin/sessions/${ids[2]}`)).status).toBe(204);
    expect((await withSession(c.jar)("GET", "/api/admin/me")).status).toBe(401);
    expect((await json(await t.admin("GET", "/api/admin/audit-log?action=session.revoke"))).body.items[0]).toMatchObject({ actor: { kind: "env-token" }, resource: { type: "session", id: String(ids[2]) } });
  }, 30_000);
});

describe("the static admin token once OIDC is configured", () => {
  test("off by default (401 naming the key to keep it); kept with GATEHOUSE_ADMIN_TOKEN_WITH_OIDC", async () => {
    const off = createTestApp({ baseUrl: BASE, oidcIssuer: op.issuer, oidcClientId: CLIENT_ID, oidcClientSecret: CLIENT_SECRET, ...GROUP_CONFIG, adminTokenWithOidc: false });
    try {
      const r = await off.admin("GET", "/api/admin/instance");
      expect(r.status).toBe(401);
      expect(((await r.json()) as any).error.message).toContain("GATEHOUSE_ADMIN_TOKEN_WITH_OIDC");
      expect((await (await off.request("GET", "/auth/status")).json())).toEqual({ oidc: true, adminToken: false });
    } finally {
      off.close();
    }
    // `t` keeps it: every t.admin call in this file is the kept token at work.
    expect((await t.admin("GET", "/api/admin/instance")).status).toBe(200);
  });

  test("status without OIDC: only the admin token", async () => {
    const plain = createTestApp();
    try {
      expect(await (await plain.request("GET", "/auth/status")).json()).toEqual({ oidc: false, adminToken: true });
      expect((await plain.request("GET", "/auth/login")).status).toBe(404);
    } finally {
      plain.close();
    }
  });
});

test("roleFromGroups: the highest role wins; exact names, Keycloak paths, a single string; else null", () => {
  expect(roleFromGroups(["staff", "gatehouse-viewers", "gatehouse-owners"], GROUP_CONFIG)).toBe("owner");
  expect(roleFromGroups(["/gatehouse-operators"], GROUP_CONFIG)).toBe("operator");
  expect(roleFromGroups("gatehouse-viewers", GROUP_CONFIG)).toBe("viewer");
  expect(roleFromGroups(["Gatehouse-Owners"], GROUP_CONFIG)).toBeNull();
  expect(roleFromGroups(undefined, GROUP_CONFIG)).toBeNull();
  expect(roleFromGroups([1, null, { a: 1 }], GROUP_CONFIG)).toBeNull();
});

