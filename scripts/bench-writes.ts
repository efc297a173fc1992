#!/usr/bin/env bun
/**
 * Durable-write benchmark (group commit), through the real HTTP API of a Gatehouse started as
 * its own process (`bun src/main.ts serve`, a fresh data directory per scenario). Prints markdown.
 *
 *   bun scripts/bench-writes.ts [--seconds 10] [--clients 32] [--rate 500] [--rounds 1] [--only …]
 *                               [--env GATEHOUSE_KEY=value]… [--root <another checkout, for A/B>]
 *
 * In the same run, as the baseline: a bare Bun.serve + bun:sqlite server (its own process, WAL,
 * synchronous=FULL) that inserts one row per POST — one fsync per request, no group commit.
 * Scenarios (`--only scim|subs0|subs1|subs10|steady` runs one):
 *  1. creates/s with `--clients` concurrent clients (closed loop, each sends its next create when
 *     the previous one answered) for SCIM POST /Users and v1 POST /case/{code} with 0, 1 and 10
 *     webhook subscriptions (receiver in a third process, answering 200 at once), in 1-second
 *     slices alternating with the bare baseline, so both see the same machine; server CPU and WAL
 *     syncs (its /metrics) per create over Gatehouse's slices.
 *  2. with subscriptions, the delivery lag at the maximum rate (a continuous run): for every
 *     delivery, receipt time minus the create's 2xx; its maximum bounds the age of the oldest
 *     undelivered event during the run.
 *  3. latency at a steady rate (open loop: creates are sent on schedule whether or not earlier ones
 *     answered) with one subscription: at `--rate`/s and at 80% of the maximum measured in 2:
 *     create latency (send → 2xx) and event latency (2xx → the subscriber's receipt).
 * The load generator is this process; on a 2-core machine it competes with the server for CPU,
 * as real clients on the same host would. Server CPU (user+system) per create is read from /proc.
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { numberArg } from "./args";

const SECONDS = numberArg("seconds", 10);
const CLIENTS = numberArg("clients", 32);
const RATE = numberArg("rate", 500);
const ROUNDS = numberArg("rounds", 1);
/** `--only subs10` etc. runs one throughput scenario (for quick comparisons); default: all. */
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1]! : null;
/** Extra GATEHOUSE_* settings for the server, e.g. `--env GATEHOUSE_WEBHOOK_CONCURRENCY=64`. */
const EXTRA_ENV = Object.fromEntries(process.argv.flatMap((a, i) => (process.argv[i - 1] === "--env" ? [a.split("=", 2) as [string, string]] : [])));
const ADMIN = "bench-writes-admin-token";
/** `--root <checkout>` serves another checkout's Gatehouse (A/B between commits); default: this one. */
const ROOT = process.argv.includes("--root") ? process.argv[process.argv.indexOf("--root") + 1]! : join(import.meta.dir, "..");
const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------- child: bare baseline server
if (process.argv.includes("--bare")) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-bare-"));
  const db = new Database(join(dir, "bare.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000");
  db.exec("CREATE TABLE cases (id INTEGER PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL)");
  const insert = db.query("INSERT INTO cases (title, created_at) VALUES (?1, ?2) RETURNING id");
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (req.method !== "POST") return new Response(null, { status: 404 });
      const body = (await req.json()) as { title: string };
      const row = insert.get(body.title, Date.now()) as { id: number };
      return Response.json({ status: true, result: { id: row.id } });
    },
  });
  console.log(`PORT ${server.port}`);
  process.on("SIGTERM", () => {
    server.stop(true);
    db.close();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  await new Promise(() => {});
}

// ---------------------------------------------------------------- child: webhook receiver
if (process.argv.includes("--receiver")) {
  // Per delivery: the case id and the receipt time. Returned and reset by /__receipts.
  let ids: number[] = [];
  let times: number[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    async fetch(req) {
      if (new URL(req.url).pathname === "/__receipts") {
        const out = Response.json({ ids, times });
        ids = [];
        times = [];
        return out;
      }
      const at = now();
      const body = (await req.json()) as { payload: { id: number } };
      ids.push(body.payload.id);
      times.push(at);
      return new Response("ok");
    },
  });
  console.log(`PORT ${server.port}`);
  await new Promise(() => {});
}

// ---------------------------------------------------------------- processes
type Child = { base: string; pid: number; stop(): Promise<void> };

async function spawnWithPort(cmd: string[], env?: Record<string, string>, pattern = /PORT (\d+)/): Promise<Child> {
  const proc = Bun.spawn(cmd, { cwd: ROOT, env, stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  let m: RegExpExecArray | null = null;
  while (!(m = pattern.exec(text))) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")} exited before listening:\n${text}`);
    text += new TextDecoder().decode(value);
  }
  void (async () => {
    for (;;) if ((await reader.read()).done) break; // keep draining the log
  })();
  const port = m[1];
  return {
    base: `http://127.0.0.1:${port}`,
    pid: proc.pid,
    async stop() {
      proc.kill("SIGTERM");
      await proc.exited;
    },
  };
}

const startBare = () => spawnWithPort([process.execPath, import.meta.path, "--bare"]);
const startReceiver = () => spawnWithPort([process.execPath, import.meta.path, "--receiver"]);

async function startGatehouse(): Promise<Child & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-writes-"));
  const child = await spawnWithPort(
    [process.execPath, ...(process.env.BENCH_PROFILE_DIR ? ["--cpu-prof", `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []), join(ROOT, "src/main.ts"), "serve"],
    {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      GATEHOUSE_HOST: "127.0.0.1",
      GATEHOUSE_PORT: "0",
      GATEHOUSE_DATA_DIR: dir,
      GATEHOUSE_ADMIN_TOKEN: ADMIN,
      GATEHOUSE_LOG_LEVEL: "info",
      GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      // One IdP token sending as fast as it can: the per-token limit (default 200/s) is not what is measured.
      GATEHOUSE_SCIM_RATE_LIMIT: "1000000",
      GATEHOUSE_SCIM_RATE_BURST: "1000000",
      ...EXTRA_ENV,
    },
    /"msg":"listening","url":"http:\/\/127\.0\.0\.1:(\d+)/,
  );
  return {
    ...child,
    dir,
    async stop() {
      await child.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

/** A counter from Gatehouse's /metrics (open on loopback). */
async function counter(server: Child, name: string): Promise<number> {
  const r = await fetch(`${server.base}/metrics`).catch(() => null);
  if (!r || r.status !== 200) return NaN;
  const m = new RegExp(`^${name} (\\d+)`, "m").exec(await r.text());
  return m ? Number(m[1]) : NaN;
}
const walSyncs = (server: Child) => counter(server, "gatehouse_wal_syncs_total");

// ---------------------------------------------------------------- Gatehouse set-up
type Target = { url: string; headers: Record<string, string>; body: (i: number) => unknown; ok: number; id: (json: any) => number };

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${url}: ${r.status} ${await r.text()}`);
  return (await r.json()) as any;
}

async function caseTarget(gh: Child, subscriptions: number, receiverUrl: string | null): Promise<Target> {
  const admin = { authorization: `Bearer ${ADMIN}` };
  const token = (await post(`${gh.base}/api/admin/api-tokens`, admin, { name: "bench" })).token as string;
  await post(`${gh.base}/api/v1/project`, { token }, { title: "Bench", code: "BENCH" });
  for (let i = 0; i < subscriptions; i++) await post(`${gh.base}/api/admin/webhooks`, admin, { url: `${receiverUrl}/s${i}`, events: ["case.created"] });
  return { url: `${gh.base}/api/v1/case/BENCH`, headers: { token }, body: (i) => ({ title: `bench case ${i}`, description: "created by scripts/bench-writes.ts" }), ok: 200, id: (j) => j.result.id };
}

async function scimTarget(gh: Child): Promise<Target> {
  const token = (await post(`${gh.base}/api/admin/scim-tokens`, { authorization: `Bearer ${ADMIN}` }, { name: "bench" })).token as string;
  return {
    url: `${gh.base}/scim/v2/Users`,
    headers: { authorization: `Bearer ${token}` },
    body: (i) => ({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName: `bench.user${i}@example.com`,
      name: { givenName: "Bench", familyName: `User${i}` },
      emails: [{ value: `bench.user${i}@example.com`, type: "work", primary: true }],
      active: true,
    }),
    ok: 201,
    id: (j) => Number(j.id),
  };
}

const bareTarget = (bare: Child): Target => ({ url: `${bare.base}/case`, headers: {}, body: (i) => ({ title: `bench case ${i}` }), ok: 200, id: (j) => j.result.id });

// ---------------------------------------------------------------- load
type Created = { id: number; sentAt: number; answeredAt: number };
let serial = 0;

async function createOne(t: Target, out: Created[], failures: { n: number }) {
  const i = serial++;
  const sentAt = now();
  const r = await fetch(t.url, { method: "POST", headers: { "content-type": "application/json", ...t.headers }, body: JSON.stringify(t.body(i)) });
  const json = await r.json();
  const answeredAt = now();
  if (r.status !== t.ok) {
    failures.n++;
    return;
  }
  out.push({ id: t.id(json), sentAt, answeredAt });
}

/** `clients` closed loops for `seconds`: every client sends its next create once the last answered. */
async function closedLoop(t: Target, seconds: number, clients = CLIENTS) {
  const created: Created[] = [];
  const failures = { n: 0 };
  const end = now() + seconds * 1000;
  const start = now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (now() < end) await createOne(t, created, failures);
    }),
  );
  const elapsed = (now() - start) / 1000;
  return { created, failures: failures.n, perSecond: created.length / elapsed, elapsed };
}

/** Creates sent on schedule at `rate`/s for `seconds`, whatever the answers do (open loop). */
async function openLoop(t: Target, rate: number, seconds: number) {
  const created: Created[] = [];
  const failures = { n: 0 };
  const inflight: Promise<void>[] = [];
  const start = now();
  const total = Math.round(rate * seconds);
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((now() - start) / 1000) * rate));
    for (; sent < due; sent++) inflight.push(createOne(t, created, failures));
    await Bun.sleep(1);
  }
  await Promise.all(inflight);
  return { created, failures: failures.n, elapsed: (now() - start) / 1000 };
}

/** Deliveries received for `created` (each subscription counts), waiting up to 60 s for all of them. */
async function receipts(rx: Child, created: Created[], subscriptions: number) {
  const byId = new Map(created.map((c) => [c.id, c.answeredAt]));
  const lags: number[] = [];
  const expected = created.length * subscriptions;
  let lastReceipt = 0;
  const deadline = Date.now() + 60_000;
  while (lags.length < expected && Date.now() < deadline) {
    const { ids, times } = (await (await fetch(`${rx.base}/__receipts`)).json()) as { ids: number[]; times: number[] };
    for (let k = 0; k < ids.length; k++) {
      const at = byId.get(ids[k]!);
      if (at === undefined) continue;
      lags.push(times[k]! - at);
      lastReceipt = Math.max(lastReceipt, times[k]!);
    }
    if (lags.length < expected) await Bun.sleep(50);
  }
  return { lags, missing: expected - lags.length, lastReceipt };
}

const pct = (xs: number[], p: number) => {
  if (xs.length === 0) return NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
};
const ms = (x: number) => (x < 10 ? x.toFixed(1) : x.toFixed(0));
const lastAnswer = (c: Created[]) => c.reduce((m, x) => Math.max(m, x.answeredAt), 0);

// ---------------------------------------------------------------- scenarios
type Row = { name: string; perSecond: number; barePerSecond: number; cpuMsPerCreate: number; syncsPerCreate: number; lag?: { perSecond: number; p50: number; p99: number; max: number; drainMs: number; missing: number }; failures: number };

/**
 * Creates/s of one Gatehouse scenario and, in the same seconds, of the bare baseline: 1-second
 * slices alternating between the two (the machine is shared; its load drifts from minute to
 * minute, so a baseline measured a minute earlier would not be the same machine). With
 * subscriptions, the delivery lag then comes from a separate continuous run at the maximum rate.
 */
async function throughput(name: string, make: () => Promise<{ server: Child; target: Target; stop(): Promise<void> }>, bare: Target, subscriptions = 0, rx: Child | null = null): Promise<Row> {
  const { server, target, stop } = await make();
  try {
    await closedLoop(target, 1, 8); // warm-up: JIT, connection pool, statement caches
    await closedLoop(bare, 1, 8);
    let cpu = 0, syncs = 0, elapsed = 0, bareCreated = 0, bareElapsed = 0, failures = 0;
    const created: Created[] = [];
    for (let slice = 0; slice < SECONDS; slice++) {
      const cpu0 = cpuSeconds(server.pid);
      const syncs0 = await walSyncs(server);
      const g = await closedLoop(target, 1);
      cpu += cpuSeconds(server.pid) - cpu0;
      syncs += (await walSyncs(server)) - syncs0;
      elapsed += g.elapsed;
      failures += g.failures;
      created.push(...g.created);
      const b = await closedLoop(bare, 1);
      bareCreated += b.created.length;
      bareElapsed += b.elapsed;
    }
    const row: Row = { name, perSecond: created.length / elapsed, barePerSecond: bareCreated / bareElapsed, cpuMsPerCreate: (cpu * 1000) / created.length, syncsPerCreate: syncs / created.length, failures };
    if (rx && subscriptions > 0) {
      await receipts(rx, created, subscriptions); // the slices' deliveries, drained
      const r = await closedLoop(target, SECONDS);
      const got = await receipts(rx, r.created, subscriptions);
      row.lag = { perSecond: r.perSecond, p50: pct(got.lags, 50), p99: pct(got.lags, 99), max: pct(got.lags, 100), drainMs: got.lastReceipt - lastAnswer(r.created), missing: got.missing };
    }
    return row;
  } finally {
    await stop();
  }
}

async function steady(rate: number, rx: Child) {
  const gh = await startGatehouse();
  try {
    const target = await caseTarget(gh, 1, rx.base);
    await closedLoop(target, 1, 8);
    await receipts(rx, [], 0);
    const holds0 = await counter(gh, "gatehouse_write_holds_total");
    const r = await openLoop(target, rate, SECONDS);
    const holds = (await counter(gh, "gatehouse_write_holds_total")) - holds0;
    const got = await receipts(rx, r.created, 1);
    const create = r.created.map((c) => c.answeredAt - c.sentAt);
    return { rate, holds, achieved: r.created.length / r.elapsed, create: { p50: pct(create, 50), p99: pct(create, 99) }, event: { p50: pct(got.lags, 50), p99: pct(got.lags, 99), max: pct(got.lags, 100) }, missing: got.missing, failures: r.failures };
  } finally {
    await gh.stop();
  }
}

const gatehouseWith = (subscriptions: number, rx: Child) => async () => {
  const server = await startGatehouse();
  return { server, target: await caseTarget(server, subscriptions, rx.base), stop: () => server.stop() };
};

const load0 = loadavg();
console.log(`# Durable writes through the HTTP API (bun scripts/bench-writes.ts ${process.argv.slice(2).join(" ")})\n`);
console.log(`Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores, load average at start ${load0.map((x) => x.toFixed(2)).join(" ")}; ${new Date().toISOString()}\n`);
const rx = await startReceiver();
try {
  for (let round = 1; round <= ROUNDS; round++) {
    if (ROUNDS > 1) console.log(`## Round ${round}\n`);
    const rows: Row[] = [];
    const wanted = (key: string) => ONLY === null || ONLY === key;
    const bareServer = await startBare();
    const bare = bareTarget(bareServer);
    try {
      if (wanted("scim"))
        rows.push(await throughput("SCIM POST /Users", async () => {
          const server = await startGatehouse();
          return { server, target: await scimTarget(server), stop: () => server.stop() };
        }, bare));
      for (const subs of [0, 1, 10])
        if (wanted(`subs${subs}`)) rows.push(await throughput(`v1 POST /case/{code}, ${subs} subscription${subs === 1 ? "" : "s"}`, gatehouseWith(subs, rx), bare, subs, rx));
    } finally {
      await bareServer.stop();
    }
    console.log(`### Creates per second, ${CLIENTS} concurrent clients, ${SECONDS} × 1 s slices alternating with the bare baseline\n`);
    console.log("| Scenario | creates/s | bare, same seconds | × bare | server CPU ms/create | WAL syncs/create |");
    console.log("|---|---:|---:|---:|---:|---:|");
    for (const r of rows)
      console.log(`| ${r.name}${r.failures ? ` (${r.failures} failed)` : ""} | ${r.perSecond.toFixed(0)} | ${r.barePerSecond.toFixed(0)} | ${(r.perSecond / r.barePerSecond).toFixed(2)} | ${r.cpuMsPerCreate.toFixed(3)} | ${r.syncsPerCreate.toFixed(3)} |`);
    const lagged = rows.filter((r) => r.lag);
    if (lagged.length) {
      console.log(`\n### Delivery lag at the maximum create rate (${CLIENTS} clients, ${SECONDS} s continuous): create's 2xx → subscriber's receipt, every delivery\n`);
      console.log("| Scenario | creates/s | lag p50 / p99 / max (ms) | last delivery after the last create (ms) |");
      console.log("|---|---:|---|---:|");
      for (const r of lagged) {
        const l = r.lag!;
        console.log(`| ${r.name} | ${l.perSecond.toFixed(0)} | ${ms(l.p50)} / ${ms(l.p99)} / ${ms(l.max)}${l.missing ? ` (${l.missing} missing)` : ""} | ${ms(Math.max(0, l.drainMs))} |`);
      }
    }
    if (wanted("steady")) {
      const max1 = rows.find((r) => r.name.includes(", 1 subscription"))?.lag?.perSecond ?? NaN;
      console.log(`\n### Latency at a steady rate, v1 POST /case/{code}, 1 subscription, ${SECONDS} s each\n`);
      console.log("| Rate (creates/s) | achieved | create p50 / p99 (ms) | event 2xx → receipt p50 / p99 / max (ms) | writes held (times) |");
      console.log("|---|---:|---|---|---:|");
      for (const rate of [RATE, Math.round(0.8 * max1)]) {
        if (!(rate > 0)) continue;
        const s = await steady(rate, rx);
        console.log(`| ${rate}${rate === RATE ? "" : " (80% of max)"} | ${s.achieved.toFixed(0)} | ${ms(s.create.p50)} / ${ms(s.create.p99)} | ${ms(s.event.p50)} / ${ms(s.event.p99)} / ${ms(s.event.max)}${s.missing ? ` (${s.missing} missing)` : ""}${s.failures ? ` (${s.failures} failed)` : ""} | ${s.holds} |`);
      }
    }
    console.log();
  }
} finally {
  await rx.stop();
}
console.log(`Load average at end ${loadavg().map((x) => x.toFixed(2)).join(" ")}.`);
process.exit(0);
