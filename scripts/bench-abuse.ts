/**
 * Abuse benchmark (issue 18): can one client stall the appliance for everyone else?
 *
 * The compiled executable runs in its own process over 30 000 SCIM users and a project with a run.
 * A victim (this process, one request every 10 ms on a fixed schedule, each timed from when it
 * was due) measures `GET /healthz` and a SCIM `userName eq` lookup; first alone, then while abusers send, in a loop, the largest and
 * costliest requests the limits still allow:
 *   - v2 results with `defect: true` up to the row budget (each result writes a result, a run
 *     case, a defect and a webhook event),
 *   - a case bulk up to the row budget (each case writes a case and an event),
 *   - the costliest unanchored SCIM filter the cost bound still lets through at 30 000 users.
 * Both phases run in the same process against the same server, so the comparison holds on a
 * shared machine; the machine's load is printed with the figures.
 *
 * `--engine postgres`: the executable runs on a fresh database of its own on a durable PostgreSQL
 * (bench-postgres-server.ts: `BENCH_POSTGRES_URL`, or a server started here with fsync and
 * synchronous_commit on) through GATEHOUSE_DATABASE_URL, as `gatehouse serve` is; the users are
 * the same rows (bench-users.ts), loaded with multi-row inserts.
 *
 *   bun scripts/bench-abuse.ts [--seconds 10] [--abusers 2] [--users 30000] [--engine sqlite|postgres]
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../src/db/connection";
import { FILTER_COST_BUDGET } from "../src/scim/filter";
import { createScimToken } from "../src/scim/tokens/service";
import { EVENT_ROWS, MAX_ROWS_PER_REQUEST } from "../src/tms/shared/row-budget";
import { argOf, numberArg } from "./args";
import { benchDatabase, benchPostgres, postgresSettings, settingsLine } from "./bench-postgres-server";
import { benchServerEnv, freePort } from "./bench-server";
import { loadBenchUsers, seedBenchPostgres } from "./bench-users";
import { buildExecutable } from "./build";

const SECONDS = numberArg("seconds", 10);
const ABUSERS = numberArg("abusers", 2);
const USERS = numberArg("users", 30_000);
const ADMIN = "bench-abuse-admin-token-0123456789";
const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-abuse-"));

// ---- data: SCIM users written directly (setup only) ----------------------------------------------
const ENGINE = argOf("engine") ?? "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error(`--engine: expected sqlite or postgres, got ${ENGINE}`);
const pg = ENGINE === "postgres" ? await benchPostgres() : null;
const pgDatabase = pg ? await benchDatabase(pg.url, "bench_abuse") : null;
let scimToken: string;
if (pgDatabase) {
  ({ scimToken } = await seedBenchPostgres(pgDatabase.url, USERS));
} else {
  const setup = openDatabase(join(dir, "gatehouse.db"));
  scimToken = (await createScimToken(setup.db, "bench")).token;
  closeDatabase(setup);
  const sqlite = new Database(join(dir, "gatehouse.db"), { strict: true });
  sqlite.exec("PRAGMA synchronous = OFF");
  loadBenchUsers(sqlite, 1, USERS);
  sqlite.close();
}

// ---- the server ----------------------------------------------------------------------------------
const port = await freePort();
const server = Bun.spawn([await buildExecutable(join(dir, "gatehouse")), "serve"], {
  env: benchServerEnv(port, dir, { GATEHOUSE_ADMIN_TOKEN: ADMIN, ...(pgDatabase ? { GATEHOUSE_DATABASE_URL: pgDatabase.url } : {}) }),
  stdout: "inherit",
  stderr: "inherit",
});
const base = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  try {
    if ((await fetch(`${base}/readyz`)).status === 200) break;
  } catch {
    /* not yet */
  }
  if (i > 500) throw new Error("gatehouse did not start");
  await Bun.sleep(20);
}
const cleanup = async () => {
  server.kill("SIGTERM");
  await server.exited;
  await pgDatabase?.drop();
  pg?.stop();
  rmSync(dir, { recursive: true, force: true });
};

const json = { "content-type": "application/json" };
const post = async (path: string, headers: Record<string, string>, body: unknown) => {
  const r = await fetch(`${base}${path}`, { method: "POST", headers: { ...json, ...headers }, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${path} → ${r.status}: ${await r.text()}`);
  return (await r.json()) as any;
};
const apiToken = (await post("/api/admin/api-tokens", { authorization: `Bearer ${ADMIN}` }, { name: "abuser" })).token as string;
const tok = { token: apiToken };
// A subscription, so every event also writes a delivery (and the loop has work), as in production.
await post("/api/admin/webhooks", { authorization: `Bearer ${ADMIN}` }, { url: "https://hooks.bench.invalid/in", events: ["*"] });
await post("/api/v1/project", tok, { title: "Abuse", code: "ABUSE" });
const caseIds = (await post("/api/v1/case/ABUSE/bulk", tok, { cases: Array.from({ length: 300 }, (_, i) => ({ title: `c${i}` })) })).result.ids as number[];
const runId = (await post("/api/v1/run/ABUSE", tok, { title: "abused", cases: caseIds })).result.id as number;

// ---- the largest allowed requests -----------------------------------------------------------------
// v2 results with defects: result + run case + defect + event (EVENT_ROWS) per result.
const defectsPerRequest = Math.floor(MAX_ROWS_PER_REQUEST / (3 + EVENT_ROWS));
const resultsBody = JSON.stringify({
  results: Array.from({ length: defectsPerRequest }, (_, i) => ({ title: `r${i}`, testops_id: caseIds[i % caseIds.length], execution: { status: "failed", stacktrace: "x".repeat(200) }, defect: true })),
});
// Case bulk: case + event per case.
const casesPerRequest = Math.floor(MAX_ROWS_PER_REQUEST / (1 + EVENT_ROWS));
let bulkSeq = 0;
const casesBody = () => JSON.stringify({ cases: Array.from({ length: casesPerRequest }, (_, i) => ({ title: `bulk ${bulkSeq++} ${i}` })) });
// The costliest filter still under the cost bound at this directory size.
const filterTerms = Math.max(1, Math.floor(FILTER_COST_BUDGET / USERS));
const costlyFilter = encodeURIComponent(Array.from({ length: filterTerms }, (_, i) => `not (emails co "q${i}")`).join(" and "));
const scimAuth = { authorization: `Bearer ${scimToken}` };

const abuseStatuses = new Map<string, number>();
const abuseTimes: Record<string, number[]> = { results: [], cases: [], filter: [] };
async function abuser(stop: () => boolean, offset: number) {
  for (let i = offset; !stop(); i++) {
    const kind = (["results", "cases", "filter"] as const)[i % 3]!;
    const t0 = performance.now();
    const r =
      kind === "results" ? await fetch(`${base}/api/v2/ABUSE/run/${runId}/results`, { method: "POST", headers: { ...json, ...tok }, body: resultsBody })
      : kind === "cases" ? await fetch(`${base}/api/v1/case/ABUSE/bulk`, { method: "POST", headers: { ...json, ...tok }, body: casesBody() })
      : await fetch(`${base}/scim/v2/Users?filter=${costlyFilter}&count=10`, { headers: scimAuth });
    await r.arrayBuffer();
    abuseTimes[kind]!.push(performance.now() - t0);
    const key = `${kind} ${r.status}`;
    abuseStatuses.set(key, (abuseStatuses.get(key) ?? 0) + 1);
  }
}

// ---- the victim -------------------------------------------------------------------------------------
// Open loop: one request every VICTIM_INTERVAL_MS on a fixed schedule (a monitor, an IdP's sync),
// each timed from when it was due, not from when the previous answer came. A closed loop would
// send a single request into a stall and thousands between stalls, hiding them from the p99.
const VICTIM_INTERVAL_MS = 10;
type Latencies = { healthz: number[]; lookup: number[] };
async function victim(ms: number): Promise<Latencies> {
  const out: Latencies = { healthz: [], lookup: [] };
  const start = performance.now();
  const pending: Promise<void>[] = [];
  for (let i = 0; i * VICTIM_INTERVAL_MS < ms; i++) {
    const due = start + i * VICTIM_INTERVAL_MS;
    // A timer may fire a fraction of a millisecond early; never send before the request is due.
    while (performance.now() < due) await Bun.sleep(Math.max(0, due - performance.now()));
    const lookup = i % 2 === 1;
    const url = lookup ? `${base}/scim/v2/Users?filter=${encodeURIComponent(`userName eq "user${1 + (i % USERS)}@bench.example"`)}` : `${base}/healthz`;
    pending.push(
      fetch(url, lookup ? { headers: scimAuth } : {}).then(async (r) => {
        await r.arrayBuffer();
        if (r.status !== 200) throw new Error(`victim ${url} → ${r.status}`);
        (lookup ? out.lookup : out.healthz).push(performance.now() - due);
      }),
    );
  }
  await Promise.all(pending);
  return out;
}
const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
};
const row = (label: string, xs: number[]) => `| ${label} | ${xs.length} | ${pct(xs, 0.5).toFixed(1)} | ${pct(xs, 0.99).toFixed(1)} | ${Math.max(...xs).toFixed(1)} |`;

// Where a phase's time went: the server process's CPU (% of one core) and the whole machine's busy
// share (% of all cores). A tail with the server far from a core and the machine saturated is the
// machine's other load, not Gatehouse's event loop.
const ticks = () => {
  const proc = readFileSync(`/proc/${server.pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const cpu = readFileSync("/proc/stat", "utf8").split("\n")[0]!.trim().split(/\s+/).slice(1).map(Number);
  return { server: Number(proc[11]) + Number(proc[12]), busy: cpu.reduce((a, b) => a + b, 0) - cpu[3]! - cpu[4]!, total: cpu.reduce((a, b) => a + b, 0) };
};
type Usage = { serverCore: number; machineBusy: number };
async function measured<T>(work: () => Promise<T>): Promise<[T, Usage]> {
  const t0 = ticks();
  const w0 = performance.now();
  const result = await work();
  const t1 = ticks();
  const seconds = (performance.now() - w0) / 1000;
  return [result, { serverCore: (100 * (t1.server - t0.server)) / 100 / seconds, machineBusy: (100 * (t1.busy - t0.busy)) / (t1.total - t0.total) }];
}
const usageLine = (label: string, u: Usage) => `${label}: Gatehouse ${u.serverCore.toFixed(0)}% of a core, machine ${u.machineBusy.toFixed(0)}% busy`;

try {
  await victim(1000); // warm-up
  const [alone, aloneUsage] = await measured(() => victim(SECONDS * 1000));
  let stopped = false;
  const abusers = Array.from({ length: ABUSERS }, (_, k) => abuser(() => stopped, k));
  await Bun.sleep(200);
  const [abused, abusedUsage] = await measured(() => victim(SECONDS * 1000));
  stopped = true;
  await Promise.all(abusers);

  const [l1, l5] = loadavg();
  console.log(`\nMachine: ${cpus().length} CPUs, load average ${l1!.toFixed(2)} (1 min) / ${l5!.toFixed(2)} (5 min) at the end; ${USERS} SCIM users; ${SECONDS} s per phase; ${ABUSERS} abuser${ABUSERS === 1 ? "" : "s"}.`);
  if (pg) console.log(`Engine: PostgreSQL, a database of its own, Gatehouse's default pool; ${settingsLine(await postgresSettings(pg.url))}.`);
  else console.log("Engine: SQLite.");
  console.log(`CPU (/proc, 100 ticks/s): ${usageLine("no abuser", aloneUsage)}; ${usageLine("with abusers", abusedUsage)}.`);
  console.log(`Abuser requests: v2 results ×${defectsPerRequest} with defect: true; case bulk ×${casesPerRequest}; SCIM filter of ${filterTerms} unanchored terms.\n`);
  console.log("| Victim request | n | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|");
  console.log(row("`GET /healthz`, no abuser", alone.healthz));
  console.log(row("`GET /healthz`, with abusers", abused.healthz));
  console.log(row("SCIM `userName eq`, no abuser", alone.lookup));
  console.log(row("SCIM `userName eq`, with abusers", abused.lookup));
  console.log("\n| Abuser request | n | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|");
  for (const [kind, xs] of Object.entries(abuseTimes)) if (xs.length) console.log(row(kind, xs));
  console.log(`\nAbuser statuses: ${[...abuseStatuses].map(([k, n]) => `${k}: ${n}`).join(", ")}`);
} finally {
  await cleanup();
}
