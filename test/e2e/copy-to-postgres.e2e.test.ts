/**
 * `gatehouse copy-to-postgres` as the compiled binary runs it (PostgreSQL's migrations embedded,
 * postgres.js bundled) against a real server: killed with SIGKILL in the middle of the copy, the
 * target keeps no row and the next run copies everything; a third run is refused (exit 2).
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { hashToken } from "../../src/lib/tokens";
import { jsonLines } from "../cli/json-lines";
import { sqliteInstance } from "../support/sqlite-instance";
import { freshDatabase, testServerUrl } from "../support/postgres";
import { buildBinary, runBinaryCommand } from "./binary";

const root = mkdtempSync(join(tmpdir(), "gatehouse-copy-e2e-"));
let dataDir = "";
let apiToken = "";
let target: { url: string; drop(): Promise<void> };
let sql: postgres.Sql;

/** Audit entries added under the app (no foreign keys): enough rows that the copy lasts seconds, so the kill lands inside it. */
const FILLER_ROWS = 60_000;

beforeAll(async () => {
  testServerUrl();
  await buildBinary();
  const t = sqliteInstance();
  try {
    apiToken = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "reporter" })).json()) as { token: string }).token;
    const v1 = (method: string, path: string, body: unknown) => t.request(method, `/api/v1${path}`, { body, headers: { token: apiToken } });
    expect((await v1("POST", "/project", { title: "Shop", code: "SHOP" })).status).toBe(200);
    for (let i = 0; i < 5; i++) expect((await v1("POST", "/case/SHOP", { title: `case ${i}` })).status).toBe(200);
  } finally {
    await t.close();
  }
  dataDir = t.dir;
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
  rmSync(root, { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
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
  expect(copied.stdout).toMatch(new RegExp(`\\naudit_log +${FILLER_ROWS + 1} *\\n`)); // the filler and the token's creation
  expect(copied.stdout).toMatch(/\ntms_cases +5\n/);
  for (const text of [copied.stdout, copied.stderr]) expect(text).not.toContain("s3cret-Passw0rd");
  const source = new Database(join(dataDir, "gatehouse.db"), { readonly: true });
  const sourceRows = source
    .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '__drizzle_migrations'`)
    .all()
    .reduce((n, { name }) => n + source.query<{ n: number }, []>(`SELECT count(*) AS n FROM "${name}"`).get()!.n, 0);
  source.close();
  expect(copied.stdout).toMatch(new RegExp(`\\ntotal +${sourceRows} rows in \\d+ tables`));
  expect(await rowsInTarget()).toBe(sourceRows);
  expect((await sql`SELECT count(*)::int AS n FROM api_tokens WHERE token_hash = ${hashToken(apiToken)}`)[0]!.n).toBe(1);

  const again = await runBinaryCommand(["copy-to-postgres", withPassword(target.url)], { GATEHOUSE_DATA_DIR: dataDir }, root);
  expect(again.code).toBe(2);
  expect(jsonLines(again.stderr).text).toContain("the target database is not empty");
  expect(await rowsInTarget()).toBe(sourceRows);
}, 180_000);
