/**
 * A real PostgreSQL server for tests: the one `GATEHOUSE_TEST_DATABASE_URL` names (`.ci/run`
 * starts one per run), or, when that is unset, one started here from Debian's `postgresql`
 * binaries (initdb in a temp dir, a free port on 127.0.0.1, trust auth; as `nobody` when run as
 * root, since PostgreSQL refuses to run as root) and stopped when the process exits.
 * `freshDatabase()` gives each caller a database of its own.
 */
import { afterAll, beforeAll } from "bun:test";
import { atEnd } from "./at-end";
import { spawnSync } from "node:child_process";
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

const BIN_DIRS = ["/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin", "/usr/local/bin", "/usr/bin"];

/** Directory of `initdb`/`pg_ctl`/`postgres`, or null when PostgreSQL is not installed. */
export function postgresBinDir(): string | null {
  return BIN_DIRS.find((d) => existsSync(join(d, "initdb")) && existsSync(join(d, "pg_ctl"))) ?? null;
}

export type PostgresServer = { url: string; port: number; dir: string; stop(): void };

function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

const asUser = process.getuid?.() === 0 ? ["runuser", "-u", "nobody", "--"] : [];

function run(cmd: string[], what: string): void {
  const r = spawnSync(asUser[0] ?? cmd[0]!, [...asUser.slice(1), ...(asUser.length ? cmd : cmd.slice(1))], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${what} failed (${r.status}): ${r.stderr || r.stdout}`);
}

/**
 * What a server of its own may need beyond settings: `files` written into its data directory
 * (owned by the server's user, mode 0600, as PostgreSQL wants a TLS key), e.g. `server.crt` for
 * `ssl_cert_file=server.crt`; `hba`, the whole pg_hba.conf instead of initdb's trust-for-all.
 */
export type PostgresFiles = { files?: Record<string, string>; hba?: string };

/**
 * Starts a server of its own (a primary with `extra` settings, e.g. replication). The caller
 * stops it; `stop` is also run at process exit.
 */
export function startPostgres(extra: string[] = [], { files = {}, hba }: PostgresFiles = {}): PostgresServer {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (Debian: apt-get install postgresql)");
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-pg-"));
  chmodSync(dir, 0o777);
  const data = join(dir, "data");
  run([join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "gatehouse", "--no-sync", "-E", "UTF8", "--locale=C.UTF-8"], "initdb");
  const owner = statSync(data);
  for (const [name, text] of [...Object.entries(files), ...(hba === undefined ? [] : [["pg_hba.conf", hba] as const])]) {
    const file = join(data, name);
    writeFileSync(file, text, { mode: 0o600 });
    chmodSync(file, 0o600);
    if (process.getuid?.() === 0) chownSync(file, owner.uid, owner.gid);
  }
  const port = freePort();
  const options = [`-p ${port}`, `-k ${dir}`, "-c listen_addresses=127.0.0.1", "-c max_connections=300", // The test server's own crash safety is not under test (Gatehouse's is: its tests kill
    // Gatehouse, never this server), and without fsync a database per test app costs milliseconds.
    "-c fsync=off", "-c full_page_writes=off", ...extra.map((e) => `-c ${e}`)].join(" ");
  run([join(bin, "pg_ctl"), "-D", data, "-l", join(dir, "log"), "-w", "-o", options, "start"], "pg_ctl start");
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    try {
      run([join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "-w", "stop"], "pg_ctl stop");
    } catch {
      /* already gone */
    }
    rmSync(dir, { recursive: true, force: true });
  };
  atEnd(stop);
  return { url: `postgres://gatehouse@127.0.0.1:${port}/postgres`, port, dir, stop };
}

let shared: string | null = null;

/** The URL of the run's server (`GATEHOUSE_TEST_DATABASE_URL`, or one started on first use). */
export function testServerUrl(): string {
  shared ??= process.env.GATEHOUSE_TEST_DATABASE_URL || startPostgres().url;
  return shared;
}

let counter = 0;
let template: string | null = null;

/** A new, empty database on the run's server; its URL. Dropped by `drop()`. */
export async function freshDatabase(prefix = "t"): Promise<{ url: string; drop(): Promise<void> }> {
  const base = new URL(testServerUrl());
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const admin = postgres(base.toString(), { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(base.toString(), { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

/**
 * A new database migrated to this checkout's schema, made synchronously (a child process: see
 * pg-fresh.ts), and a way to drop it once its pool is closed.
 */
export function freshDatabaseSync(prefix = "t"): { url: string; drop(): Promise<void> } {
  const server = testServerUrl();
  // The template once per process (a Bun child: migrations are async); then each database is one
  // `psql` call, which starts in milliseconds.
  template ??= (() => {
    const r = spawnSync(process.execPath, [join(import.meta.dir, "pg-fresh.ts"), server], { encoding: "utf8", env: { ...process.env, BUN_BE_BUN: "1" } });
    if (r.status !== 0) throw new Error(`building the test template database failed: ${r.stderr}`);
    return r.stdout.trim();
  })();
  const name = `${prefix}_${process.pid}_${Date.now().toString(36)}_${counter++}`;
  const psql = postgresBinDir() ? join(postgresBinDir()!, "psql") : "psql";
  const r = spawnSync(psql, ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", server, "-c", `CREATE DATABASE "${name}" TEMPLATE "${template}"`], { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`creating a test database failed: ${r.stderr}`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      const a = postgres(server, { max: 1, onnotice: () => {} });
      try {
        await a.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}

/**
 * A fresh, migrated PostgreSQL database opened as the server opens one (`openPool`'s options, the
 * store, the routed handle), for tests that run on PostgreSQL whatever the run's engine. `close`
 * ends the pool, drops the database and gives the process back to SQLite.
 */
export async function openPostgresForTest(prefix: string, poolSize = 4): Promise<{ sql: import("postgres").Sql; db: import("../../src/db/store").Db; close(): Promise<void> }> {
  const { openPool } = await import("../../src/db/postgres/connect");
  const { migratePostgres } = await import("../../src/db/postgres/migrate");
  const { postgresHandle } = await import("../../src/db/postgres/open");
  const { useEngine } = await import("../../src/db/engine");
  const fresh = await freshDatabase(prefix);
  const { sql } = openPool({ url: fresh.url, poolSize, caFile: null });
  await migratePostgres(sql);
  const handle = postgresHandle(sql);
  return {
    sql,
    db: handle.db,
    async close() {
      useEngine("sqlite");
      await handle.store.close(); // the pool and the store's counter connection
      await fresh.drop();
    },
  };
}

type TestPostgres = Awaited<ReturnType<typeof openPostgresForTest>>;

/**
 * A test file's own PostgreSQL database for all its tests (`openPostgresForTest`): opened before
 * the first, outside any test's time limit (the run's server is started then if there is none),
 * closed and dropped after the last. `ready` receives it once open (to set the file's handles and
 * seed rows).
 */
export function usePostgresForTest(prefix: string, ready: (pg: TestPostgres) => unknown | Promise<unknown>, poolSize?: number): void {
  let pg: TestPostgres | undefined;
  beforeAll(async () => {
    testServerUrl();
    pg = await openPostgresForTest(prefix, poolSize);
    await ready(pg);
  }, 120_000);
  afterAll(async () => {
    await pg?.close();
  });
}
