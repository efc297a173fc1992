/**
 * Moving an instance with the compiled binary (PostgreSQL's migrations embedded, postgres.js
 * bundled) against a real server: an instance populated through the binary's HTTP surface on
 * SQLite — users, groups, two workspaces, projects with numbered entities, an attachment, tokens,
 * a subscription whose receiver is down (a backlog) — is copied by `gatehouse copy-to-postgres`.
 * Killed with SIGKILL in the middle of the copy, the target keeps no row and the next run copies
 * everything; a third run is refused (exit 2). Then the binary started on PostgreSQL answers the
 * same reads as it did on SQLite, the tokens still work, and the backlog reaches the receiver.
 * (PostgreSQL on either run: the copy's target is one.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { hashToken } from "../../src/lib/tokens";
import { jsonLines } from "../cli/json-lines";
import { until } from "../helpers";
import { freshDatabase, testServerUrl } from "../support/postgres";
import { startReceiver } from "../webhooks/harness";
import { buildBinary, runBinaryCommand, startBinary, type RunningBinary } from "./binary";

const root = mkdtempSync(join(tmpdir(), "gatehouse-copy-e2e-"));
const dataDir = join(root, "data");
const ADMIN = "copy-e2e-admin-token-0123456789";
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0, 255, 7]);
let target: { url: string; drop(): Promise<void> };
let sql: postgres.Sql;

/** Audit entries added under the app (no foreign keys): enough rows that the copy lasts seconds, so the kill lands inside it. */
const FILLER_ROWS = 60_000;

// The subscriber is down while the instance runs on SQLite: its deliveries wait for a retry (the
// backlog), which is due again on PostgreSQL, once it is back up.
let receiverUp = false;
const rx = startReceiver(() => new Response(receiverUp ? "ok" : "down", { status: receiverUp ? 200 : 503 }));

/** The same instance on either engine: its data directory (the secret key of the webhook secrets) and settings. */
const settings = {
  GATEHOUSE_ADMIN_TOKEN: ADMIN,
  GATEHOUSE_DATA_DIR: dataDir,
  GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "100",
  GATEHOUSE_WEBHOOK_TIMEOUT_MS: "1000",
  // Retries every second for long enough that none fails for good before the move.
  GATEHOUSE_WEBHOOK_RETRY_SCHEDULE: Array.from({ length: 60 }, () => "1s").join(","),
};

/** What the instance handed out and what it answered on SQLite, read again on PostgreSQL. */
let source: { scimTokens: string[]; apiTokens: string[]; subscription: number; backlog: string[]; attachment: string; reads: Map<string, unknown> };

/** A request to a running binary; throws on an unexpected status. */
async function call(bin: RunningBinary, method: string, path: string, headers: Record<string, string>, body?: unknown, form?: FormData): Promise<any> {
  const r = await fetch(`${bin.url}${path}`, {
    method,
    headers: form ? headers : { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: form ?? (body === undefined ? undefined : JSON.stringify(body)),
  });
  const text = await r.text();
  if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

/** Every read compared across the move, by the tokens that see them (each workspace's own). */
function readsOf(scimTokens: string[], apiTokens: string[]): [string, Record<string, string>][] {
  const admin = { authorization: `Bearer ${ADMIN}` };
  const reads: [string, Record<string, string>][] = [
    ["/api/admin/workspaces", admin],
    ["/api/admin/webhooks", admin],
  ];
  for (const token of scimTokens) for (const path of ["/scim/v2/Users?startIndex=1&count=100", "/scim/v2/Groups?startIndex=1&count=100"]) reads.push([path, { authorization: `Bearer ${token}` }]);
  const codes = [["SHOP", "API"], ["EXT"]];
  for (const [i, token] of apiTokens.entries()) {
    reads.push(["/api/v1/project?limit=100", { token }]);
    for (const code of codes[i]!)
      for (const what of ["case", "suite", "milestone", "plan", "run", "result", "defect"]) reads.push([`/api/v1/${what}/${code}?limit=100`, { token }]);
  }
  return reads;
}

async function populate(bin: RunningBinary): Promise<typeof source> {
  const admin = (method: string, path: string, body?: unknown) => call(bin, method, path, { authorization: `Bearer ${ADMIN}` }, body);
  const second = await admin("POST", "/api/admin/workspaces", { name: "Contractors" });
  const scimTokens = [(await admin("POST", "/api/admin/scim-tokens", { name: "Entra" })).token, (await admin("POST", "/api/admin/scim-tokens", { name: "Okta contractors", workspaceId: second.id })).token];
  const apiTokens = [(await admin("POST", "/api/admin/api-tokens", { name: "reporter" })).token, (await admin("POST", "/api/admin/api-tokens", { name: "contractors", workspaceId: second.id })).token];

  const scim = (token: string, method: string, path: string, body?: unknown) => call(bin, method, `/scim/v2${path}`, { authorization: `Bearer ${token}` }, body);
  const users: string[] = [];
  for (const [i, name] of ["Ada", "Grace", "Émile", "Linus", "Zoë"].entries()) {
    const u = await scim(scimTokens[i < 4 ? 0 : 1], "POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User", ENTERPRISE],
      userName: `${name.toLowerCase()}@example.com`,
      name: { givenName: name, familyName: "Test" },
      emails: [{ value: `${name.toLowerCase()}@example.com`, type: "work", primary: true }],
      [ENTERPRISE]: { employeeNumber: String(1000 + i), department: "QA" },
    });
    users.push(u.id);
  }
  await scim(scimTokens[0], "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Testers", members: users.slice(0, 3).map((value) => ({ value })) });
  await scim(scimTokens[0], "PATCH", `/Users/${users[2]}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] });
  await scim(scimTokens[0], "DELETE", `/Users/${users[3]}`);

  const subscription = (await admin("POST", "/api/admin/webhooks", { url: rx.url, events: ["*"], description: "down until the move" })).id as number;
  const v1 = async (token: string, method: string, path: string, body?: unknown) => (await call(bin, method, `/api/v1${path}`, { token }, body)).result;
  let attachment = "";
  for (const [token, code] of [[apiTokens[0], "SHOP"], [apiTokens[0], "API"], [apiTokens[1], "EXT"]] as const) {
    await v1(token, "POST", "/project", { title: `Project ${code}`, code });
    const milestone = (await v1(token, "POST", `/milestone/${code}`, { title: "1.0" })).id;
    const suite = (await v1(token, "POST", `/suite/${code}`, { title: "Checkout" })).id;
    const cases: number[] = [];
    for (let i = 0; i < 3; i++) cases.push((await v1(token, "POST", `/case/${code}`, { title: `Pays with card ${i}`, suite_id: suite, milestone_id: milestone, tags: ["smoke"] })).id);
    await v1(token, "POST", `/plan/${code}`, { title: "Regression", cases });
    const run = (await v1(token, "POST", `/run/${code}`, { title: "Nightly", cases })).id;
    for (const [i, c] of cases.entries()) await v1(token, "POST", `/result/${code}/${run}`, { case_id: c, status: i === 0 ? "failed" : "passed", time_ms: 1200 + i });
    await v1(token, "POST", `/defect/${code}`, { title: "Card declined", actual_result: "500", severity: 2 });
    const form = new FormData();
    form.append("file", new File([PNG], "screen.png"));
    attachment ||= (await call(bin, "POST", `/api/v1/attachment/${code}`, { token }, undefined, form)).result[0].hash;
    await v1(token, "POST", `/run/${code}/${run}/complete`);
  }
  // Every event has had its first attempt (the receiver is down): the backlog waits for a retry.
  const pending = async () => (await admin("GET", `/api/admin/webhooks/${subscription}/deliveries?status=pending&limit=500`)).items as { webhookId: string; attemptCount: number }[];
  await until(async () => (await pending()).every((d) => d.attemptCount > 0), "a first attempt of every delivery", 30_000);
  const backlog = (await pending()).map((d) => d.webhookId);

  const reads = new Map<string, unknown>();
  for (const [path, headers] of readsOf(scimTokens, apiTokens)) reads.set(`${JSON.stringify(headers)} ${path}`, await call(bin, "GET", path, headers));
  reads.set("attachment bytes", Buffer.from(await (await fetch(`${bin.url}/api/v1/attachment/${attachment}/file`, { headers: { token: apiTokens[0] } })).arrayBuffer()).toString("hex"));
  return { scimTokens, apiTokens, subscription, backlog, attachment, reads };
}

beforeAll(async () => {
  testServerUrl();
  await buildBinary();
  const bin = await startBinary({ sqliteOnly: true, env: settings });
  try {
    source = await populate(bin);
  } finally {
    expect(await bin.stop()).toBe(0);
  }
  const db = new Database(join(dataDir, "gatehouse.db"));
  db.run("BEGIN");
  const insert = db.prepare(`INSERT INTO audit_log (at, actor_kind, actor_name, action, resource_type, resource_id, summary, outcome) VALUES (?1, 'admin-token', 'ci', 'case.create', 'case', ?2, ?3, 'success')`);
  for (let i = 0; i < FILLER_ROWS; i++) insert.run(Date.now(), String(i), JSON.stringify({ after: { title: `filler ${i}`, padding: "x".repeat(200) } }));
  db.run("COMMIT");
  db.close();
  target = await freshDatabase("copye2e");
  sql = postgres(target.url, { max: 1, onnotice: () => {} });
}, 300_000);

afterAll(async () => {
  await sql?.end();
  await target?.drop();
  rx.stop();
  rmSync(root, { recursive: true, force: true });
});

const withPassword = (url: string) => {
  const u = new URL(url);
  u.password = "s3cret-Passw0rd"; // the test server trusts 127.0.0.1: sent nowhere, it only has to stay unprinted
  return u.toString();
};

async function rowsInTarget(): Promise<number> {
  const tables = await sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_name <> '__drizzle_migrations'`;
  let n = 0;
  for (const { name } of tables) n += Number((await sql.unsafe<{ n: string }[]>(`SELECT count(*)::text AS n FROM "${name}"`))[0]!.n);
  return n;
}

test("killed mid-copy the target keeps no row; run again it copies every row; a third run exits 2", async () => {
  const binary = await buildBinary();
  const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", GATEHOUSE_DATA_DIR: dataDir };
  const proc = Bun.spawn([binary, "copy-to-postgres", withPassword(target.url)], { cwd: root, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  // Killed as soon as the first table is reported copied: inside the transaction, long before audit_log's 60 000 rows are in.
  const reader = proc.stderr.getReader();
  let seen = "";
  while (!seen.includes("table copied (not yet committed)")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the copy ended before reporting a table: ${seen}`);
    seen += new TextDecoder().decode(value);
  }
  proc.kill("SIGKILL");
  await proc.exited;
  expect(proc.signalCode).toBe("SIGKILL");
  expect(await rowsInTarget()).toBe(1); // the migrations committed before the copy began: their seed workspace only

  const copied = await runBinaryCommand(["copy-to-postgres", withPassword(target.url)], { GATEHOUSE_DATA_DIR: dataDir }, root);
  expect({ code: copied.code, err: jsonLines(copied.stderr).lines.filter((l) => l.level === "error") }).toEqual({ code: 0, err: [] });
  for (const text of [copied.stdout, copied.stderr]) expect(text).not.toContain("s3cret-Passw0rd");
  const file = new Database(join(dataDir, "gatehouse.db"), { readonly: true });
  const counts = new Map(
    file
      .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'`)
      .all()
      .map(({ name }) => [name, file.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get()!.n]),
  );
  file.close();
  expect(counts.get("audit_log")!).toBeGreaterThan(FILLER_ROWS);
  for (const table of ["audit_log", "users", "groups", "workspaces", "tms_cases", "tms_attachments", "webhook_deliveries"]) {
    expect(counts.get(table)!).toBeGreaterThan(0);
    expect(copied.stdout).toMatch(new RegExp(`\\n${table} +${counts.get(table)} *\\n`));
  }
  const sourceRows = [...counts.values()].reduce((a, b) => a + b, 0);
  expect(copied.stdout).toMatch(new RegExp(`\\ntotal +${sourceRows} rows in \\d+ tables`));
  expect(await rowsInTarget()).toBe(sourceRows);
  for (const token of source.apiTokens) expect((await sql`SELECT count(*)::int AS n FROM api_tokens WHERE token_hash = ${hashToken(token)}`)[0]!.n).toBe(1);

  const again = await runBinaryCommand(["copy-to-postgres", withPassword(target.url)], { GATEHOUSE_DATA_DIR: dataDir }, root);
  expect(again.code).toBe(2);
  expect(jsonLines(again.stderr).text).toContain("the target database is not empty");
  expect(await rowsInTarget()).toBe(sourceRows);
}, 180_000);

test("started on PostgreSQL, the binary answers the same reads as on SQLite, the tokens still work, and the backlog reaches the receiver", async () => {
  const bin = await startBinary({ env: { ...settings, GATEHOUSE_DATABASE_URL: target.url } });
  try {
    for (const [path, headers] of readsOf(source.scimTokens, source.apiTokens)) {
      const key = `${JSON.stringify(headers)} ${path}`;
      expect({ read: key, answer: await call(bin, "GET", path, headers) }).toEqual({ read: key, answer: source.reads.get(key) });
    }
    const bytes = Buffer.from(await (await fetch(`${bin.url}/api/v1/attachment/${source.attachment}/file`, { headers: { token: source.apiTokens[0]! } })).arrayBuffer()).toString("hex");
    expect(bytes).toBe(source.reads.get("attachment bytes") as string);
    expect(bytes).toBe(Buffer.from(PNG).toString("hex"));

    // The tokens write too, and numbering goes on after the copied numbers.
    const next = (await call(bin, "POST", "/api/v1/case/SHOP", { token: source.apiTokens[0]! }, { title: "after the move" })).result.id;
    const copiedCases = (source.reads.get(`${JSON.stringify({ token: source.apiTokens[0] })} /api/v1/case/SHOP?limit=100`) as any).result.entities as { id: number }[];
    expect(next).toBe(Math.max(...copiedCases.map((c) => c.id)) + 1);
    const moved = await call(bin, "POST", "/scim/v2/Users", { authorization: `Bearer ${source.scimTokens[0]}` }, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "moved@example.com", name: { givenName: "Moved", familyName: "Test" } });
    expect(moved.userName).toBe("moved@example.com");

    // The receiver is back: every delivery waiting at the move arrives, signed with the copied secret.
    expect(source.backlog.length).toBeGreaterThan(10);
    const upAt = Date.now();
    receiverUp = true;
    await until(async () => {
      const health = await call(bin, "GET", `/api/admin/webhooks/${source.subscription}/deliveries?status=delivered&limit=1`, { authorization: `Bearer ${ADMIN}` });
      return health.total >= source.backlog.length;
    }, "the backlog delivered", 60_000);
    const arrived = new Set(rx.received.filter((r) => r.at >= upAt && r.headers["webhook-signature"]).map((r) => r.headers["webhook-id"]!));
    for (const id of source.backlog) expect({ id, arrived: arrived.has(id) }).toEqual({ id, arrived: true });
  } finally {
    expect(await bin.stop()).toBe(0);
  }
}, 120_000);
