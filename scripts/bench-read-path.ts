/**
 * The SCIM read path against its limit: Gatehouse (the compiled executable) and a bare Bun.serve
 * + one prepared bun:sqlite statement + JSON.stringify (scripts/bench-scim-baseline.ts) on the
 * SAME database, loaded by wrk (a native load generator: a JavaScript one saturates before the
 * bare handler does), 32 connections, in interleaved rounds — each round measures every scenario
 * on Gatehouse and on the bare handler back to back (which goes first alternates), so a burst of
 * load from other tenants of the machine hits both alike. The judge is the ratio Gatehouse/bare
 * within a round; the table gives the median over rounds.
 *
 *   bun scripts/bench-read-path.ts [--users 100000] [--seconds 5] [--rounds 3] [--only lookup,get]
 *                                  [--source] [--profile DIR] [--check | --guard] [--env GATEHOUSE_KEY=value]…
 *                                  [--engine sqlite|postgres]
 *
 * Scenarios: `lookup` GET /Users?filter=userName eq "…" (random user), `get` GET /Users/{id},
 * `page` GET /Users?count=1000 (the first 1000, full resources; the bare handler returns its
 * plain columns), `create` POST /Users (durable: Gatehouse's group commit against the bare
 * handler's one fsync per insert, synchronous=FULL).
 * Servers run on CPU 0 and wrk on CPU 1 (taskset) when the machine has two or more.
 * `--check` exits 1 when a scenario's median ratio falls below its floor (README) times
 * GUARD_MARGIN — the floors are the targets; the margin absorbs a shared machine; a scenario below
 * that line is measured again before the verdict. `--guard` is `.ci/run`'s step: `--check` on a
 * short run (20 000 users, 3 rounds × 1 s each, `bun src/main.ts`: about 45 s with the warm-up).
 * `--source` serves `bun src/main.ts` instead of the executable; `--profile DIR` (implies
 * --source) writes Bun's markdown CPU profile of the Gatehouse process into DIR at exit.
 * Rate limiting is out of the way and request logging off (LOG_LEVEL=warn), as in bench-scim.
 * `--engine postgres`: the same scenarios on a database of their own on a durable PostgreSQL
 * (bench-postgres-server.ts: `BENCH_POSTGRES_URL`, or a server started here with fsync and
 * synchronous_commit on), Gatehouse started with GATEHOUSE_DATABASE_URL as `gatehouse serve` is,
 * against scripts/bench-scim-baseline-postgres.ts (postgres.js, the same pool options and size).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../src/db/connection";
import { createScimToken } from "../src/scim/tokens/service";
import { argOf, numberArg } from "./args";
import { benchServerEnv, freePort } from "./bench-server";
import { buildExecutable } from "./build";
import { benchDatabase, benchPostgres, postgresSettings, settingsLine } from "./bench-postgres-server";
import { loadBenchUsers, seedBenchPostgres } from "./bench-users";
import { cpuSeconds } from "./process-cpu";

const ROOT = join(import.meta.dir, "..");
/** `--guard`: the CI step — a short run (20 000 users, 3 rounds × 1 s, from source) with `--check`. */
const GUARD = process.argv.includes("--guard");
const USERS = numberArg("users", GUARD ? 20_000 : 100_000);
const SECONDS = numberArg("seconds", GUARD ? 1 : 5);
const ROUNDS = numberArg("rounds", 3);
const CONNECTIONS = 32;
const CHECK = GUARD || process.argv.includes("--check");
const PROFILE_DIR = argOf("profile");
const SOURCE = GUARD || process.argv.includes("--source") || PROFILE_DIR !== null;
const ENGINE = argOf("engine") ?? "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error(`--engine: expected sqlite or postgres, got ${ENGINE}`);
const EXTRA_ENV = Object.fromEntries(process.argv.flatMap((a, i) => (process.argv[i - 1] === "--env" ? [a.split("=", 2) as [string, string]] : [])));

/** The floors the README states (Gatehouse/bare, same run) and the p99 targets, per scenario. */
export const FLOORS = { lookup: { ratio: 0.5, p99: 10 }, get: { ratio: 0.5, p99: 10 }, page: { ratio: 0.35, p99: 150 }, create: { ratio: 1, p99: Infinity } } as const;
type Scenario = keyof typeof FLOORS;
/**
 * The guard fails only below floor × GUARD_MARGIN: single 1-second rounds on a shared 2-core
 * machine move a ratio by ±40% (medians of three by ±20%); the guard is for the regression that
 * costs a third or more, not for noise.
 */
export const GUARD_MARGIN = 0.7;
/**
 * What the CI guard holds each ratio to (× GUARD_MARGIN): the targets where they are met, and
 * where they are not yet met on a quiet machine, the ratio measured there (2026-11-27, load < 3:
 * create 0.52× — create is CPU-bound at ~0.8 ms against the bare loop's one fast fsync, while under
 * load a slow fsync lifts the ratio to 3–4×). Page: 0.30 since its engine-written page (read-path.md
 * round 7: guard medians 0.45–0.52 at load 3–8, single rounds 0.31–0.60; the page before it measured
 * 0.16–0.23 on CI and here). A guard line below the target is a regression line, not the target: the
 * targets stay in FLOORS and in the README.
 */
export const GUARD_FLOORS: Record<Scenario, number> = { lookup: 0.5, get: 0.5, page: 0.3, create: 0.5 };
const ALL: Scenario[] = ["lookup", "get", "page", "create"];
const ONLY = (argOf("only")?.split(",") ?? ALL) as Scenario[];

const dir = mkdtempSync(join(tmpdir(), "gatehouse-read-path-"));
const dbFile = join(dir, "gatehouse.db");

// ---- data --------------------------------------------------------------------------------------
const pg = ENGINE === "postgres" ? await benchPostgres() : null;
const pgDatabase = pg ? await benchDatabase(pg.url, "read_path") : null;
let token: string;
if (pgDatabase) {
  const t0 = performance.now();
  token = (await seedBenchPostgres(pgDatabase.url, USERS)).scimToken;
  console.error(`loaded ${USERS} users into PostgreSQL in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
} else {
  const setup = openDatabase(dbFile);
  token = (await createScimToken(setup.db, "bench")).token;
  closeDatabase(setup);
  const sqlite = new Database(dbFile, { strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = OFF; PRAGMA busy_timeout = 30000");
  const t0 = performance.now();
  loadBenchUsers(sqlite, 1, USERS);
  sqlite.close();
  console.error(`loaded ${USERS} users in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
}

// ---- servers -----------------------------------------------------------------------------------
const twoCores = cpus().length >= 2;
const serverCpu = twoCores ? ["taskset", "-c", "0"] : [];
const loadCpu = twoCores ? ["taskset", "-c", "1"] : [];
const bun = process.execPath;
const port = await freePort();
const profileFlags = PROFILE_DIR ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
const gatehouseCommand = SOURCE ? [bun, ...profileFlags, join(ROOT, "src/main.ts"), "serve"] : [await buildExecutable(join(dir, "gatehouse")), "serve"];
const gatehouse = Bun.spawn([...serverCpu, ...gatehouseCommand], {
  env: benchServerEnv(port, dir, { GATEHOUSE_BASE_URL: "https://gatehouse.example.com", ...(pgDatabase ? { GATEHOUSE_DATABASE_URL: pgDatabase.url } : {}), ...EXTRA_ENV }),
  stdout: 2, // its log lines to our stderr: stdout is the markdown report

  stderr: "inherit",
});
const bare = Bun.spawn([...serverCpu, bun, ...(pgDatabase ? [join(ROOT, "scripts/bench-scim-baseline-postgres.ts"), pgDatabase.url, EXTRA_ENV.GATEHOUSE_DATABASE_POOL_SIZE ?? "10"] : [join(ROOT, "scripts/bench-scim-baseline.ts"), dbFile])], { stdout: "pipe", stderr: "inherit" });
async function firstLine(stream: ReadableStream<Uint8Array>): Promise<string> {
  const reader = stream.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { done, value } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return text.split("\n")[0]!.trim();
}
async function waitFor(url: string) {
  for (let i = 0; i < 1000; i++) {
    try {
      if ((await fetch(url)).status < 500) return;
    } catch {
      /* not yet */
    }
    await Bun.sleep(20);
  }
  throw new Error(`${url} never answered`);
}
async function cleanup() {
  gatehouse.kill("SIGTERM");
  bare.kill("SIGTERM");
  await Promise.all([gatehouse.exited, bare.exited]);
  await pgDatabase?.drop();
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
}
process.on("SIGINT", () => cleanup().then(() => process.exit(130)));

// ---- wrk ---------------------------------------------------------------------------------------
/**
 * One wrk Lua script per scenario and server: random users 1…USERS; creates carry the run's id
 * (given by `wrk` to each invocation: a seed from the clock repeated itself across rounds, and a
 * round's creates then met the names of an earlier one) and a counter, so every userName is new.
 */
function luaScript(scenario: Scenario, target: "gatehouse" | "bare"): string {
  const prefix = target === "gatehouse" ? "/scim/v2" : "";
  const headers = target === "gatehouse"
    ? `{ ["Authorization"] = "Bearer ${token}", ["Accept"] = "application/scim+json", ["Content-Type"] = "application/scim+json" }`
    : `{ ["Content-Type"] = "application/json" }`;
  const common = `math.randomseed(os.time() + math.floor(os.clock() * 1000000))\nlocal headers = ${headers}\nlocal n = 0\nlocal run = "?"\ninit = function(args) run = args[1] end\n`;
  const request: Record<Scenario, string> = {
    lookup: `return wrk.format("GET", "${prefix}/Users?filter=userName%20eq%20%22user" .. math.random(1, ${USERS}) .. "%40bench.example%22", headers)`,
    get: `return wrk.format("GET", "${prefix}/Users/" .. math.random(1, ${USERS}), headers)`,
    page: `return wrk.format("GET", "${prefix}/Users?count=1000", headers)`,
    create: `n = n + 1
  local name = "new-" .. run .. "-" .. n .. "@bench.example"
  return wrk.format("POST", "${prefix}/Users", headers, '{"schemas":["urn:ietf:params:scim:schemas:core:2.0:User"],"userName":"' .. name .. '","name":{"givenName":"New","familyName":"User"},"emails":[{"value":"' .. name .. '","type":"work","primary":true}]}')`,
  };
  return `${common}request = function()\n  ${request[scenario]}\nend\n`;
}

/** Server CPU (user + system) in ms: per-request cost, steadier than req/s on a shared machine. */
const cpuMs = (pid: number) => (cpuSeconds(pid) ?? NaN) * 1000;

type Measure = { rps: number; p50: number; p99: number; errors: number; cpuUs: number };

const toMs = (v: string, unit: string) => Number(v) * (unit === "us" ? 0.001 : unit === "s" ? 1000 : unit === "m" ? 60_000 : 1);

let wrkRuns = 0;

async function wrk(baseUrl: string, script: string, seconds: number, serverPid: number): Promise<Measure> {
  const cpu0 = cpuMs(serverPid);
  const runId = `${process.pid}-${++wrkRuns}`; // the creates' names: unique to this invocation
  const proc = Bun.spawn([...loadCpu, "wrk", "-t1", `-c${CONNECTIONS}`, `-d${seconds}s`, "--timeout", "10s", "--latency", "-s", script, baseUrl, "--", runId], { stdout: "pipe", stderr: "pipe" });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  if ((await proc.exited) !== 0) throw new Error(`wrk failed: ${err || out}`);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
  const pct = (p: string) => {
    const m = new RegExp(`^\\s+${p}%\\s+([\\d.]+)(us|ms|s|m)\\s*$`, "m").exec(out);
    return m ? toMs(m[1]!, m[2]!) : NaN;
  };
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const errors = non2xx + (socket ? socket.slice(1).reduce((a, b) => a + Number(b), 0) : 0);
  const requests = Number(/(\d+) requests in/.exec(out)?.[1]);
  return { rps, p50: pct("50"), p99: pct("99"), errors, cpuUs: ((cpuMs(serverPid) - cpu0) * 1000) / requests };
}

/**
 * In the guard, pages and creates get longer slices: a 1000-user page takes ~0.5 s at 32
 * connections on a loaded machine, so a 1-second slice completes a handful of rounds and its
 * count is mostly quantisation; Gatehouse's write path warms up (JIT, group-commit batches)
 * through its first seconds, and a 1-second slice under a burst of another tenant's disk I/O can
 * hold no completed create at all.
 */
const sliceSeconds = (s: Scenario) => (GUARD && s === "page" ? 3 * SECONDS : GUARD && s === "create" ? 2 * SECONDS : SECONDS);

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

// ---- run ---------------------------------------------------------------------------------------
type Row = { scenario: Scenario; g: Measure[]; b: Measure[]; ratios: number[] };
let failed = false;
try {
  const bareUrl = await firstLine(bare.stdout);
  if (!bareUrl) throw new Error("the bare handler did not start");
  const gatehouseUrl = `http://127.0.0.1:${port}`;
  await waitFor(`${gatehouseUrl}/readyz`);
  const scripts = new Map<string, string>();
  for (const s of ONLY)
    for (const target of ["gatehouse", "bare"] as const) {
      const file = join(dir, `${s}-${target}.lua`);
      writeFileSync(file, luaScript(s, target));
      scripts.set(`${s}-${target}`, file);
    }
  const load0 = loadavg();
  // Warm-up: JIT both servers on every scenario before anything counts.
  for (const s of ONLY) {
    await wrk(gatehouseUrl, scripts.get(`${s}-gatehouse`)!, Math.max(1, Math.round(sliceSeconds(s) / 2)), gatehouse.pid);
    await wrk(bareUrl, scripts.get(`${s}-bare`)!, Math.max(1, Math.round(sliceSeconds(s) / 2)), bare.pid);
  }
  const rows: Row[] = ONLY.map((scenario) => ({ scenario, g: [], b: [], ratios: [] }));
  const measure = async (pending: Row[]) => {
    for (let round = 0; round < ROUNDS; round++) {
      for (const row of pending) {
        const g = () => wrk(gatehouseUrl, scripts.get(`${row.scenario}-gatehouse`)!, sliceSeconds(row.scenario), gatehouse.pid);
        const b = () => wrk(bareUrl, scripts.get(`${row.scenario}-bare`)!, sliceSeconds(row.scenario), bare.pid);
        let mg: Measure, mb: Measure;
        if (round % 2 === 0) {
          mg = await g();
          mb = await b();
        } else {
          mb = await b();
          mg = await g();
        }
        row.g.push(mg);
        row.b.push(mb);
        row.ratios.push(mg.rps / mb.rps);
        console.error(`round ${row.ratios.length} ${row.scenario}: Gatehouse ${Math.round(mg.rps)} req/s p50 ${mg.p50.toFixed(2)} p99 ${mg.p99.toFixed(2)} ms${mg.errors ? ` (${mg.errors} errors)` : ""} · bare ${Math.round(mb.rps)} req/s p50 ${mb.p50.toFixed(2)} p99 ${mb.p99.toFixed(2)} ms · ${(mg.rps / mb.rps).toFixed(2)}× · server CPU/request ${mg.cpuUs.toFixed(0)} vs ${mb.cpuUs.toFixed(0)} µs`);
      }
    }
  };
  const belowGuard = (r: Row) => median(r.ratios) < GUARD_FLOORS[r.scenario] * GUARD_MARGIN;
  await measure(rows);
  // The guard measures a scenario that fell below its line once more (the same number of rounds)
  // and judges the median of all its rounds: one burst from another tenant must not fail CI.
  if (CHECK && rows.some(belowGuard)) await measure(rows.filter(belowGuard));
  const load1 = loadavg();
  const pgLine = pg ? ` PostgreSQL (database of its own, Gatehouse's default pool of ${EXTRA_ENV.GATEHOUSE_DATABASE_POOL_SIZE ?? 10} connections, the bare handler the same): ${settingsLine(await postgresSettings(pg.url))}.` : "";
  const names: Record<Scenario, string> = {
    lookup: '`GET /Users?filter=userName eq "…"`',
    get: "`GET /Users/{id}`",
    page: "`GET /Users?count=1000` (full resources)",
    create: "`POST /Users` (durable)",
  };
  const n = (x: number) => Math.round(x).toLocaleString("en-US");
  const lines = [
    `### SCIM read path vs bare handler${pg ? " on PostgreSQL" : ""} — ${USERS.toLocaleString("en-US")} users, ${CONNECTIONS} connections, ${ROUNDS} interleaved rounds × ${SECONDS} s`,
    "",
    "| Scenario | bare req/s | bare p50 · p99 ms | Gatehouse req/s | p50 ms | p99 ms | Gatehouse/bare (median of rounds) | per round | floor | server CPU µs/request, Gatehouse · bare |",
    "|---|---:|---:|---:|---:|---:|---:|---|---:|---:|",
  ];
  for (const r of rows) {
    const ratio = median(r.ratios);
    const p99 = median(r.g.map((m) => m.p99));
    const errors = r.g.reduce((a, m) => a + m.errors, 0) + r.b.reduce((a, m) => a + m.errors, 0);
    const floor = FLOORS[r.scenario];
    lines.push(`| ${names[r.scenario]} | ${n(median(r.b.map((m) => m.rps)))} | ${median(r.b.map((m) => m.p50)).toFixed(2)} · ${median(r.b.map((m) => m.p99)).toFixed(2)} | ${n(median(r.g.map((m) => m.rps)))} | ${median(r.g.map((m) => m.p50)).toFixed(2)} | ${p99.toFixed(2)}${errors ? ` (${errors} errors)` : ""} | **${ratio.toFixed(2)}×** | ${r.ratios.map((x) => x.toFixed(2)).join(" · ")} | ${floor.ratio}× | ${median(r.g.map((m) => m.cpuUs)).toFixed(0)} · ${median(r.b.map((m) => m.cpuUs)).toFixed(0)} |`);
    if (CHECK) {
      const tooLow = belowGuard(r);
      if (tooLow || errors) {
        failed = true;
        console.error(`GUARD: ${r.scenario} ${tooLow ? `ratio ${ratio.toFixed(2)}× is below ${GUARD_MARGIN} × its guard line ${GUARD_FLOORS[r.scenario]}× (target ${floor.ratio}×)` : ""}${errors ? ` ${errors} requests failed` : ""}`);
      }
    }
  }
  lines.push("", `Machine: ${cpus().length} CPUs (shared), load average ${load0.map((x) => x.toFixed(1)).join(" ")} at start, ${load1.map((x) => x.toFixed(1)).join(" ")} at end; Bun ${Bun.version}; ${SOURCE ? "bun src/main.ts" : "compiled executable"}; ${twoCores ? "servers on CPU 0, wrk on CPU 1" : "no pinning"}; wrk 1 thread, ${CONNECTIONS} connections.${pgLine}`);
  console.log(lines.join("\n"));
} finally {
  await cleanup();
}
process.exit(failed ? 1 : 0);
