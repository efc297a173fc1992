import { afterAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { execute, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { purgeAuditLog, redact } from "../../src/audit/service";
import { csvField } from "../../src/http/log-export";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });
const as = (token: string) => (method: string, path: string, body?: unknown) =>
  t.request(method, path, { body, headers: { authorization: `Bearer ${token}`, "user-agent": "audit-test/1" } });
const log = async (query = "") => (await json(await t.admin("GET", `/api/admin/audit-log${query}`))).body;

async function tokenWith(role: "viewer" | "operator" | "owner", name: string) {
  return (await json(await t.admin("POST", "/api/admin/admin-tokens", { name, role, expiresInDays: 30 }))).body.token as string;
}

describe("every admin action is recorded with who, what and the outcome", () => {
  test("webhook lifecycle by a named operator token: create, edit, disable, enable, rotate, test, recover, delete", async () => {
    const op = as(await tokenWith("operator", "CI operator"));
    const c = await json(await op("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/audit", events: ["*"], description: "first" }));
    const id = c.body.id;
    await op("PATCH", `/api/admin/webhooks/${id}`, { description: "second" });
    await op("PATCH", `/api/admin/webhooks/${id}`, { enabled: false });
    await op("PATCH", `/api/admin/webhooks/${id}`, { enabled: true });
    await op("POST", `/api/admin/webhooks/${id}/rotate-secret`);
    expect((await op("POST", `/api/admin/webhooks/${id}/test`, { event: "case.created" })).status).toBe(202);
    await op("POST", `/api/admin/webhooks/${id}/recover`, { since: "2026-01-01T00:00:00Z" });
    await op("DELETE", `/api/admin/webhooks/${id}`);
    const page = await log(`?resourceType=webhook&resourceId=${id}&limit=20`);
    expect(page.items.map((e: any) => e.action).reverse()).toEqual([
      "webhook.create", "webhook.update", "webhook.disable", "webhook.enable", "webhook.rotate_secret", "webhook.test", "webhook.recover", "webhook.delete",
    ]);
    for (const e of page.items) {
      expect(e.actor).toEqual({ kind: "admin-token", name: "CI operator", role: "operator" });
      expect(e.outcome).toBe("success");
      expect(e.source.userAgent).toBe("audit-test/1");
      expect(e.source.requestId).toBeTruthy();
    }
    const update = page.items.find((e: any) => e.action === "webhook.update");
    expect(update.summary.before.description).toBe("first");
    expect(update.summary.after.description).toBe("second");
    // The secret shown on create and rotation is never kept.
    expect(JSON.stringify(page)).not.toContain("whsec_");
    expect(page.items.find((e: any) => e.action === "webhook.create").summary.after.secret).toBe("[redacted]");
  });

  test("tokens, SCIM on/off and workspaces by GATEHOUSE_ADMIN_TOKEN are named as that token", async () => {
    const scim = await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "Entra ID (audit)" }));
    await t.admin("DELETE", `/api/admin/scim-tokens/${scim.body.id}`);
    const api = await json(await t.admin("POST", "/api/admin/api-tokens", { name: "reporter (audit)" }));
    await t.admin("DELETE", `/api/admin/api-tokens/${api.body.id}`);
    await t.admin("PATCH", "/api/admin/scim", { enabled: false });
    await t.admin("PATCH", "/api/admin/scim", { enabled: true });
    const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Audited" }));
    await t.admin("PATCH", `/api/admin/workspaces/${ws.body.id}`, { archived: true });
    const items = (await log("?actor=GATEHOUSE_ADMIN_TOKEN&limit=100")).items;
    const actions = items.map((e: any) => e.action);
    for (const a of ["scim_token.create", "scim_token.revoke", "api_token.create", "api_token.revoke", "scim.disable", "scim.enable", "workspace.create", "workspace.archive"]) expect(actions).toContain(a);
    expect(items[0].actor).toEqual({ kind: "env-token", name: "GATEHOUSE_ADMIN_TOKEN", role: "owner" });
    expect(items.find((e: any) => e.action === "scim.disable").summary).toEqual({ before: { enabled: true }, after: { enabled: false } });
    expect(items.find((e: any) => e.action === "workspace.archive").summary.before.archived).toBe(false);
    expect(JSON.stringify(items)).not.toContain(scim.body.token);
    expect(JSON.stringify(items)).not.toContain(api.body.token);
  });

  test("a refused action is recorded as a failure; a role refusal as denied; neither changes anything", async () => {
    expect((await t.admin("PATCH", "/api/admin/webhooks/987654", { description: "x" })).status).toBe(404);
    const failed = (await log("?action=webhook.update&outcome=failure")).items[0];
    expect(failed).toMatchObject({ action: "webhook.update", resource: { type: "webhook", id: "987654" }, outcome: "failure" });
    expect(failed.detail).toContain("404");
    const viewer = as(await tokenWith("viewer", "nosy viewer"));
    expect((await viewer("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(403);
    const denied = (await log("?outcome=denied")).items[0];
    expect(denied).toMatchObject({ action: "access.denied", actor: { name: "nosy viewer", role: "viewer" }, resource: { type: "route", id: "PATCH /api/admin/scim" }, outcome: "denied", detail: "needs owner" });
  });

  test("the entry commits with the action or not at all", async () => {
    const before = (await log()).total;
    // A unique-name conflict inside the action: nothing created, one failure entry, no success entry.
    await t.admin("POST", "/api/admin/admin-tokens", { name: "Twin token", role: "viewer", expiresInDays: 1 });
    const r = await t.admin("POST", "/api/admin/admin-tokens", { name: "twin TOKEN", role: "viewer", expiresInDays: 1 });
    expect(r.status).toBe(409);
    const after = await log("?action=admin_token.");
    expect(after.items[0]).toMatchObject({ action: "admin_token.create", outcome: "failure" });
    expect(after.items[1]).toMatchObject({ action: "admin_token.create", outcome: "success" });
    expect((await log()).total).toBe(before + 2);
  });
});

describe("reading the log", () => {
  test("filters by family, actor and time range; pages; bad times are a 400 naming the field", async () => {
    const all = await log("?limit=1");
    expect(all.total).toBeGreaterThan(10);
    expect(all.items).toHaveLength(1);
    const second = await log("?limit=1&offset=1");
    expect(second.items[0].id).toBeLessThan(all.items[0].id);
    const family = await log("?action=webhook.&limit=200");
    expect(family.items.every((e: any) => e.action.startsWith("webhook."))).toBe(true);
    expect((await log("?action=webhook&limit=200")).total).toBe(0); // exact unless it ends in a dot
    expect((await log("?action=webhook_&limit=200")).total).toBe(0); // LIKE wildcards are literal
    const future = new Date(Date.now() + 3_600_000).toISOString();
    expect((await log(`?since=${future}`)).total).toBe(0);
    expect((await log(`?until=${future}`)).total).toBe(all.total);
    const bad = await json(await t.admin("GET", "/api/admin/audit-log?since=yesterday"));
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("since");
  });

  test("export: CSV with a header row and NDJSON, oldest first, filtered, as a download", async () => {
    const csv = await t.admin("GET", "/api/admin/audit-log/export?format=csv&action=webhook.");
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toContain("text/csv");
    expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="gatehouse-audit-\d{4}-\d{2}-\d{2}\.csv"$/);
    const lines = (await csv.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,at,actor_kind,actor_name,actor_role,source_ip,user_agent,request_id,action,resource_type,resource_id,outcome,detail,summary");
    const listed = await log("?action=webhook.&limit=200");
    expect(lines.length - 1).toBe(listed.total);
    expect(lines[1]).toContain("webhook.create");
    const nd = await t.admin("GET", "/api/admin/audit-log/export?format=ndjson");
    expect(nd.headers.get("content-type")).toContain("application/x-ndjson");
    const entries = (await nd.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
    expect(entries.length).toBe((await log()).total);
    expect(entries[0].id).toBeLessThan(entries[entries.length - 1].id);
    expect((await t.admin("GET", "/api/admin/audit-log/export?format=xml")).status).toBe(400);
  });

  test("roles: operators read and export, viewers do not", async () => {
    const viewer = as(await tokenWith("viewer", "viewer reader"));
    expect((await viewer("GET", "/api/admin/audit-log")).status).toBe(403);
    expect((await viewer("GET", "/api/admin/audit-log/export?format=csv")).status).toBe(403);
    const op = as(await tokenWith("operator", "operator reader"));
    expect((await op("GET", "/api/admin/audit-log")).status).toBe(200);
  });
});

describe("pure parts", () => {
  test("redact hides strings under secret-like keys at any depth, keeps ids and flags", () => {
    expect(redact({ token: "gadm_x", tokenId: 4, nested: { secret: "whsec_x", items: [{ password: "p" }] }, name: "n", hasSecret: true })).toEqual({
      token: "[redacted]", tokenId: 4, nested: { secret: "[redacted]", items: [{ password: "[redacted]" }] }, name: "n", hasSecret: true,
    });
  });

  test("CSV fields are quoted when needed and never start a formula", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('a "quoted", value')).toBe('"a ""quoted"", value"');
    expect(csvField("=HYPERLINK(1)")).toBe("'=HYPERLINK(1)");
    expect(csvField("-1+1")).toBe("'-1+1");
    expect(csvField(-1)).toBe("-1");
    expect(csvField(null)).toBe("");
  });

  test("retention purges entries older than the cutoff, keeps the rest", async () => {
    const total = async () => (await rowsOf<{ n: number }>(t.ctx.db, sql`SELECT count(*) AS n FROM audit_log`))[0]!.n;
    await writeTransaction(t.ctx.db, async (tx) => {
      for (let i = 0; i < 3; i++)
        await execute(tx, sql`INSERT INTO audit_log (at, actor_kind, actor_name, action, outcome) VALUES (${Date.now() - 400 * 86_400_000}, 'env-token', 'old', 'scim.enable', 'success')`);
    });
    const before = await total();
    expect(await purgeAuditLog(t.ctx.db, Date.now() - 365 * 86_400_000)).toBe(true);
    expect(await total()).toBe(before - 3);
  });
});
