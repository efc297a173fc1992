#!/usr/bin/env bun
/**
 * Webhook engine benchmark. Prints a markdown table.
 *
 *   bun scripts/bench-webhooks.ts [--events 100000] [--backlog 1000000] [--latency-seconds 10] [--concurrency 32]
 *                                 [--engine sqlite|postgres] [--no-memory] [--only one,ten,latency,memory]
 *
 * Defaults are the sizes issue 5 asks for (a full run takes several minutes and ~2 GB of temp disk).
 *
 * A receiver answering 200 at once runs in a separate process (so it does not share the engine's
 * event loop). In the same run we measure a baseline: a bare loop of fetch POSTs with the same
 * concurrency, headers and body. Scenarios:
 *  1. throughput: N events × 1 subscription and × 10 subscriptions, enqueued first, then drained
 *     by the real delivery loop over a real SQLite file (WAL, synchronous=FULL);
 *  2. latency: commit-to-receipt p50/p99 while publishing at a steady 500 events/s (open loop:
 *     each event's transaction starts on schedule, as concurrent producers' would);
 *  3. memory: RSS sampled every 250 ms while a large backlog (10 subscriptions) drains. The start
 *     point is the first sample once the loop has run for 1 s (JIT, connection pool and statement
 *     caches warm); growth is the largest sample over it. The backlog is enqueued with `publish`
 *     beforehand, so SQLite's page cache is already full when the drain starts.
 * Each throughput line also reports CPU time per delivery of the main thread and of Bun's HTTP
 * client thread (from /proc, Linux only), which is steadier than the rate on a shared machine.
 * `--engine postgres`: each scenario's engine runs on a database of its own on a durable
 * PostgreSQL (bench-postgres-server.ts: `BENCH_POSTGRES_URL`, or one started here with fsync and
 * synchronous_commit on), opened as `gatehouse serve` opens it (the pool's options, 10 connections,
 * the store), and each throughput line adds what a delivery costs the server: transactions
 * committed (pg_stat_database), WAL flushes (pg_stat_wal, server-wide) and, when the server has
 * `pg_stat_statements` (bench-postgres-waits.ts starts one that has), statements, with the most
 * called ones on stderr. `--no-memory` leaves out scenario 3; `--only` runs the scenarios named
 * (1 subscription, 10 subscriptions, latency, memory), each against its own baseline.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig, type Config } from "../src/config";
import type { AppContext } from "../src/context";
import { closeDatabase, openDatabase } from "../src/db/connection";
import { silentLogger } from "../src/log";
import { EVENTS } from "../src/webhooks/catalog";
import { startDeliveryLoop } from "../src/webhooks/dispatcher";
import { publish } from "../src/webhooks/publish";
import { envelopeBody, generateSecret, signatureHeader } from "../src/webhooks/signer";
import { webhookEvents } from "../src/webhooks/tables";
import { inArray } from "drizzle-orm";
import { argOf, numberArg } from "./args";
import { addSubscriptions, enqueueEvents } from "./webhook-backlog";
import { writeTransaction } from "../src/db/transaction";
import { ephemeralSecretBox } from "../src/lib/secret-box";
import { benchDatabase, benchPostgres, postgresSettings, settingsLine, walSyncsOf } from "./bench-postgres-server";
import postgres from "postgres";

const now = () => performance.timeOrigin + performance.now();

// ---------------------------------------------------------------- receiver (child process)
if (process.argv.includes("--receiver")) {
  let count = 0;
  let tracking = false;
  let ids: string[] = [];
  let times: number[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 60,
    fetch(req) {
      const path = new URL(req.url).pathname;
      if (path === "/__stats") return Response.json({ count });
      if (path === "/__track") {
        tracking = true;
        ids = [];
        times = [];
        return new Response("ok");
      }
      if (path === "/__receipts") {
        tracking = false;
        return Response.json({ ids, times });
      }
      count++;
      if (tracking) {
        ids.push(req.headers.get("webhook-id")!);
        times.push(now());
      }
      return new Response("ok");
    },
  });
  console.log(`PORT ${server.port}`);
  await new Promise(() => {});
}

// ---------------------------------------------------------------- helpers
const EVENTS_N = numberArg("events", 100_000);
const BACKLOG = numberArg("backlog", 1_000_000);
const LATENCY_SECONDS = numberArg("latency-seconds", 10);
const CONCURRENCY = numberArg("concurrency", 32);
const ENGINE = process.argv.includes("--engine") ? process.argv[process.argv.indexOf("--engine") + 1]! : "sqlite";
if (ENGINE !== "sqlite" && ENGINE !== "postgres") throw new Error(`--engine: expected sqlite or postgres, got ${ENGINE}`);
const ONLY = new Set((argOf("only") ?? "one,ten,latency,memory").split(","));
const MEMORY = !process.argv.includes("--no-memory") && ONLY.has("memory");

async function startReceiverProcess() {
  const proc = Bun.spawn([process.execPath, import.meta.path, "--receiver"], { stdout: "pipe", stderr: "inherit" });
  const reader = proc.stdout.getReader();
  let text = "";
  while (!/PORT (\d+)/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error("receiver exited");
    text += new TextDecoder().decode(value);
  }
  const port = Number(/PORT (\d+)/.exec(text)![1]);
  const base = `http://127.0.0.1:${port}`;
  return {
    url: `${base}/hook`,
    count: async () => ((await (await fetch(`${base}/__stats`)).json()) as { count: number }).count,
    track: () => fetch(`${base}/__track`).then((r) => r.text()),
    receipts: async () => (await (await fetch(`${base}/__receipts`)).json()) as { ids: string[]; times: number[] },
    stop: () => proc.kill(),
  };
}
type Receiver = Awaited<ReturnType<typeof startReceiverProcess>>;

const pg = ENGINE === "postgres" && !process.argv.includes("--receiver") ? await benchPostgres() : null;

async function engine(overrides: Partial<Config> = {}) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));
  const config = testConfig({
    dataDir: dir,
    webhookAllowPrivateTargets: true,
    webhookConcurrency: CONCURRENCY,
    webhookPerSubscriptionConcurrency: CONCURRENCY,
    webhookTimeoutMs: 15_000,
    ...overrides,
  });
  if (pg) {
    const { openPool } = await import("../src/db/postgres/connect");
    const { migratePostgres } = await import("../src/db/postgres/migrate");
    const { postgresHandle } = await import("../src/db/postgres/open");
    const database = await benchDatabase(pg.url, "webhooks");
    const { sql } = openPool({ url: database.url, poolSize: config.databasePoolSize, caFile: null });
    await migratePostgres(sql);
    const handle = postgresHandle(sql);
    const ctx: AppContext = { config, db: handle.db, sqlite: null, groupCommit: handle.groupCommit, log: silentLogger, version: "bench", secrets: ephemeralSecretBox() };
    return {
      ctx,
      addSubscriptions: (url: string, n: number) => addSubscriptions(ctx.db, url, n),
      enqueue: (n: number) => enqueueEvents(ctx.db, n),
      pending: async () => Number((await sql`SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`)[0]!.n),
      serverCounters: () => serverCounters(new URL(database.url).pathname.slice(1)),
      async close() {
        await handle.store.close();
        await database.drop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: true });
  const ctx: AppContext = { config, db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: "bench", secrets: ephemeralSecretBox() };
  return {
    ctx,
    addSubscriptions: (url: string, n: number) => addSubscriptions(ctx.db, url, n),
    enqueue: (n: number) => enqueueEvents(ctx.db, n),
    pending: async () => (ctx.sqlite!.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get() as { n: number }).n,
    serverCounters: async (): Promise<ServerCounters | null> => null,
    async close() {
      closeDatabase(handle);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** What the server has done for one database so far (PostgreSQL only): transactions, WAL flushes, statements by text. */
type ServerCounters = { commits: number; walSyncs: number; statements: Map<string, number> | null };

const pgAdmin = pg ? postgres(pg.url, { max: 1, onnotice: () => {} }) : null;

async function serverCounters(database: string): Promise<ServerCounters> {
  const sql = pgAdmin!;
  // A backend reports its counters to the statistics system when idle, at most once a second.
  await Bun.sleep(1100);
  await sql`SELECT pg_stat_clear_snapshot()`;
  const [db] = await sql<{ commits: string }[]>`SELECT xact_commit::text AS commits FROM pg_stat_database WHERE datname = ${database}`;
  const walSyncs = await walSyncsOf(sql);
  let statements: Map<string, number> | null = null;
  const [ext] = await sql`SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements'`;
  if (ext) {
    const rows = await sql<{ query: string; calls: string }[]>`
      SELECT left(regexp_replace(s.query, '[[:space:]]+', ' ', 'g'), 100) AS query, sum(s.calls)::text AS calls
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ${database} GROUP BY 1`;
    statements = new Map(rows.map((r) => [r.query, Number(r.calls)]));
  }
  return { commits: Number(db?.commits ?? NaN), walSyncs, statements };
}

/** Per delivery between two counters' reads: transactions, WAL flushes, statements (and the most called, on stderr). */
function serverCostPer(before: ServerCounters | null, after: ServerCounters | null, n: number, label: string) {
  if (!before || !after) return null;
  let statements: number | null = null;
  if (before.statements && after.statements) {
    const delta = [...after.statements].map(([q, calls]) => [q, calls - (before.statements!.get(q) ?? 0)] as const).filter(([, d]) => d > 0);
    statements = delta.reduce((a, [, d]) => a + d, 0) / n;
    for (const [q, d] of delta.sort((a, b) => b[1] - a[1]).slice(0, 12)) console.error(`  ${label}: ${(d / n).toFixed(3)}/delivery  ${q}`);
  }
  return { commits: (after.commits - before.commits) / n, walSyncs: (after.walSyncs - before.walSyncs) / n, statements };
}

async function waitForCount(rx: Receiver, target: number, timeoutMs = 15 * 60_000) {
  const deadline = Date.now() + timeoutMs;
  while ((await rx.count()) < target) {
    if (Date.now() > deadline) throw new Error(`receiver stuck below ${target}`);
    await Bun.sleep(20);
  }
}

/** CPU milliseconds used so far by this process's main thread and by Bun's HTTP client thread (0 where /proc is missing). */
function threadCpuMs(): { main: number; http: number } {
  const out = { main: 0, http: 0 };
  try {
    for (const tid of readdirSync("/proc/self/task")) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const ms = (Number(fields[11]) + Number(fields[12])) * 10; // utime + stime, in 100 Hz ticks
      if (tid === String(process.pid)) out.main += ms;
      else if (readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trim() === "HTTP Client") out.http += ms;
    }
  } catch {
    /* not Linux */
  }
  return out;
}
function cpuPerItem(before: { main: number; http: number }, n: number) {
  const after = threadCpuMs();
  return { mainUs: (1000 * (after.main - before.main)) / n, httpUs: (1000 * (after.http - before.http)) / n };
}

/** Isolates scenarios: collect garbage and flush the previous scenario's dirty pages before the next. */
async function settle() {
  Bun.gc(true);
  Bun.spawnSync(["sync"]);
  await Bun.sleep(1000);
}

// ---------------------------------------------------------------- scenarios
async function baseline(rx: Receiver, requests: number) {
  const secret = generateSecret();
  const body = envelopeBody("case.created", Math.floor(Date.now() / 1000), JSON.stringify(EVENTS["case.created"].example));
  let next = 0;
  const cpu = threadCpuMs();
  const start = now();
  const worker = async () => {
    while (next < requests) {
      next++;
      const ts = Math.floor(Date.now() / 1000);
      const id = `msg_${next}`;
      const res = await fetch(rx.url, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/json", "user-agent": "Gatehouse-Webhooks/bench", "webhook-id": id, "webhook-timestamp": String(ts), "webhook-signature": signatureHeader([secret], id, ts, body) },
        body,
      });
      await res.text();
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return { perSecond: requests / ((now() - start) / 1000), ...cpuPerItem(cpu, requests) };
}

async function throughput(rx: Receiver, subs: number, events: number) {
  const e = await engine();
  await e.addSubscriptions(rx.url, subs);
  await e.enqueue(events);
  // The enqueue is set-up: its garbage and its dirty pages are dealt with before the clock starts,
  // so the drain is not charged for them (the baseline has no set-up to pay for).
  await settle();
  const total = events * subs;
  const before = await rx.count();
  const counters = await e.serverCounters();
  const cpu = threadCpuMs();
  const start = now();
  const loop = startDeliveryLoop(e.ctx);
  await waitForCount(rx, before + total);
  const received = (now() - start) / 1000;
  const cpuUse = cpuPerItem(cpu, total);
  while ((await e.pending()) > 0) await Bun.sleep(10); // every outcome committed
  const recorded = (now() - start) / 1000;
  await loop.stop();
  const server = serverCostPer(counters, await e.serverCounters(), total, `${subs} subscription(s)`);
  await e.close();
  return { total, perSecond: total / received, recordedPerSecond: total / recorded, ...cpuUse, server };
}

async function latency(rx: Receiver, rate: number, seconds: number) {
  const e = await engine();
  await e.addSubscriptions(rx.url, 1);
  const loop = startDeliveryLoop(e.ctx);
  await rx.track();
  const commits = new Map<number, number>(); // the payload's id → its commit's time
  const total = rate * seconds;
  const interval = 1000 / rate;
  const start = now();
  const payload = EVENTS["case.updated"].example;
  // Open loop: each event's transaction starts on schedule whether or not earlier ones committed
  // (producers are concurrent requests), so a slow commit delays its own event, not the schedule.
  const inflight: Promise<void>[] = [];
  for (let i = 0; i < total; i++) {
    const due = start + i * interval;
    const wait = due - now();
    if (wait > 1) await Bun.sleep(wait);
    else if (i % 50 === 0) await new Promise((r) => setImmediate(r)); // stay fair to the loop when behind
    inflight.push(writeTransaction(e.ctx.db, (tx) => publish(tx, "case.updated", { ...payload, id: i + 1 })).then(() => void commits.set(i + 1, now())));
  }
  await Promise.all(inflight);
  const achieved = total / ((now() - start) / 1000);
  while ((await e.pending()) > 0) await Bun.sleep(10);
  const { ids, times } = await rx.receipts();
  // webhook-id → the payload's id (events may commit out of order).
  const uidToPayload = new Map<string, number>();
  for (let off = 0; off < ids.length; off += 500) {
    const chunk = ids.slice(off, off + 500);
    for (const r of await e.ctx.db.select({ uid: webhookEvents.uid, payload: webhookEvents.payload }).from(webhookEvents).where(inArray(webhookEvents.uid, chunk))) uidToPayload.set(r.uid, (JSON.parse(r.payload) as { id: number }).id);
  }
  const lat: number[] = [];
  ids.forEach((uid, i) => {
    const payloadId = uidToPayload.get(uid);
    if (payloadId !== undefined && commits.has(payloadId)) lat.push(times[i]! - commits.get(payloadId)!);
  });
  lat.sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))]!;
  await loop.stop();
  await e.close();
  return { achieved, samples: lat.length, p50: pct(50), p99: pct(99), max: lat[lat.length - 1]! };
}

async function memory(rx: Receiver, deliveries: number) {
  const e = await engine();
  const subs = 10;
  await e.addSubscriptions(rx.url, subs);
  await e.enqueue(Math.ceil(deliveries / subs));
  Bun.gc(true);
  const beforeLoop = process.memoryUsage.rss();
  const samples: { at: number; rss: number }[] = [];
  const before = await rx.count();
  const loop = startDeliveryLoop(e.ctx);
  const start = now();
  const sampler = setInterval(() => samples.push({ at: now() - start, rss: process.memoryUsage.rss() }), 250);
  await waitForCount(rx, before + Math.ceil(deliveries / subs) * subs);
  clearInterval(sampler);
  const seconds = (now() - start) / 1000;
  await loop.stop();
  await e.close();
  // Start point: the first sample after 1 s of draining (warm-up: JIT, connection pool, statement caches).
  const steady = samples.filter((x) => x.at >= 1000).map((x) => x.rss);
  if (steady.length === 0) steady.push(samples[samples.length - 1]?.rss ?? beforeLoop);
  const first = steady[0]!;
  const max = Math.max(...steady);
  const min = Math.min(...steady);
  const last = steady[steady.length - 1]!;
  const mb = (b: number) => b / 2 ** 20;
  return { deliveries: Math.ceil(deliveries / subs) * subs, seconds, beforeLoopMb: mb(beforeLoop), firstMb: mb(first), minMb: mb(min), maxMb: mb(max), lastMb: mb(last), growth: max / first - 1 };
}

// ---------------------------------------------------------------- main
const rx = await startReceiverProcess();
try {
  const fmt = (n: number, d = 0) => n.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
  console.error(`bench: ${EVENTS_N} events, concurrency ${CONCURRENCY}, backlog ${BACKLOG}, latency ${LATENCY_SECONDS}s @ 500/s`);
  // Warm-ups, one each: both sides then run with their code compiled by the JIT and the receiver's
  // connections open, so neither measurement pays the other's start-up cost.
  await baseline(rx, 2000);
  await throughput(rx, 1, 2000);
  const cpuNote = (c: { mainUs: number; httpUs: number }) => `CPU per item: main thread ${fmt(c.mainUs, 1)} µs, HTTP client thread ${fmt(c.httpUs, 1)} µs`;
  const serverNote = (s: ReturnType<typeof serverCostPer>) =>
    s ? `; per delivery on PostgreSQL: ${fmt(s.commits, 3)} transactions, ${fmt(s.walSyncs, 3)} WAL flushes${s.statements === null ? "" : `, ${fmt(s.statements, 2)} statements`}` : "";
  const rows: string[][] = [];
  for (const subs of [1, 10]) {
    if (!ONLY.has(subs === 1 ? "one" : "ten")) continue;
    await settle();
    const base = await baseline(rx, EVENTS_N * subs);
    console.error(`baseline ×${subs}: ${fmt(base.perSecond)}/s`);
    await settle();
    const run = await throughput(rx, subs, EVENTS_N);
    console.error(`engine ×${subs}: ${fmt(run.perSecond)}/s`);
    rows.push(
      [subs === 1 ? "Bare fetch loop, same concurrency/body (baseline)" : "Bare fetch loop (baseline)", `${fmt(EVENTS_N * subs)} requests`, `${fmt(base.perSecond)} req/s`, cpuNote(base)],
      [
        `Engine, ${subs} subscription${subs === 1 ? "" : "s"}`,
        `${fmt(run.total)} deliveries`,
        `${fmt(run.perSecond)} deliveries/s`,
        `${fmt((100 * run.perSecond) / base.perSecond)}% of baseline (target ≥ 60%); all outcomes committed: ${fmt(run.recordedPerSecond)}/s; ${cpuNote(run)}${serverNote(run.server)}`,
      ],
    );
  }
  if (ONLY.has("latency")) {
    await settle();
    const lat = await latency(rx, 500, LATENCY_SECONDS);
    console.error(`latency: p50 ${fmt(lat.p50, 2)} ms, p99 ${fmt(lat.p99, 2)} ms`);
    rows.push(["Commit-to-receipt latency at 500 events/s", `${fmt(lat.samples)} events over ${LATENCY_SECONDS}s (${fmt(lat.achieved)}/s achieved)`, `p50 ${fmt(lat.p50, 2)} ms · p99 ${fmt(lat.p99, 2)} ms · max ${fmt(lat.max, 1)} ms`, "target p99 < 50 ms"]);
  }
  const mem = MEMORY ? (await settle(), await memory(rx, BACKLOG)) : null;
  if (mem) {
    console.error(`memory: ${fmt(mem.firstMb)} → max ${fmt(mem.maxMb)} MB`);
    rows.push([
      "RSS while a backlog drains",
      `${fmt(mem.deliveries)} deliveries (10 subscriptions) in ${fmt(mem.seconds, 1)} s`,
      `start ${fmt(mem.firstMb)} MB → min ${fmt(mem.minMb)} / max ${fmt(mem.maxMb)} / end ${fmt(mem.lastMb)} MB`,
      `${mem.growth >= 0 ? "+" : ""}${fmt(100 * mem.growth, 1)}% max over start (target within 20%); start = first sample after 1 s of draining; ${fmt(mem.beforeLoopMb)} MB before the loop started`,
    ]);
  }
  console.log(`| Scenario | Size | Result | Notes |\n|---|---|---|---|\n${rows.map((r) => `| ${r.join(" | ")} |`).join("\n")}`);
  const storage = pg ? `PostgreSQL, a database per scenario, pool of ${testConfig().databasePoolSize} connections (${settingsLine(await postgresSettings(pg.url))})` : "SQLite, synchronous=FULL, WAL";
  console.log(`\nConcurrency ${CONCURRENCY} (global and per subscription), ${storage}; receiver in a separate process on 127.0.0.1; Bun ${Bun.version}, ${navigator.hardwareConcurrency} cores.`);
} finally {
  rx.stop();
  await pgAdmin?.end();
  pg?.stop();
}
