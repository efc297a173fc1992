import { afterAll, expect, test } from "bun:test";
import { createTestApp, testOnSqlite } from "./helpers";

const t = createTestApp();
afterAll(() => t.close());

test("healthz and readyz answer", async () => {
  expect((await t.request("GET", "/healthz")).status).toBe(200);
  const r = await t.request("GET", "/readyz");
  expect(r.status).toBe(200);
  expect(await r.json()).toEqual({ status: "ready" });
});

test("unknown API route → JSON 404, unknown SCIM route → SCIM error body", async () => {
  const a = await t.request("GET", "/nope");
  expect(a.status).toBe(404);
  expect(((await a.json()) as any).status).toBe(false);
  const s = await t.request("GET", "/scim/v2/Nope");
  expect(s.status).toBe(404);
  expect(s.headers.get("content-type")).toContain("application/scim+json");
  expect(((await s.json()) as any).schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
});

testOnSqlite("migrations are idempotent (SQLite's runner; PostgreSQL's: test/db/postgres-migrate.test.ts)", async () => {
  const { runMigrations } = await import("../src/db/migrate");
  expect(runMigrations(t.ctx.db)).toBe(0);
});

test("no app-wide hook makes every route parse the query string", () => {
  // Elysia merges what its hooks read into one app-wide inference: a single hook that names
  // `query` makes every route (the hot SCIM lookup too) run Elysia's query parser on top of its
  // own. Routes that want the query declare it in their handler or schema, never in a hook.
  expect((t.app as unknown as { inference: { query: boolean } }).inference.query).toBe(false);
});
