/**
 * The audit log, admin API tokens (with their "last used" stamps), console sessions, the
 * readiness probes and the schema version /version reports on PostgreSQL: the same services and SQL as on SQLite. An audited action's own
 * transaction nests inside the audit's (a savepoint); a refusal is recorded in a transaction of
 * its own. Real services over a real server (test/support/postgres.ts).
 */
import { expect, test } from "bun:test";
import postgres from "postgres";
import { createAdminToken, authenticateAdminToken, listAdminTokens, revokeAdminToken } from "../../src/admin/tokens/service";
import { createSession, endSession, findSession, listSessions } from "../../src/admin/signin/sessions";
import { audited, listAudit, purgeAuditLog } from "../../src/audit/service";
import { testConfig } from "../../src/config";
import type { AppContext } from "../../src/context";
import { POSTGRES_SCHEMA_OFFSET, schemaVersionOf } from "../../src/db/migrate";
import { migrations } from "../../src/db/postgres/migrations.generated";
import { databaseWritable, pingDatabase } from "../../src/db/readiness";
import type { Db } from "../../src/db/store";
import { conflict } from "../../src/http/errors";
import { usePostgresForTest } from "../support/postgres";
import { until } from "../helpers";
import { SCHEMA_VERSION } from "../../src/version";

let sql: postgres.Sql;
let db: Db;
let ctx: AppContext;

usePostgresForTest("admin", async (pg) => {
  ({ sql, db } = pg);
  ctx = { db, config: testConfig({ dataDir: "/nonexistent", adminToken: "x".repeat(24), baseUrl: "https://gatehouse.test" }) } as AppContext;
});

const owner = { kind: "env-token" as const, name: "GATEHOUSE_ADMIN_TOKEN", role: "owner" };
const request = () => new Request("https://gatehouse.test/api/admin/x", { headers: { "user-agent": "pg-test/1" } });

test("an audited action commits with its entry; a refusal is recorded as a failure and changes nothing", async () => {
  const created = await audited(ctx, owner, request(), { action: "admin_token.create", resource: { type: "admin_token", id: (r) => r.id } }, () =>
    createAdminToken(ctx, { name: "CI", role: "operator", expiresInDays: 30 }, owner.name),
  );
  await expect(
    audited(ctx, owner, request(), { action: "admin_token.create", resource: { type: "admin_token" } }, () => createAdminToken(ctx, { name: "ci", role: "viewer", expiresInDays: 30 }, owner.name)),
  ).rejects.toThrow(/exists already/);
  await expect(
    audited(ctx, owner, request(), { action: "webhook.delete", resource: { type: "webhook", id: 7 } }, async () => {
      await createAdminToken(ctx, { name: "rolled back", role: "viewer", expiresInDays: 1 }, owner.name); // a savepoint of the audit's transaction
      throw conflict("refused after a nested write");
    }),
  ).rejects.toThrow("refused after a nested write");
  expect((await listAdminTokens(ctx)).map((t) => t.name)).toEqual(["CI"]);
  const page = await listAudit(ctx, { action: "admin_token." });
  expect(page.items.map((e) => [e.action, e.outcome])).toEqual([
    ["admin_token.create", "failure"],
    ["admin_token.create", "success"],
  ]);
  expect(page.items[1]!.resource).toEqual({ type: "admin_token", id: String(created.id) });
  expect(page.items[1]!.source.userAgent).toBe("pg-test/1");
  expect((await listAudit(ctx, { resourceType: "webhook" })).items.map((e) => e.outcome)).toEqual(["failure"]);

  await sql`UPDATE audit_log SET at = 0 WHERE action = 'webhook.delete'`;
  expect(await purgeAuditLog(db, Date.now() - 86_400_000)).toBe(true);
  expect((await listAudit(ctx, { resourceType: "webhook" })).total).toBe(0);
});

test("an admin token authenticates until revoked; its use is stamped in the background", async () => {
  const made = await createAdminToken(ctx, { name: "stamped", role: "viewer", expiresInDays: 1 }, owner.name);
  expect(await authenticateAdminToken(ctx, made.token)).toEqual({ id: made.id, name: "stamped", role: "viewer" });
  await until(async () => (await sql`SELECT last_used_at FROM admin_tokens WHERE id = ${made.id}`)[0]!.last_used_at !== null, "the last-used stamp");
  expect((await revokeAdminToken(ctx, made.id)).state).toBe("revoked");
  expect(await authenticateAdminToken(ctx, made.token)).toBeNull();
});

test("a console session is found by its cookie, listed, and ended with its audit entry", async () => {
  const { cookieValue, row } = await createSession(ctx, { subject: "s-1", issuer: "https://idp.example", name: "ada@example.com", role: "owner", idToken: null }, request());
  expect((await findSession(ctx, cookieValue))?.id).toBe(row.id);
  expect((await listSessions(ctx)).map((s) => s.id)).toContain(row.id);
  await endSession(ctx, row, request(), "session.sign_out");
  expect(await findSession(ctx, cookieValue)).toBeNull();
  expect((await listAudit(ctx, { resourceType: "session" })).items.map((e) => e.action)).toEqual(["session.sign_out", "session.sign_in"]);
});

test("readiness: the database answers and takes writes", async () => {
  expect(await pingDatabase(db)).toBeNull();
  expect(await databaseWritable(db)).toBe(true);
});

test("/version's schema version: the PostgreSQL migrations recorded, on SQLite's scale (a migrated database is at the executable's)", async () => {
  expect(await schemaVersionOf(db)).toBe(migrations.length - 1 + POSTGRES_SCHEMA_OFFSET);
  expect(await schemaVersionOf(db)).toBe(SCHEMA_VERSION);
});
