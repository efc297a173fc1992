#!/usr/bin/env bun
/**
 * What one v1 case create (`POST /api/v1/case/{code}`, one webhook subscription) sends to
 * PostgreSQL, and what it costs each process. A durable server of its own (bench-postgres-server.ts'
 * settings, plus `pg_stat_statements`), one Gatehouse (`bun src/main.ts serve`, or `--root`'s
 * checkout for an A/B) and a webhook receiver in this process. Prints markdown:
 *
 *  1. the trace: every statement the server received for one create and its delivery, in order,
 *     each with its connection (`log_statement = all` turned on for those seconds only) — what the
 *     request's transaction, the counter connection, the event notice and the delivery tick send;
 *  2. per create over `--creates` creates sent by `--clients` concurrent clients: statements by
 *     text (`pg_stat_statements` calls ÷ creates, utility statements — BEGIN, COMMIT, SET — too),
 *     transactions committed (`pg_stat_database`), WAL flushes (`pg_stat_wal`), and CPU: the
 *     Gatehouse process's and Gatehouse's backends' (their /proc stat; PostgreSQL runs here).
 *
 *   bun scripts/bench-create-path.ts [--creates 2000] [--clients 32] [--root <checkout>] [--no-trace]
 *
 * `BENCH_PROFILE_DIR=dir` runs Gatehouse with Bun's `--cpu-prof` (written there when it stops).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { startPostgres } from "../test/support/postgres";
import { argOf, numberArg } from "./args";
import { DURABLE_SETTINGS, postgresSettings, settingsLine } from "./bench-postgres-server";
import { cpuSeconds } from "./process-cpu";

const CREATES = numberArg("creates", 2000);
const CLIENTS = numberArg("clients", 32);
const ROOT = argOf("root") ?? join(import.meta.dir, "..");
const TRACE = !process.argv.includes("--no-trace");
const ADMIN = "bench-create-path-admin-token";
const DB = "create_path";

const server = startPostgres([...DURABLE_SETTINGS, "shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all", "pg_stat_statements.track_utility=on", "log_line_prefix='%m [%p] '"]);
const admin = postgres(server.url, { max: 1, onnotice: () => {} });
const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-create-path-"));
let gatehouse: Bun.Subprocess<"ignore", "pipe", "inherit"> | null = null;
try {
  await admin.unsafe(`CREATE DATABASE ${DB}`);
  await admin`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
  const dbUrl = new URL(server.url);
  dbUrl.pathname = `/${DB}`;
  const stats = postgres(dbUrl.toString(), { max: 1, onnotice: () => {} });
  await stats`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
  await stats.end();

  // The receiver: every delivery's arrival, by the case's number.
  const received = new Map<number, number>();
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { payload: { id: number } };
      received.set(body.payload.id, performance.now());
      return new Response("ok");
    },
  });

  gatehouse = Bun.spawn([process.execPath, ...(process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []), join(ROOT, "src/main.ts"), "serve"], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin", GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: "0", GATEHOUSE_DATA_DIR: dir, GATEHOUSE_ADMIN_TOKEN: ADMIN,
      GATEHOUSE_LOG_LEVEL: "info", GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true", GATEHOUSE_DATABASE_URL: dbUrl.toString(),
    },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "inherit",
  });
  const reader = gatehouse.stdout.getReader();
  let text = "";
  let m: RegExpExecArray | null = null;
  while (!(m = /"msg":"listening","url":"http:\/\/127\.0\.0\.1:(\d+)/.exec(text))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`gatehouse exited:\n${text}`);
    text += new TextDecoder().decode(value);
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) break;
  })();
  const base = `http://127.0.0.1:${m[1]}`;
  const post = async (path: string, headers: Record<string, string>, body: unknown) => {
    const r = await fetch(`${base}${path}`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
    if (r.status >= 300) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as any;
  };
  const token = (await post("/api/admin/api-tokens", { authorization: `Bearer ${ADMIN}` }, { name: "bench" })).token as string;
  await post("/api/v1/project", { token }, { title: "Bench", code: "BENCH" });
  await post("/api/admin/webhooks", { authorization: `Bearer ${ADMIN}` }, { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["case.created"] });
  let serial = 0;
  const create = async () => (await post("/api/v1/case/BENCH", { token }, { title: `case ${serial++}`, description: "created by scripts/bench-create-path.ts" })).result.id as number;
  const delivered = async (ids: number[]) => {
    const deadline = Date.now() + 60_000;
    while (ids.some((id) => !received.has(id)) && Date.now() < deadline) await Bun.sleep(20);
  };
  const loop = async (n: number, clients: number) => {
    const ids: number[] = [];
    await Promise.all(Array.from({ length: clients }, async () => {
      while (serial < n) ids.push(await create());
    }));
    return ids;
  };
  // warm-up: JIT, the pool's connections and their prepared statements
  serial = 0;
  await delivered(await loop(300, 8));

  console.log(`# One v1 case create on PostgreSQL (bun scripts/bench-create-path.ts ${process.argv.slice(2).join(" ")})\n`);
  console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load ${loadavg().map((x) => x.toFixed(2)).join(" ")}, ${new Date().toISOString()}; ${settingsLine(await postgresSettings(server.url))}; Gatehouse from ${ROOT}.\n`);

  if (TRACE) {
    const logFile = join(server.dir, "log");
    await admin`ALTER SYSTEM SET log_statement = 'all'`;
    await admin`SELECT pg_reload_conf()`;
    await Bun.sleep(300);
    const from = readFileSync(logFile, "utf8").length;
    const id = await create();
    await delivered([id]);
    await Bun.sleep(300);
    await admin`ALTER SYSTEM RESET log_statement`;
    await admin`SELECT pg_reload_conf()`;
    const lines = readFileSync(logFile, "utf8").slice(from).split("\n");
    const own = new Set<string>(); // this script's admin connection
    const rows: { at: string; pid: string; statement: string }[] = [];
    let current: { at: string; pid: string; statement: string } | null = null;
    for (const line of lines) {
      const s = /^(\S+ \S+ \S+) \[(\d+)\] LOG:\s+(?:execute [^:]*|statement): (.*)$/.exec(line);
      if (s) {
        current = { at: s[1]!, pid: s[2]!, statement: s[3]! };
        if (/pg_reload_conf|ALTER SYSTEM/.test(current.statement)) own.add(current.pid);
        else rows.push(current);
      } else if (current && /^\S+ \S+ \S+ \[\d+\] DETAIL:\s+parameters: /.test(line)) {
        // parameters are left out (the payload is long)
      } else if (current && line.startsWith("\t")) current.statement += ` ${line.trim()}`;
    }
    const pids = [...new Set(rows.filter((r) => !own.has(r.pid)).map((r) => r.pid))];
    console.log(`## The trace: one create and its delivery (log_statement = all), ${rows.length} statements on ${pids.length} connections\n`);
    console.log("| # | connection | statement |");
    console.log("|---:|---|---|");
    rows.filter((r) => !own.has(r.pid)).forEach((r, i) => console.log(`| ${i + 1} | ${String.fromCharCode(65 + pids.indexOf(r.pid))} | \`${r.statement.replace(/\s+/g, " ").slice(0, 150).replaceAll("|", "\\|")}\` |`));
    console.log();
  }

  // per create, under load
  await admin.unsafe("SELECT pg_stat_statements_reset()");
  const backends = async () =>
    (await admin<{ pid: number }[]>`SELECT pid FROM pg_stat_activity WHERE datname = ${DB} AND backend_type = 'client backend'`).map((r) => r.pid);
  const backendCpu = async () => {
    let sum = 0;
    for (const pid of await backends()) sum += cpuSeconds(pid) ?? 0;
    return sum;
  };
  const [db0] = await admin<{ xact: string }[]>`SELECT xact_commit::text AS xact FROM pg_stat_database WHERE datname = ${DB}`;
  const [wal0] = await admin<{ n: string }[]>`SELECT wal_sync::text AS n FROM pg_stat_wal`;
  const gh0 = cpuSeconds(gatehouse.pid)!;
  const own0 = process.cpuUsage();
  const pg0 = await backendCpu();
  const load0 = loadavg()[0]!;
  const t0 = performance.now();
  serial = 0;
  const ids = await loop(CREATES, CLIENTS);
  const seconds = (performance.now() - t0) / 1000;
  await delivered(ids);
  const gh = cpuSeconds(gatehouse.pid)! - gh0;
  const own = process.cpuUsage(own0);
  const pgCpu = (await backendCpu()) - pg0;
  const [db1] = await admin<{ xact: string }[]>`SELECT xact_commit::text AS xact FROM pg_stat_database WHERE datname = ${DB}`;
  const [wal1] = await admin<{ n: string }[]>`SELECT wal_sync::text AS n FROM pg_stat_wal`;
  const statements = await admin<{ calls: string; total_ms: number; query: string }[]>`
    SELECT s.calls::text AS calls, s.total_exec_time AS total_ms, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 110) AS query
      FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
     WHERE d.datname = ${DB} ORDER BY s.calls DESC`;
  const n = ids.length;
  const total = statements.reduce((a, s) => a + Number(s.calls), 0);
  console.log(`## Per create: ${n} creates by ${CLIENTS} clients in ${seconds.toFixed(1)} s (${(n / seconds).toFixed(0)}/s), each delivered; load ${load0.toFixed(2)} → ${loadavg()[0]!.toFixed(2)}\n`);
  console.log(`- statements: **${(total / n).toFixed(2)}** per create (delivery ticks included); transactions committed ${((Number(db1!.xact) - Number(db0!.xact)) / n).toFixed(2)}; WAL flushes ${((Number(wal1!.n) - Number(wal0!.n)) / n).toFixed(2)}`);
  console.log(`- CPU per create: Gatehouse **${((1000 * gh) / n).toFixed(2)} ms**, PostgreSQL's backends **${((1000 * pgCpu) / n).toFixed(2)} ms** (server execution ${(statements.reduce((a, s) => a + s.total_ms, 0) / n).toFixed(2)} ms), this script (the clients and the receiver) ${((own.user + own.system) / 1000 / n).toFixed(2)} ms\n`);
  console.log("| per create | server ms per call | statement |");
  console.log("|---:|---:|---|");
  for (const s of statements) if (Number(s.calls) >= n / 100) console.log(`| ${(Number(s.calls) / n).toFixed(3)} | ${(s.total_ms / Number(s.calls)).toFixed(3)} | \`${s.query.replaceAll("|", "\\|")}\` |`);
  receiver.stop(true);
} finally {
  if (gatehouse) {
    gatehouse.kill("SIGTERM");
    await gatehouse.exited;
  }
  await admin.end();
  server.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.exit(0);
