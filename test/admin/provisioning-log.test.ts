import { afterAll, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { purgeActivity } from "../../src/scim/activity/service";
import { scimActivity } from "../../src/scim/activity/tables";
import { createTestApp, until } from "../helpers";
import { createScimTestApp, json, PATCH_SCHEMA, USER_SCHEMA } from "../scim/helpers";

const t = await createScimTestApp();
afterAll(() => t.close());
const tokenId = (JSON.parse(await (await t.admin("GET", "/api/admin/scim-tokens")).text()) as { id: number }[])[0]!.id;

/** The log is written just after the answers go out: poll the admin API until `n` entries match. */
async function logged(query: string, n: number): Promise<any> {
  for (let i = 0; ; i++) {
    const page = await json(await t.admin("GET", `/api/admin/provisioning-log${query}`));
    if (page.total >= n || i > 100) return page;
    await Bun.sleep(10);
  }
}

const user = (userName: string) => ({ schemas: [USER_SCHEMA], userName, name: { givenName: "Ada", familyName: "Lovelace" }, emails: [{ value: userName, primary: true }], title: "Countess" });

test("every SCIM write is logged with token, operation, resource and outcome — and nothing else about the person", async () => {
  const created = await json(await t.scim("POST", "/Users", user("ada@example.com")));
  expect((await t.scim("POST", "/Users", user("ADA@example.com"))).status).toBe(400);
  expect((await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "title", value: "Analyst" }] })).status).toBe(200);
  expect((await t.scim("DELETE", `/Users/${created.id}`)).status).toBe(204);
  const group = await json(await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Engines" }));
  expect((await t.scim("DELETE", `/Groups/${group.id}`)).status).toBe(204);
  expect((await t.scim("GET", "/Users")).status).toBe(200); // reads are not logged

  const page = await logged("", 6);
  expect(page.total).toBe(6);
  const rows = page.items.map((e: any) => [e.operation, e.resourceType, e.resourceId, e.resourceName, e.status, e.scimType]);
  expect(rows).toEqual([
    ["delete", "Group", group.id, "Engines", 204, null],
    ["create", "Group", group.id, "Engines", 201, null],
    ["delete", "User", created.id, "ada@example.com", 204, null],
    ["update", "User", created.id, "ada@example.com", 200, null],
    ["create", "User", null, "ADA@example.com", 400, "invalidValue"],
    ["create", "User", created.id, "ada@example.com", 201, null],
  ]);
  const failed = page.items[4];
  expect(failed.detail).toContain("ADA@example.com");
  expect(failed.token).toEqual({ id: tokenId, name: "test IdP" });
  expect(failed.requestId).toBeString();
  expect(Date.parse(failed.at)).toBeGreaterThan(Date.now() - 60_000);
  // A summary: no names, titles or request bodies.
  expect(JSON.stringify(page)).not.toMatch(/Lovelace|Countess|Analyst/);
});

test("unknown tokens and rate-limited calls are not logged; a call refused because SCIM is off is", async () => {
  const before = (await logged("", 0)).total;
  expect((await t.request("POST", "/scim/v2/Users", { body: user("x@example.com"), headers: { authorization: "Bearer nope" } })).status).toBe(401);
  expect((await t.admin("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(200);
  expect((await t.scim("POST", "/Users", user("off@example.com"))).status).toBe(403);
  expect((await t.admin("PATCH", "/api/admin/scim", { enabled: true })).status).toBe(200);
  const page = await logged("?status=403", 1);
  // Refused before the body was read: the log knows the token and the operation, not the user.
  expect(page.items[0]).toMatchObject({ operation: "create", resourceType: "User", resourceName: null, status: 403, detail: "SCIM provisioning is disabled for this organization" });
  expect((await logged("", before + 1)).total).toBe(before + 1);

  const limited = await createScimTestApp({ scimRateLimit: 1, scimRateBurst: 1 });
  try {
    expect((await limited.scim("POST", "/Users", user("one@example.com"))).status).toBe(201);
    expect((await limited.scim("POST", "/Users", user("two@example.com"))).status).toBe(429);
    // The first entry is written once its batch commits (later on a loaded machine); one for the 429 would follow it.
    await until(async () => (await json(await limited.admin("GET", "/api/admin/provisioning-log"))).total > 0, "the first entry");
    await Bun.sleep(100);
    const entries = await json(await limited.admin("GET", "/api/admin/provisioning-log"));
    expect(entries.items.map((e: any) => e.resourceName)).toEqual(["one@example.com"]);
  } finally {
    limited.close();
  }
});

test("filters: outcome, operation, resource type and id, token, name substring, time; paging", async () => {
  for (let i = 0; i < 5; i++) await t.scim("POST", "/Users", user(`page${i}_x@example.com`));
  const all = await logged("", 12);
  const only = async (q: string) => (await logged(q, 0)).items as any[];
  expect((await only("?outcome=failure")).every((e) => e.status >= 300)).toBe(true);
  expect((await only("?outcome=failure")).length).toBe(2);
  expect((await only("?outcome=success&operation=create&resourceType=User")).length).toBe(6);
  expect((await only("?resourceType=Group")).length).toBe(2);
  const ada = all.items.find((e: any) => e.resourceName === "ada@example.com");
  expect((await only(`?resourceType=User&resourceId=${ada.resourceId}`)).map((e) => e.operation)).toEqual(["delete", "update", "create"]);
  expect((await only(`?tokenId=${tokenId}`)).length).toBe(all.total);
  expect((await only("?tokenId=999")).length).toBe(0);
  // `_` matches itself, not any character.
  expect((await only("?q=E0_X")).map((e) => e.resourceName)).toEqual(["page0_x@example.com"]);
  expect((await only("?q=%25")).length).toBe(0);
  expect((await only(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).length).toBe(0);
  expect((await only(`?until=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).length).toBe(Math.min(all.total, 50));
  const p1 = await json(await t.admin("GET", "/api/admin/provisioning-log?limit=5"));
  const p2 = await json(await t.admin("GET", "/api/admin/provisioning-log?limit=5&offset=5"));
  expect(p1).toMatchObject({ total: all.total, limit: 5, offset: 0 });
  expect(p1.items.length).toBe(5);
  expect(p2.items[0].id).toBeLessThan(p1.items[4].id);
  expect((await t.admin("GET", "/api/admin/provisioning-log?outcome=maybe")).status).toBe(400);
  expect((await t.admin("GET", "/api/admin/provisioning-log?since=yesterday")).status).toBe(400);
  expect((await t.request("GET", "/api/admin/provisioning-log")).status).toBe(401);
});

test("export: the filtered log as CSV (header, RFC 4180, formula-safe) or NDJSON, oldest first; a bad time → 400 before any row", async () => {
  const all = await logged("", 12);
  const csv = await t.admin("GET", "/api/admin/provisioning-log/export?format=csv");
  expect(csv.status).toBe(200);
  expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(csv.headers.get("content-disposition")).toMatch(/^attachment; filename="gatehouse-provisioning-\d{4}-\d\d-\d\d\.csv"$/);
  const lines = (await csv.text()).trimEnd().split("\r\n");
  expect(lines[0]).toBe("id,at,token_id,token_name,operation,resource_type,resource_id,resource_name,status,scim_type,detail,request_id");
  expect(lines.length).toBe(all.total + 1);
  expect(lines[1]).toStartWith(`${Math.min(...all.items.map((e: any) => e.id))},`);
  const failures = await t.admin("GET", "/api/admin/provisioning-log/export?format=ndjson&outcome=failure");
  expect(failures.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");
  const entries = (await failures.text()).trimEnd().split("\n").map((l) => JSON.parse(l));
  expect(entries.map((e) => e.id)).toEqual((await logged("?outcome=failure", 0)).items.map((e: any) => e.id).reverse());
  expect(entries[0]).toMatchObject({ operation: "create", status: 400, scimType: "invalidValue", token: { id: tokenId, name: "test IdP" } });
  // A time range keeps the same rows the list shows.
  const future = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
  expect(await (await t.admin("GET", `/api/admin/provisioning-log/export?format=ndjson&since=${future}`)).text()).toBe("");
  expect((await t.admin("GET", "/api/admin/provisioning-log/export?format=csv&until=tomorrow")).status).toBe(400);
  expect((await t.admin("GET", "/api/admin/provisioning-log/export?format=xml")).status).toBe(400);
  expect((await t.admin("GET", "/api/admin/provisioning-log/export")).status).toBe(400);
  expect((await t.request("GET", "/api/admin/provisioning-log/export?format=csv")).status).toBe(401);
});

test("retention deletes the entries older than the cutoff, at most 10 000 per call", async () => {
  const fresh = createTestApp();
  try {
    const db = fresh.ctx.db;
    const total = async () => Number((await rowsOf<{ n: number }>(db, sql`SELECT count(*) AS n FROM scim_activity`))[0]!.n);
    const row = (at: number) => ({ at, tokenId: 1, tokenName: "x", operation: "create", resourceType: "User", status: 201, requestId: "r" });
    await writeTransaction(db, async (tx) => {
      for (let i = 0; i < 12_500; i += 500) await tx.insert(scimActivity).values(Array.from({ length: 500 }, (_, j) => row(1000 + i + j)));
    });
    expect(await purgeActivity(fresh.ctx.db, 12_000)).toBe(false); // 11 000 are older: one call takes 10 000
    expect(await total()).toBe(2500);
    expect(await purgeActivity(fresh.ctx.db, 12_000)).toBe(true);
    expect(await total()).toBe(1500);
    expect(Number((await rowsOf<{ at: number }>(db, sql`SELECT min(at) AS at FROM scim_activity`))[0]!.at)).toBe(12_000);
    expect(await purgeActivity(fresh.ctx.db, 12_000)).toBe(true);
    expect(await total()).toBe(1500);
  } finally {
    fresh.close();
  }
}, 30_000); // 12 500 rows written and purged: seconds on a loaded machine

test("the log's hook is on every SCIM route that can write (PUT of a group, a 405 too) and on no read, which it would cost a setImmediate each", async () => {
  const writes = /^(POST|PUT|PATCH|DELETE|ALL)$/;
  const routes = t.app.routes.filter((r) => r.path.startsWith("/scim/v2/"));
  const hooked = (r: (typeof routes)[number]) => ((r.hooks as { afterResponse?: unknown[] }).afterResponse?.length ?? 0) > 0;
  const reads = routes.filter((r) => !writes.test(r.method) || (r.method === "POST" && r.path.endsWith("/.search")));
  const canWrite = routes.filter((r) => !reads.includes(r));
  expect(canWrite.length).toBeGreaterThanOrEqual(8 + 12);
  expect(canWrite.filter((r) => !hooked(r)).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  expect(reads.filter(hooked).map((r) => `${r.method} ${r.path}`)).toEqual([]);
  // and a write answered by a 405 route is logged through it
  const before = (await logged("", 0)).total;
  expect((await t.scim("PUT", "/Users", user("put@example.com"))).status).toBe(405);
  expect((await logged("?status=405", 1)).items[0]).toMatchObject({ operation: "replace", resourceType: "User", status: 405 });
  expect((await logged("", before + 1)).total).toBe(before + 1);
});
