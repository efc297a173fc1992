/**
 * Moving an instance from SQLite to PostgreSQL (src/db/postgres/copy-from-sqlite.ts) on a real
 * server: an instance populated through the app's HTTP surface is copied, then every table is
 * compared row by row; identities continue after the copied ids; tokens keep working; and every
 * refusal (non-empty target, older or newer source, a running server, a row PostgreSQL rejects)
 * leaves the target without a row.
 */
import { afterAll, afterEach, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { runCli } from "../../src/cli";
import { parseCommandLine } from "../../src/cli/args";
import { openDatabase, closeDatabase } from "../../src/db/connection";
import { lockDataDir } from "../../src/db/data-dir-lock";
import { DatabaseNewerThanBinaryError, runMigrations } from "../../src/db/migrate";
import { migrations as sqliteMigrations } from "../../src/db/migrations.generated";
import { copyDataDirToPostgres, CopyRefusedError, SEED_ROWS } from "../../src/db/postgres/copy-from-sqlite";
import { RECORDED_KEY_SETTING } from "../../src/server/secret-key";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { hashToken } from "../../src/lib/tokens";
import { startDeliveryLoop } from "../../src/webhooks/dispatcher";
import { until } from "../helpers";
import { sqliteInstance } from "../support/sqlite-instance";
import { startReceiver } from "../webhooks/harness";
import { jsonLines } from "../cli/json-lines";
import { freshDatabase, testServerUrl } from "../support/postgres";
import { openTestNode } from "../support/in-process-nodes";
import { useEngine } from "../../src/db/engine";

/** Each test copies into a real server and compares: seconds on a loaded machine. */
const PG_TEST_MS = 60_000;

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0, 255, 7]);

const root = mkdtempSync(join(tmpdir(), "gatehouse-copy-"));
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  if (source) rmSync(source.dir, { recursive: true, force: true });
});

/** The populated instance's data directory (a consistent backup of the app's database) and what it handed out. */
let source: { dir: string; scimToken: string; apiTokens: string[]; reads: { users: unknown; cases: unknown } };

/**
 * One instance with a row in every kind of table that matters: users (e-mails, enterprise
 * extension; one deactivated, one deleted), groups with
 * members, two workspaces, projects with numbered suites (nested), cases, runs, results, defects,
 * milestones (the one with the highest id deleted) and plans, an attachment (bytes with 0x00 and 0xff), webhook subscriptions with
 * failed and pending deliveries, SCIM, API and admin tokens, and the audit entries all of it left.
 */
async function populate(): Promise<typeof source> {
  const receiver = startReceiver(() => new Response("down", { status: 500 }));
  const t = sqliteInstance({ webhookAllowPrivateTargets: true, webhookPollIntervalMs: 20, webhookTimeoutMs: 1000, webhookRetrySchedule: [10] });
  try {
    const admin = async (method: string, path: string, body?: unknown, status = [200, 201]) => {
      const r = await t.admin(method, path, body);
      if (!status.includes(r.status)) throw new Error(`${method} ${path} → ${r.status} ${await r.text()}`);
      const text = await r.text();
      return text ? JSON.parse(text) : null;
    };
    const second = await admin("POST", "/api/admin/workspaces", { name: "Contractors" });
    const scimToken = (await admin("POST", "/api/admin/scim-tokens", { name: "Entra" })).token as string;
    const scimToken2 = (await admin("POST", "/api/admin/scim-tokens", { name: "Okta contractors", workspaceId: second.id })).token as string;
    await admin("POST", "/api/admin/admin-tokens", { name: "ci", role: "viewer", expiresInDays: 30 });
    const apiTokens = [(await admin("POST", "/api/admin/api-tokens", { name: "reporter" })).token as string, (await admin("POST", "/api/admin/api-tokens", { name: "contractors", workspaceId: second.id })).token as string];

    const scim = async (token: string, method: string, path: string, body?: unknown) => {
      const r = await t.request(method, `/scim/v2${path}`, { body, headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" } });
      if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${await r.text()}`);
      const text = await r.text();
      return text ? JSON.parse(text) : null;
    };
    const users: string[] = [];
    for (const [i, name] of ["Ada", "Grace", "Émile", "Linus", "Zoë"].entries()) {
      const u = await scim(i < 4 ? scimToken : scimToken2, "POST", "/Users", {
        schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENTERPRISE],
        userName: `${name.toLowerCase()}@example.com`,
        name: { givenName: name, familyName: "Test" },
        displayName: `${name} Test`,
        emails: [{ value: `${name.toLowerCase()}@example.com`, type: "work", primary: true }, { value: `${name.toLowerCase()}@home.example`, type: "home" }],
        [ENTERPRISE]: { employeeNumber: String(1000 + i), department: "QA", manager: users[0] ? { value: users[0] } : undefined },
      });
      users.push(u.id);
    }
    await scim(scimToken, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Testers", members: users.slice(0, 3).map((value) => ({ value })) });
    await scim(scimToken, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Leads", members: [{ value: users[1] }] });
    await scim(scimToken, "PATCH", `/Users/${users[2]}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] });
    await scim(scimToken, "DELETE", `/Users/${users[3]}`);

    const v1 = async (token: string, method: string, path: string, body?: unknown) => {
      const r = await t.request(method, `/api/v1${path}`, { body, headers: { token } });
      if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${await r.text()}`);
      return ((await r.json()) as { result: any }).result;
    };
    // The first subscription's receiver answers 500 and the retry schedule is one 10 ms retry: its deliveries fail.
    await admin("POST", "/api/admin/webhooks", { url: receiver.url, events: ["*"], description: "always down" });
    const loop = startDeliveryLoop(t.ctx);
    await v1(apiTokens[0]!, "POST", "/project", { title: "Web shop", code: "SHOP" });
    await v1(apiTokens[0]!, "POST", "/case/SHOP", { title: "before the backlog" });
    const failed = async () => (await admin("GET", "/api/admin/webhooks/1/deliveries?status=failed")).total;
    await until(async () => (await failed()) === 1, "a failed delivery");
    await loop.stop();
    // From here on no loop runs: the events of what follows stay pending, for both subscriptions.
    await admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/gatehouse", events: ["case.created", "run.completed"], project: "SHOP" });

    for (const [token, code] of [[apiTokens[0]!, "SHOP"], [apiTokens[0]!, "API"], [apiTokens[1]!, "EXT"]] as const) {
      if (code !== "SHOP") await v1(token, "POST", "/project", { title: `Project ${code}`, code });
      const milestone = (await v1(token, "POST", `/milestone/${code}`, { title: "1.0" })).id;
      const top = (await v1(token, "POST", `/suite/${code}`, { title: "Checkout" })).id;
      const child = (await v1(token, "POST", `/suite/${code}`, { title: "Payment", parent_id: top })).id;
      // A suite moved under one created after it: the copy must insert the newer suite first.
      const moved = (await v1(token, "POST", `/suite/${code}`, { title: "Moved" })).id;
      const later = (await v1(token, "POST", `/suite/${code}`, { title: "Created later" })).id;
      await v1(token, "PATCH", `/suite/${code}/${moved}`, { parent_id: later });
      const cases: number[] = [];
      for (let i = 0; i < 4; i++) cases.push((await v1(token, "POST", `/case/${code}`, { title: `Pays with card ${i}`, suite_id: i % 2 ? top : child, milestone_id: milestone, tags: ["smoke", `t${i}`], steps: [{ action: "Open", expected_result: "Opened" }] })).id);
      const plan = (await v1(token, "POST", `/plan/${code}`, { title: "Regression", cases })).id;
      const run = (await v1(token, "POST", `/run/${code}`, { title: "Nightly", cases, plan_id: plan })).id;
      for (const [i, c] of cases.entries()) await v1(token, "POST", `/result/${code}/${run}`, { case_id: c, status: i === 0 ? "failed" : "passed", comment: `attempt ${i}`, time_ms: 1200 + i });
      await v1(token, "POST", `/defect/${code}`, { title: "Card declined", actual_result: "500", severity: 2 });
      const form = new FormData();
      form.append("file", new File([PNG], "screen.png"));
      const up = await t.app.handle(new Request(`http://localhost/api/v1/attachment/${code}`, { method: "POST", headers: { token }, body: form }));
      if (up.status !== 200) throw new Error(`attachment: ${up.status} ${await up.text()}`);
      await v1(token, "POST", `/run/${code}/${run}/complete`);
    }

    // The milestone with the highest id is deleted: SQLite (AUTOINCREMENT) never hands its id out again.
    const doomed = (await v1(apiTokens[0]!, "POST", "/milestone/SHOP", { title: "deleted" })).id;
    await v1(apiTokens[0]!, "DELETE", `/milestone/SHOP/${doomed}`);

    const reads = {
      users: await (await t.request("GET", "/scim/v2/Users?sortBy=userName", { headers: { authorization: `Bearer ${scimToken}` } })).json(),
      cases: await (await t.request("GET", "/api/v1/case/SHOP?limit=100", { headers: { token: apiTokens[0]! } })).json(),
    };
    return { dir: t.dir, scimToken, apiTokens, reads };
  } finally {
    await t.close();
    receiver.stop();
  }
}

beforeAll(async () => {
  testServerUrl(); // starts the test server when the run has none, outside any test's time limit
  source = await populate();
}, 60_000);

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A fresh, empty PostgreSQL database and a client of it (int8 as numbers, as Gatehouse reads them); dropped after the test. */
async function target(): Promise<postgres.Sql> {
  return (await targetWithUrl()).sql;
}

async function targetWithUrl(): Promise<{ sql: postgres.Sql; url: string }> {
  const db = await freshDatabase("copy");
  const sql = postgres(db.url, { max: 2, onnotice: () => {}, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } as never } });
  cleanups.push(() => db.drop(), () => sql.end());
  return { sql, url: db.url };
}

/** A copy of the source's data directory for a test that changes it. */
function sourceCopy(name: string): string {
  const dir = join(root, name);
  mkdirSync(dir);
  copyFileSync(join(source.dir, "gatehouse.db"), join(dir, "gatehouse.db"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const tableNames = (db: Database) =>
  db.query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations' ORDER BY name`).all().map((r) => r.name);

/** Values as both engines can be compared: bytes as hex, integers as numbers. */
const normalise = (row: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(row).map(([k, v]) => [k, v instanceof Uint8Array ? Buffer.from(v).toString("hex") : typeof v === "bigint" ? Number(v) : v]));

async function rowCount(sql: postgres.Sql, table: string): Promise<number> {
  return (await sql.unsafe<{ n: number }[]>(`SELECT count(*)::int AS n FROM "${table}"`))[0]!.n;
}

async function totalRows(sql: postgres.Sql): Promise<number> {
  const tables = await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> '__drizzle_migrations'`;
  let n = 0;
  for (const { name } of tables) n += await rowCount(sql, name);
  return n;
}

test("every row of every table is copied, ids kept, in one transaction; the counts are reported", async () => {
  const sql = await target();
  const told: string[] = [];
  const report = await copyDataDirToPostgres(source.dir, sql, { batchRows: 3, onTable: ({ table }) => told.push(table) });

  const db = new Database(join(source.dir, "gatehouse.db"), { readonly: true });
  try {
    const tables = tableNames(db);
    expect(report.tables.map((t) => t.table).sort()).toEqual(tables);
    expect(told.sort()).toEqual(tables);
    expect(report.migrationsApplied).toBeGreaterThan(0);
    let total = 0;
    for (const table of tables) {
      const key = db.query<{ name: string }, [string]>(`SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk`).all(table).map((c) => `"${c.name}"`);
      const columns = db.query<{ name: string }, [string]>(`SELECT name FROM pragma_table_info(?1) ORDER BY cid`).all(table).map((c) => `"${c.name}"`);
      const order = (key.length ? key : columns).join(", ");
      const inSqlite = db.query<Record<string, unknown>, []>(`SELECT ${columns.join(", ")} FROM "${table}" ORDER BY ${order}`).all().map(normalise);
      const inPostgres = [...(await sql.unsafe<Record<string, unknown>[]>(`SELECT ${columns.join(", ")} FROM "${table}" ORDER BY ${order}`))].map(normalise);
      expect({ table, rows: inPostgres }).toEqual({ table, rows: inSqlite });
      expect(report.tables.find((t) => t.table === table)!.rows).toBe(inSqlite.length);
      total += inSqlite.length;
    }
    expect(report.rows).toBe(total);

    // The instance had a row in each of these: the comparison above compared something.
    const filled = ["users", "user_emails", "groups", "group_members", "workspaces", "workspace_members", "scim_tokens", "api_tokens", "admin_tokens", "audit_log", "scim_activity",
      "tms_projects", "tms_project_counters", "tms_suites", "tms_cases", "tms_milestones", "tms_plans", "tms_plan_cases", "tms_runs", "tms_run_cases", "tms_results", "tms_defects", "tms_attachments",
      "webhook_subscriptions", "webhook_events", "webhook_deliveries", "webhook_attempts"];
    for (const table of filled) expect({ table, rows: report.tables.find((t) => t.table === table)!.rows > 0 }).toEqual({ table, rows: true });
    expect((await sql`SELECT count(*)::int AS n FROM workspaces`)[0]!.n).toBe(2);
    const deliveries = await sql<{ status: string; n: number }[]>`SELECT status, count(*)::int AS n FROM webhook_deliveries GROUP BY status ORDER BY status`;
    expect(deliveries.map((d) => d.status)).toEqual(["failed", "pending"]);
    const attachment = await sql<{ bytes: Uint8Array }[]>`SELECT content AS bytes FROM tms_attachments ORDER BY id LIMIT 1`;
    expect(Buffer.from(attachment[0]!.bytes).equals(Buffer.from(PNG))).toBe(true);
    // tms_results' insertion_seq (PostgreSQL's stand-in for rowid) follows SQLite's rowid order.
    const sqliteOrder = db.query<{ hash: string }, []>(`SELECT hash FROM tms_results ORDER BY rowid`).all().map((r) => r.hash);
    expect((await sql<{ hash: string }[]>`SELECT hash FROM tms_results ORDER BY insertion_seq`).map((r) => r.hash)).toEqual(sqliteOrder);
  } finally {
    db.close();
  }
}, PG_TEST_MS);

test("every identity continues after the copied ids and after every id SQLite handed out (a deleted milestone's id is not reused)", async () => {
  const sql = await target();
  await copyDataDirToPostgres(source.dir, sql);
  const db = new Database(join(source.dir, "gatehouse.db"), { readonly: true });
  try {
    const handedOut = new Map(db.query<{ name: string; seq: number }, []>(`SELECT name, seq FROM sqlite_sequence`).all().map((r) => [r.name, r.seq]));
    const maxMilestone = db.query<{ n: number }, []>(`SELECT max(id) AS n FROM tms_milestones`).get()!.n;
    expect(handedOut.get("tms_milestones")!).toBe(maxMilestone + 1); // the deleted milestone had the highest id
    const identities = await sql<{ table: string; column: string }[]>`
      SELECT table_name AS table, column_name AS column FROM information_schema.columns
      WHERE table_schema = current_schema() AND is_identity = 'YES' AND identity_generation = 'BY DEFAULT' AND table_name <> '__drizzle_migrations'`;
    expect(identities.length).toBeGreaterThan(20);
    for (const { table, column } of identities) {
      const max = (await sql.unsafe<{ n: number | null }[]>(`SELECT max("${column}") AS n FROM "${table}"`))[0]!.n ?? 0;
      const next = (await sql.unsafe<{ n: number }[]>(`SELECT nextval(pg_get_serial_sequence('"${table}"', '${column}')) AS n`))[0]!.n;
      expect({ table, next }).toEqual({ table, next: Math.max(max, handedOut.get(table) ?? 0) + 1 });
    }
    // An insert that names no id gets the next one.
    const [ws] = await sql<{ id: number }[]>`INSERT INTO workspaces (name, name_key, created_at, updated_at) VALUES ('Third', 'third', '2026-11-27T00:00:00.000Z', '2026-11-27T00:00:00.000Z') RETURNING id`;
    expect(ws!.id).toBe(Math.max(handedOut.get("workspaces")!, 2) + 2); // nextval above took one
  } finally {
    db.close();
  }
}, PG_TEST_MS);

test("per-project numbers continue after the copied counters on PostgreSQL: the next case, and a milestone after a deleted one, through the API of a node on the copy", async () => {
  const { sql, url } = await targetWithUrl();
  await copyDataDirToPostgres(source.dir, sql);
  const db = new Database(join(source.dir, "gatehouse.db"), { readonly: true });
  const last = (entity: string) => db.query<{ last: number }, [string]>(`SELECT c.last FROM tms_project_counters c JOIN tms_projects p ON p.id = c.project_id WHERE p.code = 'SHOP' AND c.entity = ?1`).get(entity)!.last;
  const [lastCase, lastMilestone] = [last("case"), last("milestone")];
  db.close();
  const node = openTestNode(url);
  try {
    const create = async (path: string, body: unknown) => {
      const r = await node.request("POST", `/api/v1${path}`, { body, headers: { token: source.apiTokens[0]! } });
      expect(r.status).toBe(200);
      return ((await r.json()) as { result: { id: number } }).result.id;
    };
    expect(await create("/case/SHOP", { title: "after the move" })).toBe(lastCase + 1);
    // The counter, not max(number) + 1: the deleted milestone held the highest number.
    expect(await create("/milestone/SHOP", { title: "after the move" })).toBe(lastMilestone + 1);
  } finally {
    await node.close();
    useEngine("sqlite");
  }
}, PG_TEST_MS);

test("tokens stay valid: the hashes of the bearer tokens handed out are the copied ones", async () => {
  const sql = await target();
  await copyDataDirToPostgres(source.dir, sql);
  expect((await sql`SELECT count(*)::int AS n FROM scim_tokens WHERE token_hash = ${hashToken(source.scimToken)} AND revoked_at IS NULL`)[0]!.n).toBe(1);
  for (const token of source.apiTokens) expect((await sql`SELECT count(*)::int AS n FROM api_tokens WHERE token_hash = ${hashToken(token)}`)[0]!.n).toBe(1);
}, PG_TEST_MS);

test("a second copy into the same database is refused before writing anything: the target is not empty", async () => {
  const sql = await target();
  await copyDataDirToPostgres(source.dir, sql);
  const before = await totalRows(sql);
  const error = await copyDataDirToPostgres(source.dir, sql).catch((e) => e);
  expect(error).toBeInstanceOf(CopyRefusedError);
  expect(error.message).toContain("the target database is not empty (rows in ");
  expect(await totalRows(sql)).toBe(before);
}, PG_TEST_MS);

test("a target holding a single row of its own is refused, and keeps that row and nothing more", async () => {
  const sql = await target();
  await migratePostgres(sql);
  await sql`INSERT INTO admin_tokens (name, role, token_hash, created_by, created_at, expires_at) VALUES ('x', 'owner', 'h', 'me', 0, 0)`;
  const error = await copyDataDirToPostgres(source.dir, sql).catch((e) => e);
  expect(error).toBeInstanceOf(CopyRefusedError);
  expect(error.message).toStartWith("the target database is not empty (rows in admin_tokens)");
  expect(await totalRows(sql)).toBe(2); // that row and the seed workspace
}, PG_TEST_MS);

test("a freshly migrated database holds only the seed rows the copy knows to replace", async () => {
  const sql = await target();
  await migratePostgres(sql);
  const tables = await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> '__drizzle_migrations'`;
  const holding = [];
  for (const { name } of tables) if ((await rowCount(sql, name)) > 0) holding.push(name);
  expect(holding.sort()).toEqual([...SEED_ROWS.keys()].sort());
  for (const [table, seed] of SEED_ROWS) expect((await sql.unsafe(`SELECT count(*)::int AS n FROM "${table}" WHERE NOT (${seed})`))[0]!.n).toBe(0);
  // …and a copy into it (a node already ran on the empty database: it recorded its secret key's
  // id, and /readyz probed a full disk) succeeds; the source's settings replace the node's.
  await sql`INSERT INTO settings (key, value) VALUES (${RECORDED_KEY_SETTING}, 'a-started-node'), ('readyz.write_probe', 'x')`;
  const report = await copyDataDirToPostgres(source.dir, sql);
  expect(report.migrationsApplied).toBe(0);
  expect(await rowCount(sql, "workspaces")).toBe(2);
  expect((await sql`SELECT value FROM settings WHERE key IN (${RECORDED_KEY_SETTING}, 'readyz.write_probe')`).length).toBe(0); // the source, never served by startGatehouse, recorded none
}, PG_TEST_MS);

test("a source at an older schema is refused with the way to upgrade it; the target is not touched", async () => {
  const dir = join(root, "older");
  const h = openDatabase(join(dir, "gatehouse.db"), { migrate: false });
  runMigrations(h.db, sqliteMigrations.length - 1);
  closeDatabase(h);
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  const sql = await target();
  const error = await copyDataDirToPostgres(dir, sql).catch((e) => e);
  expect(error).toBeInstanceOf(CopyRefusedError);
  expect(error.message).toContain(`at schema version ${sqliteMigrations.length - 2}; this Gatehouse copies schema version ${sqliteMigrations.length - 1} only`);
  expect(error.message).toContain("gatehouse migrate");
  expect([...(await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)]).toEqual([]);
}, PG_TEST_MS);

test("a source a newer Gatehouse migrated is refused as the server refuses it (exit 2)", async () => {
  const dir = sourceCopy("newer");
  const db = new Database(join(dir, "gatehouse.db"));
  db.run(`INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('future', 99999999999999)`);
  db.close();
  const sql = await target();
  const error = await copyDataDirToPostgres(dir, sql).catch((e) => e);
  expect(error).toBeInstanceOf(DatabaseNewerThanBinaryError);
  expect([...(await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)]).toEqual([]);
}, PG_TEST_MS);

test("a data directory a server is running on is refused (its lock is held); so is one without a database", async () => {
  const dir = sourceCopy("serving");
  const lock = lockDataDir(dir)!;
  try {
    const sql = await target();
    const error = await copyDataDirToPostgres(dir, sql).catch((e) => e);
    expect(error).toBeInstanceOf(CopyRefusedError);
    expect(error.message).toContain("is in use by a running gatehouse serve");
    const none = await copyDataDirToPostgres(join(root, "nothing-here"), sql).catch((e) => e);
    expect(none).toBeInstanceOf(CopyRefusedError);
    expect(none.message).toStartWith("no database at ");
    expect([...(await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)]).toEqual([]);
  } finally {
    lock.release();
  }
}, PG_TEST_MS);

test("a row PostgreSQL rejects halfway through fails the copy with the table named, and the target keeps no row", async () => {
  const dir = sourceCopy("nul");
  const db = new Database(join(dir, "gatehouse.db"));
  // SQLite keeps a NUL inside text; PostgreSQL's text cannot hold one. tms_results is copied late.
  db.run(`UPDATE tms_results SET comment = 'bad' || char(0) || 'byte' WHERE rowid = (SELECT max(rowid) FROM tms_results)`);
  db.close();
  const sql = await target();
  const error = await copyDataDirToPostgres(dir, sql, { batchRows: 2 }).catch((e) => e);
  expect(error).toBeInstanceOf(CopyRefusedError); // exit 2: a retry would meet the same row
  expect(error.message).toStartWith("copying tms_results (rows ");
  expect(error.message).toEndWith("nothing was written");
  expect(await totalRows(sql)).toBe(1); // the migrated database's seed row, as before the copy
}, PG_TEST_MS);

test("a foreign key pointing at no row in the source is named before anything is written", async () => {
  const dir = sourceCopy("dangling");
  const db = new Database(join(dir, "gatehouse.db"));
  db.run(`UPDATE group_members SET user_id = 987654 WHERE rowid = (SELECT min(rowid) FROM group_members)`); // foreign_keys is off on this connection
  db.close();
  const sql = await target();
  const error = await copyDataDirToPostgres(dir, sql).catch((e) => e);
  expect(error).toBeInstanceOf(CopyRefusedError);
  expect(error.message).toMatch(/^the SQLite database has 1 row\(s\) whose foreign key points at no row \(group_members row \d+ → users\)/);
  expect([...(await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)]).toEqual([]);
}, PG_TEST_MS);

/** `gatehouse …` in this process, with an env file of `settings` (each command reads its instance from it). */
async function cli(args: string[], settings: Record<string, string>) {
  const envFile = join(root, `cli-${Math.random().toString(36).slice(2)}.env`);
  writeFileSync(envFile, Object.entries(settings).map(([k, v]) => `${k}=${v}\n`).join(""));
  cleanups.push(() => rmSync(envFile, { force: true }));
  let out = "";
  let err = "";
  const code = await runCli([...args, "--env-file", envFile], {}, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err: jsonLines(err).text };
}

/** The test server trusts 127.0.0.1, so a password in the URL is sent nowhere: it only has to stay out of every line. */
const withPassword = (url: string) => {
  const u = new URL(url);
  u.password = "s3cret-Passw0rd";
  return u.toString();
};

test("CLI: copy-to-postgres <url> copies, prints every table's count and the total, never the password; a second run exits 2", async () => {
  const { sql, url } = await targetWithUrl();
  const first = await cli(["copy-to-postgres", withPassword(url)], { GATEHOUSE_DATA_DIR: source.dir });
  expect(first.code).toBe(0);
  const users = (await sql`SELECT count(*)::int AS n FROM users`)[0]!.n;
  expect(first.out).toMatch(new RegExp(`\\nusers +${users}\\n`));
  expect(first.out).toMatch(/\ntotal +\d+ rows in \d+ tables, [\d.]+ s; every count checked equal on both sides\n/);
  expect(first.out).toContain(`copied ${join(source.dir, "gatehouse.db")}\n    to postgres://gatehouse:***@127.0.0.1:`);
  expect(first.err).toContain("table copied (not yet committed)");
  for (const text of [first.out, first.err]) expect(text).not.toContain("s3cret-Passw0rd");

  const second = await cli(["copy-to-postgres", withPassword(url)], { GATEHOUSE_DATA_DIR: source.dir });
  expect(second.code).toBe(2);
  expect(second.err).toContain("the target database is not empty");
  expect(second.out).toBe("");
  for (const text of [second.out, second.err]) expect(text).not.toContain("s3cret-Passw0rd");
}, PG_TEST_MS);

test("CLI: without a URL the configuration's GATEHOUSE_DATABASE_URL is the target; with neither, exit 2 saying so", async () => {
  const { sql, url } = await targetWithUrl();
  const copied = await cli(["copy-to-postgres"], { GATEHOUSE_DATA_DIR: source.dir, GATEHOUSE_DATABASE_URL: withPassword(url) });
  expect(copied.code).toBe(0);
  expect(copied.out).toContain("The configuration names this database (GATEHOUSE_DATABASE_URL): start the server.");
  expect((await sql`SELECT count(*)::int AS n FROM workspaces`)[0]!.n).toBe(2);

  const none = await cli(["copy-to-postgres"], { GATEHOUSE_DATA_DIR: source.dir });
  expect(none.code).toBe(2);
  expect(none.err).toStartWith("copy-to-postgres needs the target database");
}, PG_TEST_MS);

test("CLI: a bad target URL, a running server and a source at an older schema exit 2 with nothing written", async () => {
  const bad = await cli(["copy-to-postgres", "mysql://me:pa55word@db/x"], { GATEHOUSE_DATA_DIR: source.dir });
  expect(bad.code).toBe(2);
  expect(bad.err).toStartWith("copy-to-postgres: the target URL: expected ");
  expect(bad.err).not.toContain("pa55word");

  const { sql, url } = await targetWithUrl();
  const dir = sourceCopy("cli-serving");
  const lock = lockDataDir(dir)!;
  try {
    const serving = await cli(["copy-to-postgres", url], { GATEHOUSE_DATA_DIR: dir });
    expect(serving.code).toBe(2);
    expect(serving.err).toContain("is in use by a running gatehouse serve");
  } finally {
    lock.release();
  }
  const db = new Database(join(dir, "gatehouse.db"));
  db.run(`DELETE FROM __drizzle_migrations WHERE rowid = (SELECT max(rowid) FROM __drizzle_migrations)`);
  db.close();
  const older = await cli(["copy-to-postgres", url], { GATEHOUSE_DATA_DIR: dir });
  expect(older.code).toBe(2);
  expect(older.err).toContain("run `gatehouse migrate` with the same --env-file");
  expect([...(await sql`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`)]).toEqual([]);
}, PG_TEST_MS);

test("CLI grammar: one optional URL, help of its own", () => {
  expect(parseCommandLine(["copy-to-postgres"])).toEqual({ ok: true, command: { name: "copy-to-postgres", envFile: null, url: null } });
  expect(parseCommandLine(["copy-to-postgres", "postgres://db/x", "--env-file", "f"])).toEqual({ ok: true, command: { name: "copy-to-postgres", envFile: "f", url: "postgres://db/x" } });
  expect(parseCommandLine(["copy-to-postgres", "a", "b"])).toEqual({ ok: false, error: "unexpected argument b for copy-to-postgres" });
  expect(parseCommandLine(["copy-to-postgres", "--force"])).toEqual({ ok: false, error: "unknown option --force for copy-to-postgres" });
  expect(parseCommandLine(["copy-to-postgres", "--help"])).toEqual({ ok: true, command: { name: "help", topic: "copy-to-postgres" } });
});
