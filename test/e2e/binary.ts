/**
 * End-to-end harness: the compiled `dist/gatehouse`, started as a real process from a temp
 * directory, talked to over real HTTP. Reused by every feature's e2e tests:
 *
 *   const bin = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: "t" } });
 *   const res = await fetch(`${bin.url}/healthz`);
 *   expect(await bin.stop()).toBe(0);
 *
 * `buildBinary()` builds once per test process (and only when dist/gatehouse is missing or
 * older than the sources); `startBinary` listens on port 0 and reads the bound address from the
 * "listening" log line, so parallel tests never race for a port.
 *
 * The run's engine: with `GATEHOUSE_TEST_ENGINE=postgres` every `startBinary` runs the binary on
 * a fresh, empty PostgreSQL database of its own on the run's server (the binary migrates it, as an
 * admin's first start does), unless the test names one (`GATEHOUSE_DATABASE_URL` in its env, from
 * `binaryDatabase()`: a crash test restarting on the same database) or is about the SQLite file
 * itself (`sqliteOnly`, said in the test's name). The database is dropped when the process stops.
 */
import { atEnd } from "../support/at-end";
import type { Subprocess } from "bun";
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { freshDatabase, postgresBinDir, testServerUrl } from "../support/postgres";

export const ROOT = join(import.meta.dir, "../..");
export const BINARY = join(ROOT, "dist/gatehouse");

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

function binaryIsFresh(): boolean {
  if (!existsSync(BINARY)) return false;
  const sources = Math.max(
    newestMtime(join(ROOT, "src")),
    newestMtime(join(ROOT, "migrations")),
    newestMtime(join(ROOT, "package.json")),
    newestMtime(join(ROOT, "scripts/build.ts")),
  );
  return statSync(BINARY).mtimeMs >= sources;
}

// Temp dirs made here are removed when the test process exits, whatever happened to the
// binary (kill9 without stop, a start that failed, a test that threw).
const tempDirs = new Set<string>();
atEnd(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** Whether this run starts the binary on PostgreSQL (`GATEHOUSE_TEST_ENGINE=postgres`). */
export const binaryOnPostgres = process.env.GATEHOUSE_TEST_ENGINE === "postgres";

// Databases made for binaries and not yet dropped (a test that threw, a kill9 without restart):
// dropped synchronously at exit, since an exit handler cannot wait on a client.
const databases = new Set<string>();
atEnd(() => {
  if (!databases.size) return;
  const psql = postgresBinDir() ? join(postgresBinDir()!, "psql") : "psql";
  for (const url of databases) {
    const name = new URL(url).pathname.slice(1);
    spawnSync(psql, ["-X", "-q", "-d", testServerUrl(), "-c", `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`], { stdio: "ignore" });
  }
});

export type BinaryDatabase = {
  /** The storage settings of every process on this database: `{ GATEHOUSE_DATABASE_URL }`, or `{}` on SQLite (the data dir's file). */
  env: Record<string, string>;
  /** The PostgreSQL database's URL, or null on SQLite. */
  url: string | null;
  /** A client of the database (int8 as JS numbers, as Gatehouse reads them), for a test's own checks; ended by `drop()`. PostgreSQL only. */
  sql(): postgres.Sql;
  /** Ends the client and drops the database (after every process on it has stopped). */
  drop(): Promise<void>;
};

/**
 * The database a test's binaries run on, for a test that restarts the binary on the same one
 * (pass `env` to every start) or checks rows itself: on the PostgreSQL run a fresh, empty
 * database on the run's server; on SQLite nothing (the data directory's file).
 */
export async function binaryDatabase(prefix = "bin"): Promise<BinaryDatabase> {
  if (!binaryOnPostgres)
    return {
      env: {},
      url: null,
      sql: () => {
        throw new Error("binaryDatabase().sql() is for the PostgreSQL run; on SQLite read the data directory's gatehouse.db");
      },
      drop: async () => {},
    };
  const fresh = await freshDatabase(prefix);
  databases.add(fresh.url);
  let client: postgres.Sql | null = null;
  return {
    env: { GATEHOUSE_DATABASE_URL: fresh.url },
    url: fresh.url,
    sql: () => (client ??= postgres(fresh.url, { max: 2, onnotice: () => {}, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } as never } })),
    async drop() {
      await client?.end();
      await fresh.drop();
      databases.delete(fresh.url);
    },
  };
}

let building: Promise<string> | null = null;

/** Path of a compiled binary that matches the current sources (built at most once per process). */
export function buildBinary(): Promise<string> {
  building ??= (async () => {
    if (binaryIsFresh()) return BINARY;
    const proc = Bun.spawn([process.execPath, join(ROOT, "scripts/build.ts")], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
    if (code !== 0) throw new Error(`build failed (exit ${code}):\n${out}\n${err}`);
    return BINARY;
  })();
  // A failed build must not poison every later test in the process.
  building.catch(() => (building = null));
  return building;
}

export type RunningBinary = {
  /** Base URL without trailing slash, e.g. http://127.0.0.1:41234 (https when TLS is configured). */
  url: string;
  proc: Subprocess<"ignore", "pipe", "pipe">;
  /**
   * The temp directory made for this process (its cwd unless given); holds `data/` unless
   * GATEHOUSE_DATA_DIR is passed. Removed by `stop()`. To restart on the same database (crash
   * tests: kill9 then start again), pass your own GATEHOUSE_DATA_DIR.
   */
  dir: string;
  /** Sends `signal` (default SIGTERM) and resolves to the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number>;
  /** SIGKILL, no cleanup: for crash tests. Await `proc.exited` if you need it gone. */
  kill9(): void;
  /** Everything written to stdout and stderr so far. */
  logs(): string;
  /**
   * The storage settings it runs on (`{ GATEHOUSE_DATABASE_URL }` on PostgreSQL, else `{}`): a
   * one-shot command (`scim-token create`) against the same instance passes them with its data dir.
   */
  storageEnv: Record<string, string>;
};

export type StartOptions = {
  env: Record<string, string>;
  /** What runs the executable, e.g. a release artifact under qemu (default: [dist/gatehouse], built if stale). */
  command?: string[];
  cwd?: string;
  args?: string[];
  /** How long to wait for /readyz (ms). */
  timeoutMs?: number;
  /** The test is about the SQLite file (backup of it, its lock, its WAL): SQLite even on the PostgreSQL run. */
  sqliteOnly?: boolean;
};

/**
 * Starts `dist/gatehouse serve` with only the given GATEHOUSE_* settings (never the test
 * runner's environment) and waits until /readyz answers 200. Defaults: host 127.0.0.1, port 0,
 * data dir `<tmp>/data`, log level info.
 */
export async function startBinary(opts: StartOptions): Promise<RunningBinary> {
  const command = opts.command ?? [await buildBinary()];
  // A database of its own on the PostgreSQL run, dropped at stop, unless the test named one.
  const own = binaryOnPostgres && !opts.sqliteOnly && !("GATEHOUSE_DATABASE_URL" in opts.env) ? await binaryDatabase() : null;
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-"));
  tempDirs.add(dir);
  const cwd = opts.cwd ?? dir;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: dir,
    GATEHOUSE_HOST: "127.0.0.1",
    GATEHOUSE_PORT: "0",
    GATEHOUSE_DATA_DIR: join(dir, "data"),
    GATEHOUSE_LOG_LEVEL: "info",
    ...own?.env,
    ...opts.env,
  };
  const proc = Bun.spawn([...command, ...(opts.args ?? ["serve"])], { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  let output = "";
  const pump = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  const pumping = Promise.all([pump(proc.stdout), pump(proc.stderr)]);
  // A start that fails leaves nothing behind either: process, temp dir, database (no exit handler runs under `bun test`).
  const failStart = async (why: string): Promise<never> => {
    proc.kill("SIGKILL");
    await proc.exited;
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
    await own?.drop().catch(() => {});
    throw new Error(`${why}:\n${output}`);
  };

  const deadline = Date.now() + (opts.timeoutMs ?? 15_000);
  let url: string | null = null;
  while (url === null) {
    const m = /"msg":"listening","url":"([^"]+)"/.exec(output);
    if (m) url = m[1]!.replace(/\/$/, "");
    else if (proc.exitCode !== null) {
      await pumping;
      await failStart(`gatehouse exited with ${proc.exitCode} before listening`);
    } else if (Date.now() > deadline) await failStart("gatehouse did not start listening in time");
    else await Bun.sleep(10);
  }
  const tlsOption = url.startsWith("https:") ? { tls: { rejectUnauthorized: false } } : {};
  for (;;) {
    try {
      const r = await fetch(`${url}/readyz`, tlsOption as RequestInit);
      if (r.status === 200) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) await failStart("gatehouse /readyz never answered 200");
    await Bun.sleep(20);
  }

  // Named a PostgreSQL database, it must run on it (not quietly on the data directory's file).
  if (env.GATEHOUSE_DATABASE_URL && !/"msg":"database","engine":"postgres"/.test(output)) await failStart("gatehouse was given GATEHOUSE_DATABASE_URL but did not say it runs on PostgreSQL");
  const cleanup = async () => {
    await pumping.catch(() => {});
    rmSync(dir, { recursive: true, force: true });
    tempDirs.delete(dir);
    await own?.drop();
  };
  return {
    url,
    proc,
    dir,
    async stop(signal: NodeJS.Signals = "SIGTERM") {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
      const code = await proc.exited;
      await cleanup();
      return code;
    },
    kill9() {
      proc.kill("SIGKILL");
    },
    logs: () => output,
    storageEnv: env.GATEHOUSE_DATABASE_URL ? { GATEHOUSE_DATABASE_URL: env.GATEHOUSE_DATABASE_URL } : {},
  };
}

/**
 * Runs a one-shot command of the compiled binary (`migrate`, `backup <file>`, `scim-token …`)
 * with only PATH and the given environment; e.g. against a running instance's data dir:
 *   await runBinaryCommand(["scim-token", "create", "--name", "e2e"], { GATEHOUSE_DATA_DIR: join(bin.dir, "data") })
 */
export async function runBinaryCommand(args: string[], env: Record<string, string>, cwd?: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const binary = await buildBinary();
  const proc = Bun.spawn([binary, ...args], { cwd: cwd ?? tmpdir(), env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code, stdout, stderr };
}
