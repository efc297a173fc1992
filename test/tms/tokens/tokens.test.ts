import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestApp } from "../../helpers";
import { users, workspaceMembers } from "../../../src/directory/tables";
import { apiTokens } from "../../../src/tms/tokens/tables";
import { hashToken } from "../../../src/lib/tokens";
import { first, writeTransaction } from "../../../src/db/transaction";

const t = createTestApp();
afterAll(() => t.close());

test("admin API: create shows the token once; list never shows it; it is stored hashed", async () => {
  const r = await t.admin("POST", "/api/admin/api-tokens", { name: "CI reporter" });
  expect(r.status).toBe(201);
  const created = (await r.json()) as any;
  expect(created.token).toMatch(/^gh_api_[A-Za-z0-9_-]{43}$/);
  expect(created).toMatchObject({ name: "CI reporter", userId: null, revokedAt: null });

  const list = (await (await t.admin("GET", "/api/admin/api-tokens")).json()) as any;
  expect(list.items.map((x: any) => x.name)).toContain("CI reporter");
  expect(JSON.stringify(list)).not.toContain(created.token);

  const row = (await first(t.ctx.db.select().from(apiTokens).where(eq(apiTokens.id, created.id))))!;
  expect(row.tokenHash).toBe(hashToken(created.token));
  expect(JSON.stringify(row)).not.toContain(created.token);
});

test("admin API needs the admin bearer; bad input is a 400 naming the field", async () => {
  expect((await t.request("GET", "/api/admin/api-tokens")).status).toBe(401);
  expect((await t.request("POST", "/api/admin/api-tokens", { body: { name: "x" }, headers: { authorization: "Bearer wrong" } })).status).toBe(401);
  const bad = await t.admin("POST", "/api/admin/api-tokens", { name: "" });
  expect(bad.status).toBe(400);
  expect(((await bad.json()) as any).error.field).toBe("name");
  const unknownUser = await t.admin("POST", "/api/admin/api-tokens", { name: "x", userId: 9999 });
  expect(unknownUser.status).toBe(400);
  expect(((await unknownUser.json()) as any).error.field).toBe("userId");
  expect((await t.admin("DELETE", "/api/admin/api-tokens/9999")).status).toBe(404);
});

test("a revoked token is refused with 401", async () => {
  const { id, token } = (await (await t.admin("POST", "/api/admin/api-tokens", { name: "short-lived" })).json()) as any;
  expect((await t.request("GET", "/api/v1/project", { headers: { token } })).status).toBe(200);
  await Bun.sleep(150); // "last used" is recorded off the request path, shortly after
  expect((await t.admin("DELETE", `/api/admin/api-tokens/${id}`)).status).toBe(204);
  const r = await t.request("GET", "/api/v1/project", { headers: { token } });
  expect(r.status).toBe(401);
  expect(((await r.json()) as any).status).toBe(false);
  const listed = ((await (await t.admin("GET", "/api/admin/api-tokens")).json()) as any).items.find((x: any) => x.id === id);
  expect(listed.revokedAt).not.toBeNull();
  expect(listed.lastUsedAt).not.toBeNull();
});

test("entities record the SCIM user behind the token; deactivating the user keeps them and the name", async () => {
  // The SCIM feature provisions users; here the row is written directly to stay within this feature.
  const now = new Date().toISOString();
  const user = await writeTransaction(t.ctx.db, async (tx) => {
    const [row] = await tx.insert(users).values({ userName: "alice@example.com", userNameKey: "alice@example.com", displayName: "Alice Liddell", createdAt: now, updatedAt: now }).returning();
    await tx.insert(workspaceMembers).values({ workspaceId: 1, userId: row!.id, createdAt: now }); // as SCIM provisioning does
    return row!;
  });
  const { token, userName } = (await (await t.admin("POST", "/api/admin/api-tokens", { name: "alice's reporter", userId: user.id })).json()) as any;
  expect(userName).toBe("alice@example.com");
  const call = async (m: string, p: string, body?: unknown) => (await (await t.request(m, `/api/v1${p}`, { body, headers: { token } })).json()) as any;
  await call("POST", "/project", { title: "Authored", code: "AUT" });
  const caseId = (await call("POST", "/case/AUT", { title: "by alice" })).result.id;
  const runId = (await call("POST", "/run/AUT", { title: "alice's run", cases: [caseId] })).result.id;
  await call("POST", `/result/AUT/${runId}`, { case_id: caseId, status: "failed", defect: true });

  await writeTransaction(t.ctx.db, (tx) => tx.update(users).set({ active: false }).where(eq(users.id, user.id)));
  // The deactivated user's token stops working…
  expect((await t.request("GET", "/api/v1/project", { headers: { token } })).status).toBe(401);
  // …and what they wrote stays, with their name, as another token sees it.
  const other = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "auditor" })).json()) as any).token;
  const call2 = async (m: string, p: string) => (await (await t.request(m, `/api/v1${p}`, { headers: { token: other } })).json()) as any;

  const c = (await call2("GET", `/case/AUT/${caseId}`)).result;
  expect(c.author_id).toBe(user.id);
  expect(c.author).toEqual({ id: user.id, name: "Alice Liddell", email: "alice@example.com", active: false });
  expect((await call2("GET", `/run/AUT/${runId}`)).result.author_id).toBe(user.id);
  expect((await call2("GET", "/defect/AUT")).result.entities[0].author_id).toBe(user.id);
  expect((await call2("GET", `/result/AUT?run=${runId}`)).result.entities[0].author_id).toBe(user.id);
  expect((await call2("GET", "/project/AUT")).result.author_id).toBe(user.id);
});
