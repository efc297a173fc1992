import { expect } from "bun:test";
import { testOnSqlite } from "../helpers";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { runMigrations } from "../../src/db/migrate";
import { migrateDatabase } from "../../src/server/migrate";
import { migrations } from "../../src/db/migrations.generated";
import type { AppContext } from "../../src/context";
import { publish } from "../../src/webhooks/publish";
import { writeTransaction } from "../../src/db/transaction";
import { getDelivery } from "../../src/webhooks/service";
import { deliveryId } from "../../src/webhooks/tables";

/**
 * Runs `body` on a fresh database migrated up to (not including) `tag`, as the release before it
 * left it, with one webhook subscription (id 1) and one event (id 1).
 */
async function beforeMigration(tag: string, body: (h: ReturnType<typeof openDatabase>, before: number, now: number) => void | Promise<void>) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "g.db"), { migrate: false });
  try {
    const before = migrations.findIndex((m) => m.tag === tag);
    runMigrations(h.db, before);
    const now = Date.now();
    h.sqlite.run("INSERT INTO webhook_subscriptions (id, url, events, secret, created_at, updated_at) VALUES (1, 'http://h.example/x', '[\"*\"]', 'whsec_x', ?, ?)", [now, now]);
    h.sqlite.run("INSERT INTO webhook_events (id, uid, name, payload, created_at) VALUES (1, 'msg_old', 'case.deleted', '{\"id\":1}', ?)", [now]);
    await body(h, before, now);
  } finally {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
}

testOnSqlite("0001 backfills users.emails from user_emails, as SCIM renders them, in the IdP's order (SQLite files of older releases; PostgreSQL databases start at today's schema)", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "g.db"), { migrate: false });
  try {
    const init = migrations.findIndex((m) => m.tag === "0000_init");
    expect(runMigrations(h.db, init + 1)).toBe(1); // the database as the first release left it
    const now = new Date().toISOString();
    const user = h.sqlite.query("INSERT INTO users (user_name, user_name_key, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING id");
    const a = (user.get("a@x.example", "a@x.example", "A", now, now) as { id: number }).id;
    const b = (user.get("b@x.example", "b@x.example", "B", now, now) as { id: number }).id;
    const email = h.sqlite.query("INSERT INTO user_emails (user_id, position, value, value_key, type, is_primary) VALUES (?, ?, ?, ?, ?, ?)");
    // inserted out of order: the backfill must follow `position`
    email.run(a, 1, "Home\"é@x.example", "home\"é@x.example", null, 0);
    email.run(a, 0, "a@x.example", "a@x.example", "work", 1);

    expect(runMigrations(h.db)).toBe(migrations.length - init - 1);
    const emailsOf = (id: number) => JSON.parse((h.sqlite.query("SELECT emails FROM users WHERE id = ?").get(id) as { emails: string }).emails);
    expect(emailsOf(a)).toEqual([{ value: "a@x.example", type: "work", primary: true }, { value: "Home\"é@x.example", primary: false }]);
    expect(emailsOf(b)).toEqual([]);
  } finally {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
});

testOnSqlite("0002 chains the attempts logged before it, which keep their headers; new attempts link to them (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  await beforeMigration("0002_attempt_log_chain", async (h, before, now) => {
    for (const id of [1, 2])
      h.sqlite.run("INSERT INTO webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES (?, 1, 1, 'pending', 1, ?, ?, ?)", [id, now, now, now]);
    const attempt = h.sqlite.query("INSERT INTO webhook_attempts (delivery_id, started_at, duration_ms, url, request_headers, status_code, response_body) VALUES (?, ?, 12, 'http://h.example/x', ?, 500, ?)");
    const headers = (n: number) => ({ "webhook-id": "msg_old", "webhook-signature": `v1,old${n}` });
    // interleaved, as two deliveries' retries are
    attempt.run(1, now - 3000, JSON.stringify(headers(1)), "a1");
    attempt.run(2, now - 2500, JSON.stringify(headers(2)), "b1");
    attempt.run(1, now - 2000, JSON.stringify(headers(3)), "a2");

    expect(runMigrations(h.db)).toBe(migrations.length - before);
    const ctx = { db: h.db, sqlite: h.sqlite } as unknown as AppContext;
    const logged = async (id: number) => (await getDelivery(ctx, id)).attempts.map((a) => [a.responseBody, a.requestHeaders!["webhook-signature"]]);
    expect(await logged(1)).toEqual([["a1", "v1,old1"], ["a2", "v1,old3"]]);
    expect(await logged(2)).toEqual([["b1", "v1,old2"]]);
    expect((await getDelivery(ctx, 1)).attempts[0]).toEqual({
      startedAt: new Date(now - 3000).toISOString(),
      durationMs: 12,
      url: "http://h.example/x",
      requestHeaders: headers(1),
      statusCode: 500,
      error: null,
      responseHeaders: null,
      responseBody: "a1",
      cycleAttempt: null,
      redelivery: false,
    });
  });
});

testOnSqlite("0004: deliveries made before it keep their ids; new ones go to their subscription's range (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  await beforeMigration("0004_delivery_ids_per_subscription", async (h, before, now) => {
    h.sqlite.run("INSERT INTO webhook_deliveries (event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at) VALUES (1, 1, 'failed', 8, ?, ?, ?)", [now, now, now]);
    expect(runMigrations(h.db)).toBe(migrations.length - before);
    await writeTransaction(h.db, (tx) => publish(tx, "case.deleted", { id: 2 }));
    const ids = (h.sqlite.query("SELECT id FROM webhook_deliveries ORDER BY id").all() as { id: number }[]).map((r) => r.id);
    expect(ids).toEqual([1, deliveryId(1, 1)]);
  });
});

testOnSqlite("0006: users provisioned before it answer exactly as before, and then store every attribute (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "gatehouse.db"), { migrate: false });
  const before = migrations.findIndex((m) => m.tag === "0006_user_profile");
  runMigrations(h.db, before); // the database as the release before it left it, with a user it provisioned
  const at = "2026-11-20T10:00:00.000Z";
  h.sqlite.run(
    `INSERT INTO users (id, user_name, user_name_key, external_id, given_name, family_name, formatted_name, display_name_given, display_name, title, emails, user_type, active, role, created_at, updated_at)
     VALUES (7, 'Ada@Example.com', 'ada@example.com', 'ext-7', 'Ada', 'Lovelace', NULL, NULL, 'Ada Lovelace', 'Analyst', ?, 'regular', 1, 'member', ?, ?)`,
    [JSON.stringify([{ value: "ada@example.com", type: "work", primary: true }]), at, at],
  );
  h.sqlite.run("INSERT INTO user_emails (user_id, position, value, value_key, type, is_primary) VALUES (7, 0, 'ada@example.com', 'ada@example.com', 'work', 1)");
  closeDatabase(h);

  const { createScimTestApp, json } = await import("../scim/helpers");
  const t = await createScimTestApp({ dataDir: dir }); // opens the file and applies the remaining migrations
  try {
    const old = await json(await t.scim("GET", "/Users/7"));
    expect(old).toEqual({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      id: "7",
      externalId: "ext-7",
      userName: "Ada@Example.com",
      name: { givenName: "Ada", familyName: "Lovelace" },
      displayName: "Ada Lovelace",
      active: true,
      userType: "regular",
      title: "Analyst",
      emails: [{ value: "ada@example.com", type: "work", primary: true }],
      meta: { resourceType: "User", created: at, lastModified: at, location: "https://gatehouse.test/scim/v2/Users/7" },
    });
    const patched = await json(await t.scim("PATCH", "/Users/7", { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [
      { op: "add", path: "nickName", value: "Ada" },
      { op: "add", path: 'emails[type eq "work"].display', value: "Work" },
      { op: "add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "Analytical Engines" },
    ] }));
    expect(patched).toMatchObject({ nickName: "Ada", emails: [{ value: "ada@example.com", type: "work", primary: true, display: "Work" }] });
    expect(patched["urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"]).toEqual({ department: "Analytical Engines" });
    const byDisplay = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent('emails.display eq "work"')}`));
    expect(byDisplay.Resources.map((u: any) => u.id)).toEqual(["7"]);
  } finally {
    t.close();
  }
});

testOnSqlite("0008: everything before workspaces moves into the default workspace; existing SCIM tokens become organization tokens (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "gatehouse.db"), { migrate: false });
  const before = migrations.findIndex((m) => m.tag === "0008_workspaces");
  runMigrations(h.db, before);
  const at = "2026-11-21T10:00:00.000Z";
  h.sqlite.run(`INSERT INTO users (id, user_name, user_name_key, given_name, family_name, display_name, emails, created_at, updated_at) VALUES (3, 'old@example.com', 'old@example.com', 'Old', 'Timer', 'Old Timer', '[]', ?, ?)`, [at, at]);
  h.sqlite.run(`INSERT INTO groups (id, display_name, display_name_key, created_at, updated_at) VALUES ('g-old', 'Old team', 'old team', ?, ?)`, [at, at]);
  h.sqlite.run("INSERT INTO group_members (group_id, user_id) VALUES ('g-old', 3)");
  const { createScimToken } = await import("../../src/scim/tokens/service");
  const { hashToken } = await import("../../src/lib/tokens");
  h.sqlite.run("INSERT INTO scim_tokens (name, token_hash, created_at) VALUES ('Entra', ?, ?)", [hashToken("scim_old-token"), at]);
  closeDatabase(h);

  const { createScimTestApp, json } = await import("../scim/helpers");
  const t = await createScimTestApp({ dataDir: dir });
  try {
    expect(t.ctx.sqlite!.query("SELECT id, name, archived_at FROM workspaces").all()).toEqual([{ id: 1, name: "Default", archived_at: null }]);
    expect(t.ctx.sqlite!.query("SELECT workspace_id, user_id FROM workspace_members").all()).toEqual([{ workspace_id: 1, user_id: 3 }]);
    expect(t.ctx.sqlite!.query("SELECT workspace_id FROM groups").all()).toEqual([{ workspace_id: 1 }]);
    expect(t.ctx.sqlite!.query("SELECT name, workspace_id FROM scim_tokens ORDER BY id").all()).toEqual([{ name: "Entra", workspace_id: null }, { name: "test IdP", workspace_id: null }]);
    // the old token still provisions everything, as before
    const old = (path: string) => t.request("GET", `/scim/v2${path}`, { headers: { authorization: "Bearer scim_old-token" } });
    expect((await json(await old("/Users/3"))).userName).toBe("old@example.com");
    expect((await json(await old("/Groups/g-old"))).members).toEqual([{ value: 3, type: "User" }]);
    // and a new workspace's token sees none of it
    const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "New" }));
    const token = (await createScimToken(t.ctx.db, "new", ws.id)).token;
    expect((await t.request("GET", "/scim/v2/Users/3", { headers: { authorization: `Bearer ${token}` } })).status).toBe(404);
  } finally {
    t.close();
  }
});

testOnSqlite("0009: projects and API tokens made before it belong to the default workspace (SQLite files of older releases; PostgreSQL databases start at today's schema)", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "g.db"), { migrate: false });
  try {
    const before = migrations.findIndex((m) => m.tag === "0009_projects_per_workspace");
    runMigrations(h.db, before);
    h.sqlite.run("INSERT INTO tms_projects (code, title, created, updated) VALUES ('OLD', 'Old', 'x', 'x')");
    h.sqlite.run("INSERT INTO api_tokens (name, token_hash, created_at) VALUES ('ci', 'h', 'x')");
    runMigrations(h.db);
    expect(h.sqlite.query("SELECT workspace_id FROM tms_projects").all()).toEqual([{ workspace_id: 1 }]);
    expect(h.sqlite.query("SELECT workspace_id FROM api_tokens").all()).toEqual([{ workspace_id: 1 }]);
  } finally {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
});

testOnSqlite("0010: events recorded before it name their project's workspace; subscriptions stay unlimited (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  await beforeMigration("0010_webhooks_per_workspace", (h, before) => {
    h.sqlite.run("INSERT INTO tms_projects (code, title, created, updated) VALUES ('OLD', 'Old', 'x', 'x')");
    h.sqlite.run(`INSERT INTO webhook_events (id, uid, name, project_code, payload, created_at) VALUES (2, 'msg_proj', 'case.deleted', 'OLD', '{"id":2}', 0)`);
    expect(runMigrations(h.db)).toBe(migrations.length - before);
    expect(h.sqlite.query("SELECT id, workspace_id FROM webhook_events ORDER BY id").all()).toEqual([{ id: 1, workspace_id: null }, { id: 2, workspace_id: 1 }]);
    expect(h.sqlite.query("SELECT workspace_id FROM webhook_subscriptions").all()).toEqual([{ workspace_id: null }]);
  });
});

testOnSqlite("0014: every entity's number is its old id; each project continues after its highest; old references still resolve; new projects number from 1 (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "gatehouse.db"), { migrate: false });
  runMigrations(h.db, migrations.findIndex((m) => m.tag === "0014_qase_per_project_numbers"));
  const at = "2026-11-24T10:00:00.000000Z";
  const run = (sql: string) => h.sqlite.run(sql.replaceAll("@", `'${at}'`));
  run("INSERT INTO tms_projects (id, code, title, created, updated) VALUES (1, 'OLDA', 'A', @, @), (2, 'OLDB', 'B', @, @)");
  // Global ids interleaved between the two projects, as the old numbering left them.
  run("INSERT INTO tms_suites (id, project_id, title, position, created, updated) VALUES (1, 1, 'A suite', 1, @, @), (2, 2, 'B suite', 1, @, @), (3, 2, 'B gone', 2, @, @)");
  run("DELETE FROM tms_suites WHERE id = 3"); // the highest suite id ever issued, deleted: its project is forgotten
  run("INSERT INTO tms_milestones (id, project_id, title, created, updated) VALUES (1, 2, 'B milestone', @, @), (2, 1, 'A milestone', @, @)");
  run(`INSERT INTO tms_cases (id, project_id, suite_id, milestone_id, position, title, created, updated) VALUES
    (1, 1, 1, 2, 1, 'A case 1', @, @), (2, 2, 2, 1, 1, 'B case 2', @, @), (3, 1, 1, NULL, 2, 'A case 3', @, @), (4, 2, NULL, NULL, 1, 'B case 4', @, @)`);
  run("INSERT INTO tms_plans (id, project_id, title, created, updated) VALUES (1, 2, 'B plan', @, @)");
  run("INSERT INTO tms_plan_cases (plan_id, case_id, position) VALUES (1, 2, 1), (1, 4, 2)");
  run("INSERT INTO tms_runs (id, project_id, plan_id, milestone_id, title, start_time) VALUES (1, 1, NULL, 2, 'A run', @), (2, 2, 1, 1, 'B run', @)");
  run("INSERT INTO tms_run_cases (run_id, case_id, position) VALUES (1, 1, 1), (1, 3, 2), (2, 2, 1), (2, 4, 2)");
  run("INSERT INTO tms_defects (id, project_id, title, actual_result, case_id, run_id, created, updated) VALUES (1, 2, 'B defect', 'x', 4, 2, @, @)");
  closeDatabase(h);

  const { createTestApp } = await import("../helpers");
  const t = createTestApp({ dataDir: dir });
  try {
    const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "upgrade" })).json()) as { token: string }).token;
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await t.request(method, `/api/v1${path}`, { body, headers: { token } });
      const json = (await r.json()) as any;
      if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(json)}`);
      return json.result;
    };
    // numbers = the old ids, so every reference held before the upgrade names the same entity
    for (const table of ["tms_cases", "tms_suites", "tms_milestones", "tms_plans", "tms_runs", "tms_defects"])
      expect(t.ctx.sqlite!.query(`SELECT count(*) AS n FROM ${table} WHERE number != id`).get()).toEqual({ n: 0 });
    expect(await api("GET", "/case/OLDA/3")).toMatchObject({ id: 3, title: "A case 3", suite_id: 1 });
    expect(await api("GET", "/case/OLDB/2")).toMatchObject({ id: 2, title: "B case 2", suite_id: 2, milestone_id: 1 });
    expect(await api("GET", "/case/OLDA/1")).toMatchObject({ milestone_id: 2 });
    expect((await api("GET", "/plan/OLDB/1")).cases.map((c: any) => c.case_id)).toEqual([2, 4]);
    expect(await api("GET", "/run/OLDB/2")).toMatchObject({ title: "B run", plan_id: 1, milestone_id: 1, milestone: { id: 1 }, cases: [2, 4] });
    expect(await api("GET", "/run/OLDA/1")).toMatchObject({ title: "A run", milestone_id: 2, milestone: { id: 2 }, cases: [1, 3] });
    expect(await api("GET", "/defect/OLDB/1")).toMatchObject({ case_id: 4, runs: [2] });
    // an old id of the other project is still not found
    expect((await t.request("GET", "/api/v1/case/OLDA/2", { headers: { token } })).status).toBe(404);

    // New entities continue after each project's highest old id...
    expect(await api("POST", "/case/OLDA", { title: "A new" })).toEqual({ id: 4 });
    expect(await api("POST", "/case/OLDB", { title: "B new" })).toEqual({ id: 5 });
    expect(await api("POST", "/milestone/OLDA", { title: "m" })).toEqual({ id: 3 });
    expect(await api("POST", "/milestone/OLDB", { title: "m" })).toEqual({ id: 2 });
    expect(await api("POST", "/run/OLDA", { title: "r" })).toEqual({ id: 2 });
    expect(await api("POST", "/run/OLDB", { title: "r" })).toEqual({ id: 3 });
    expect(await api("POST", "/plan/OLDA", { title: "p", cases: [1] })).toEqual({ id: 1 });
    expect(await api("POST", "/plan/OLDB", { title: "p", cases: [2] })).toEqual({ id: 2 });
    expect(await api("POST", "/defect/OLDB", { title: "d", actual_result: "x", case_id: 2 })).toEqual({ id: 2 });
    // ...and past the highest id ever deleted: suite 3 was deleted, and no project may reissue it
    expect(await api("POST", "/suite/OLDA", { title: "s" })).toEqual({ id: 4 });
    expect(await api("POST", "/suite/OLDB", { title: "s" })).toEqual({ id: 4 });
    // a project created after the upgrade numbers from 1
    await api("POST", "/project", { title: "New", code: "NEWP" });
    expect(await api("POST", "/case/NEWP", { title: "first" })).toEqual({ id: 1 });
    expect(await api("POST", "/suite/NEWP", { title: "first" })).toEqual({ id: 1 });
  } finally {
    t.close();
  }
});

testOnSqlite("0018: custom fields get a workspace; one that reached several is copied into each, and cases there point at the copy, values and order kept (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "gatehouse.db"), { migrate: false });
  runMigrations(h.db, migrations.findIndex((m) => m.tag === "0018_qase_custom_fields_per_workspace"));
  const at = "2026-11-25T10:00:00.000000Z";
  const run = (sql: string) => h.sqlite.run(sql.replaceAll("@", `'${at}'`));
  run("INSERT INTO workspaces (id, name, name_key, created_at, updated_at) VALUES (2, 'Beta', 'beta', @, @), (3, 'Gamma', 'gamma', @, @)");
  run("INSERT INTO tms_projects (id, code, title, workspace_id, created, updated) VALUES (1, 'A', 'A', 1, @, @), (2, 'B', 'B', 2, @, @), (3, 'C', 'C', 2, @, @), (4, 'D', 'D', 3, @, @)");
  const field = (id: number, title: string, type: string, all: boolean, codes: string[], options: unknown = null) =>
    h.sqlite.run(`INSERT INTO tms_custom_fields (id, title, entity, type, options, is_required, is_enabled_for_all_projects, project_codes, created, updated) VALUES (?, ?, 'case', ?, ?, 0, ?, ?, ?, ?)`,
      [id, title, type, options === null ? null : JSON.stringify(options), all ? 1 : 0, JSON.stringify(codes), at, at]);
  field(1, "Component", "selectbox", true, [], [{ id: 1, title: "Web" }, { id: 2, title: "API" }]); // every project of every workspace
  field(2, "Ticket", "string", false, ["B", "A", "C"]); // projects in the default workspace and in Beta
  field(3, "Beta only", "number", false, ["B"]); // Beta's projects only: moves there, keeping its id
  field(4, "Dropped", "text", false, ["A"]); // project D was dropped from it; D's case still holds a value
  field(5, "Nowhere", "checkbox", false, ["NOPE"]); // names no project
  field(6, "Gone", "string", true, []);
  run("DELETE FROM tms_custom_fields WHERE id = 6"); // its old values stay on cases; no copy may take id 6
  const values = (...pairs: [number, string][]) => JSON.stringify(pairs.map(([f, value]) => ({ field_id: String(f), value })));
  const kase = (id: number, project: number, custom: string) =>
    h.sqlite.run("INSERT INTO tms_cases (id, number, project_id, position, title, custom_fields, created, updated) VALUES (?, ?, ?, 1, ?, ?, ?, ?)", [id, id, project, `case ${id}`, custom, at, at]);
  kase(1, 1, values([1, "2"], [2, "T-1"], [4, "note"]));
  kase(2, 2, values([6, "old"], [3, "7"], [2, "T-2"], [1, "1"]));
  kase(3, 4, values([1, "1"], [4, "kept"]));
  kase(4, 3, "[]");
  run("INSERT INTO tms_project_counters (project_id, entity, last) VALUES (1, 'case', 1), (2, 'case', 2), (4, 'case', 3), (3, 'case', 4)");
  closeDatabase(h);

  const { createTestApp } = await import("../helpers");
  const t = createTestApp({ dataDir: dir }); // applies 0018
  try {
    const rows = t.ctx.sqlite!.query("SELECT id, workspace_id AS ws, title, type, options, is_enabled_for_all_projects AS allProjects, project_codes AS codes FROM tms_custom_fields ORDER BY id").all() as any[];
    const component = JSON.stringify([{ id: 1, title: "Web" }, { id: 2, title: "API" }]);
    expect(rows.map((r) => [r.id, r.ws, r.title, r.allProjects, JSON.parse(r.codes)])).toEqual([
      [1, 1, "Component", 1, []],
      [2, 1, "Ticket", 0, ["A"]],
      [3, 2, "Beta only", 0, ["B"]],
      [4, 1, "Dropped", 0, ["A"]],
      [5, 1, "Nowhere", 0, []],
      [7, 2, "Component", 1, []],
      [8, 3, "Component", 1, []],
      [9, 2, "Ticket", 0, ["B", "C"]],
      [10, 3, "Dropped", 0, []],
    ]);
    expect(rows.filter((r) => r.title === "Component").map((r) => r.options)).toEqual([component, component, component]);
    const custom = (id: number) => JSON.parse((t.ctx.sqlite!.query("SELECT custom_fields AS c FROM tms_cases WHERE id = ?").get(id) as { c: string }).c);
    expect(custom(1)).toEqual(JSON.parse(values([1, "2"], [2, "T-1"], [4, "note"])));
    expect(custom(2)).toEqual(JSON.parse(values([6, "old"], [3, "7"], [9, "T-2"], [7, "1"])));
    expect(custom(3)).toEqual(JSON.parse(values([8, "1"], [10, "kept"])));
    expect(custom(4)).toEqual([]);

    // Through the API: each workspace's token sees its own fields, and they still apply where they did.
    const tokenOf = async (workspaceId: number) => ((await (await t.admin("POST", "/api/admin/api-tokens", { name: `ws${workspaceId}`, workspaceId })).json()) as { token: string }).token;
    const tokens = { 1: await tokenOf(1), 2: await tokenOf(2), 3: await tokenOf(3) };
    const api = async (ws: 1 | 2 | 3, method: string, path: string, body?: unknown) => {
      const r = await t.request(method, `/api/v1${path}`, { body, headers: { token: tokens[ws] } });
      return { status: r.status, body: (await r.json()) as any };
    };
    const ids = async (ws: 1 | 2 | 3) => (await api(ws, "GET", "/custom_field?limit=100")).body.result.entities.map((f: any) => f.id);
    expect([await ids(1), await ids(2), await ids(3)]).toEqual([[1, 2, 4, 5], [3, 7, 9], [8, 10]]);
    // Field 6 was deleted: its stored value stays (above) but the API shows only live fields' values.
    expect((await api(2, "GET", "/case/B/2")).body.result.custom_fields).toEqual([{ id: 3, value: "7" }, { id: 9, value: "T-2" }, { id: 7, value: "1" }]);
    const created = await api(2, "POST", "/case/C", { title: "after the upgrade", custom_field: { 9: "T-3", 7: "API" } });
    expect(created.status).toBe(200);
    expect((await api(2, "GET", `/case/C/${created.body.result.id}`)).body.result.custom_fields).toEqual([{ id: 7, value: "2" }, { id: 9, value: "T-3" }]);
    expect((await api(1, "POST", "/case/A", { title: "x", custom_field: { 9: "T-4" } })).body.error.field).toBe("custom_field.9");
    expect((await api(1, "POST", "/case/A", { title: "x", custom_field: { 2: "T-4", 1: "Web" } })).status).toBe(200);
    // a new field takes the next id after the copies
    expect((await api(3, "POST", "/custom_field", { title: "New", entity: "case", type: "string" })).body.result).toEqual({ id: 11 });
  } finally {
    t.close();
  }
});

testOnSqlite("the stored-names repair: result steps and selectbox options stored unreadable before the #23 fix read again, once per database (SQLite files of older releases; PostgreSQL databases start at today's schema)", async () => {
  const { createTestApp } = await import("../helpers");
  const t = createTestApp();
  try {
    const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "repair" })).json()) as { token: string }).token;
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await t.request(method, `/api/v1${path}`, { body, headers: { token } });
      return { status: r.status, body: (await r.json()) as any };
    };
    await api("POST", "/project", { title: "Repair", code: "REP" });
    await api("POST", "/case/REP", { title: "c" });
    const run = (await api("POST", "/run/REP", { title: "r", cases: [1] })).body.result.id;
    const hash = (await api("POST", `/result/REP/${run}`, { case_id: 1, status: "failed", steps: [{ position: 1, status: "passed" }, { position: 2, status: "failed" }] })).body.result.hash;
    const field = (await api("POST", "/custom_field", { title: "F", entity: "case", type: "selectbox", value: [{ title: "a" }, { title: "b" }, { title: "c" }] })).body.result.id;
    // what the unfixed code stored: "constructor" → no status, "__proto__" → {}; an option's title dropped or {}
    const step = (position: number, status: unknown, steps: unknown[] = []) => ({ position, ...(status === undefined ? {} : { status }), comment: null, action: "", expected_result: null, data: null, attachments: [], steps });
    t.ctx.sqlite!.run("UPDATE tms_results SET steps = ? WHERE hash = ?", [JSON.stringify([step(1, undefined, [step(1, {})]), step(2, "failed")]), hash]);
    t.ctx.sqlite!.run("UPDATE tms_custom_fields SET options = ? WHERE id = ?", [JSON.stringify([{ id: 1 }, { id: 2, title: {} }, { id: 3, title: "c" }]), field]);
    t.ctx.sqlite!.run("DELETE FROM settings WHERE key = 'tms.prototype_names_repaired'");
    expect((await api("GET", "/result/REP")).status).toBe(500);

    const lines: string[] = [];
    migrateDatabase(t.ctx.db, (l) => lines.push(l)); // what the next start runs
    expect(lines).toEqual([
      `result ${hash}: a step status that was stored unreadable is now "invalid"`,
      `custom field ${field}: an option title lost on a replace_values PATCH is now "Option <id>"; rename it`,
    ]);
    const one = await api("GET", `/result/REP/${hash}`);
    expect(one.status).toBe(200);
    const result = one.body.result;
    expect(result.steps.map((s: any) => [s.status, s.steps.map((x: any) => x.status)])).toEqual([[8, [8]], [2, []]]); // 8 = invalid
    expect(JSON.parse((await api("GET", `/custom_field/${field}`)).body.result.value)).toEqual([{ id: 1, title: "Option 1" }, { id: 2, title: "Option 2" }, { id: 3, title: "c" }]);
    expect((await api("GET", "/result/REP")).status).toBe(200);

    t.ctx.sqlite!.run("UPDATE tms_custom_fields SET options = ? WHERE id = ?", [JSON.stringify([{ id: 1 }]), field]);
    migrateDatabase(t.ctx.db, (l) => lines.push(l));
    expect(lines.length).toBe(2); // ran once: the marker stays
  } finally {
    t.close();
  }
});
