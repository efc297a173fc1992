/**
 * TMS results benchmark: 10 000 results posted through the v2 bulk endpoint
 * (`POST /api/v2/{code}/run/{id}/results`, what the Qase reporters call) in batches of 200,
 * over real HTTP to a listening Gatehouse; then the run is completed and we time how long until
 * the subscriber (a local Bun.serve) receives `run.completed` through the real delivery loop.
 *
 * Baselines, measured in the same run on the same machine with the same SQLite pragmas
 * (WAL, synchronous=FULL):
 *  - raw SQLite: the same rows (result insert + latest-status update per result) with prepared
 *    statements, one transaction per batch of 200 — the storage floor;
 *  - bare HTTP: a bare Bun.serve endpoint that JSON-parses the same batch body and does the raw
 *    inserts — the floor for "HTTP + JSON + storage" without Gatehouse's validation, auth,
 *    ORM and case resolution.
 * For the completion latency the baseline is one plain HTTP POST of the same envelope to the
 * same subscriber (what delivery costs without the outbox and loop).
 *
 *   bun scripts/bench-tms.ts [--results N] [--batch N] [--rounds N]   (defaults 10000, 200, 3)
 *
 * Prints a markdown table (medians over rounds).
 */
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { testConfig } from "../src/config";
import { closeDatabase, openDatabase } from "../src/db/connection";
import { silentLogger } from "../src/log";
import { startDeliveryLoop } from "../src/webhooks/dispatcher";
import { EVENT_ROWS, MAX_ROWS_PER_REQUEST } from "../src/tms/shared/row-budget";
import { numberArg } from "./args";
import { ephemeralSecretBox } from "../src/lib/secret-box";

const RESULTS = numberArg("results", 10_000);
const BATCH = numberArg("batch", 200);
const ROUNDS = numberArg("rounds", 3);
const CASES = 1000; // 10 results per case on average: most results overwrite an earlier one
const ADMIN = "bench-admin-token";
const STATUSES = ["passed", "failed", "blocked", "skipped", "passed", "passed"];

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

function batches(caseIds: number[]) {
  const out: object[][] = [];
  for (let i = 0; i < RESULTS; i += BATCH) {
    const batch = [];
    for (let j = i; j < Math.min(i + BATCH, RESULTS); j++)
      batch.push({
        title: `test ${j % caseIds.length}`,
        testops_id: caseIds[j % caseIds.length],
        execution: { status: STATUSES[j % STATUSES.length], duration: 10 + (j % 50), start_time: 1795338942 },
        message: j % 7 === 0 ? "assertion failed: expected 200, got 500" : null,
        steps: [],
      });
    out.push(batch);
  }
  return out;
}

/** One Gatehouse round: returns results/s and ms from the complete call to run.completed received. */
async function gatehouseRound(): Promise<{ rps: number; completeToReceivedMs: number; completeCallMs: number }> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));
  const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: true });
  const ctx = { config: testConfig({ dataDir: dir, adminToken: ADMIN, webhookAllowPrivateTargets: true }), db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: "bench", secrets: ephemeralSecretBox() };
  const app = createApp(ctx);
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => app.handle(r) });
  let completedAt = 0;
  let received = 0;
  const receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { event: string };
      received++;
      if (body.event === "run.completed") completedAt = performance.now();
      return new Response("ok");
    },
  });
  const loop = startDeliveryLoop(ctx);
  const base = `http://127.0.0.1:${server.port}`;
  const admin = (path: string, body: unknown) =>
    fetch(`${base}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) }).then((r) => r.json() as Promise<any>);
  try {
    const { token } = await admin("/api/admin/api-tokens", { name: "bench" });
    await admin("/api/admin/webhooks", { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["*"] });
    const api = async (method: string, path: string, body?: unknown) => {
      const r = await fetch(`${base}${path}`, { method, headers: { token, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
      if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${await r.text()}`);
      return (await r.json()) as any;
    };
    await api("POST", "/api/v1/project", { title: "Bench", code: "BENCH" });
    const caseIds: number[] = [];
    // As many cases per bulk as the row budget allows (a case and its event each).
    const perBulk = Math.floor(MAX_ROWS_PER_REQUEST / (1 + EVENT_ROWS));
    for (let i = 0; i < CASES; i += perBulk)
      caseIds.push(...(await api("POST", "/api/v1/case/BENCH/bulk", { cases: Array.from({ length: Math.min(perBulk, CASES - i) }, (_, k) => ({ title: `test ${i + k}`, automation: 2 })) })).result.ids);
    const run = (await api("POST", "/api/v1/run/BENCH", { title: "Bench run", cases: caseIds, environment_slug: "bench" })).result.id;
    const bodies = batches(caseIds).map((b) => JSON.stringify({ results: b }));
    // Let the setup's events (1000 case.created, run.started) reach the subscriber first, so the
    // figures below measure result ingestion and the latency of run.completed itself, not a
    // backlog of setup deliveries running alongside (the loop gives no ordering guarantee).
    const published = () => (ctx.sqlite.query("SELECT count(*) AS n FROM webhook_events").get() as { n: number }).n;
    const drainBy = performance.now() + 60_000;
    while (received < published() && performance.now() < drainBy) await Bun.sleep(5);

    const t0 = performance.now();
    for (const body of bodies) {
      const r = await fetch(`${base}/api/v2/BENCH/run/${run}/results`, { method: "POST", headers: { token, "content-type": "application/json" }, body });
      if (r.status !== 200) throw new Error(`results: ${r.status} ${await r.text()}`);
      await r.arrayBuffer();
    }
    const elapsed = performance.now() - t0;

    const c0 = performance.now();
    await api("POST", `/api/v1/run/BENCH/${run}/complete`);
    const c1 = performance.now();
    const deadline = c0 + 30_000;
    while (!completedAt && performance.now() < deadline) await Bun.sleep(0.2);
    if (!completedAt) throw new Error("run.completed not received within 30 s");
    return { rps: (RESULTS / elapsed) * 1000, completeToReceivedMs: completedAt - c0, completeCallMs: c1 - c0 };
  } finally {
    await loop.stop();
    server.stop(true);
    receiver.stop(true);
    closeDatabase(handle);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The storage floor: same rows, prepared statements, one transaction per batch. */
function rawDb(dir: string) {
  const db = new Database(join(dir, "raw.db"), { create: true, strict: true });
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA busy_timeout = 5000");
  db.exec("CREATE TABLE results (hash TEXT PRIMARY KEY, run_id INTEGER, case_id INTEGER, status TEXT, time_ms INTEGER, comment TEXT, steps TEXT, created TEXT)");
  db.exec("CREATE TABLE run_cases (run_id INTEGER, case_id INTEGER, status TEXT, PRIMARY KEY (run_id, case_id))");
  const seed = db.prepare("INSERT INTO run_cases (run_id, case_id) VALUES (1, ?)");
  db.transaction(() => {
    for (let i = 1; i <= CASES; i++) seed.run(i);
  })();
  const ins = db.prepare("INSERT INTO results VALUES (?, 1, ?, ?, ?, ?, '[]', ?)");
  const upd = db.prepare("UPDATE run_cases SET status = ? WHERE run_id = 1 AND case_id = ?");
  const insertBatch = db.transaction((batch: any[]) => {
    const now = new Date().toISOString();
    for (const r of batch) {
      ins.run(crypto.randomUUID(), r.testops_id, r.execution.status, r.execution.duration, r.message, now);
      upd.run(r.execution.status, r.testops_id);
    }
  });
  return { db, insertBatch };
}

function rawRound(): number {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-raw-"));
  const { db, insertBatch } = rawDb(dir);
  const all = batches(Array.from({ length: CASES }, (_, i) => i + 1));
  const t0 = performance.now();
  for (const b of all) insertBatch(b);
  const elapsed = performance.now() - t0;
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return (RESULTS / elapsed) * 1000;
}

async function bareHttpRound(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-bare-"));
  const { db, insertBatch } = rawDb(dir);
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { results: unknown[] };
      insertBatch(body.results);
      return Response.json({ status: true });
    },
  });
  const bodies = batches(Array.from({ length: CASES }, (_, i) => i + 1)).map((b) => JSON.stringify({ results: b }));
  const t0 = performance.now();
  for (const body of bodies) {
    const r = await fetch(`http://127.0.0.1:${server.port}/results`, { method: "POST", headers: { "content-type": "application/json" }, body });
    await r.arrayBuffer();
  }
  const elapsed = performance.now() - t0;
  server.stop(true);
  db.close();
  rmSync(dir, { recursive: true, force: true });
  return (RESULTS / elapsed) * 1000;
}

/** Baseline for delivery latency: one direct POST of a run.completed envelope to a local subscriber. */
async function directPostMs(): Promise<number> {
  const receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (r) => (await r.text(), new Response("ok")) });
  const body = JSON.stringify({ event: "run.completed", timestamp: Math.floor(Date.now() / 1000), payload: { id: 1, cases: 1000, passed: 600, failed: 200, blocked: 200, duration: 12 } });
  const samples: number[] = [];
  for (let i = 0; i < 20; i++) {
    const t0 = performance.now();
    await (await fetch(`http://127.0.0.1:${receiver.port}/hook`, { method: "POST", headers: { "content-type": "application/json" }, body })).text();
    samples.push(performance.now() - t0);
  }
  receiver.stop(true);
  return median(samples);
}

const gh: Awaited<ReturnType<typeof gatehouseRound>>[] = [];
const raw: number[] = [];
const bare: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  raw.push(rawRound());
  bare.push(await bareHttpRound());
  gh.push(await gatehouseRound());
  console.error(`round ${i + 1}/${ROUNDS}: gatehouse ${gh[i]!.rps.toFixed(0)} results/s, run.completed after ${gh[i]!.completeToReceivedMs.toFixed(1)} ms; raw ${raw[i]!.toFixed(0)}/s; bare HTTP ${bare[i]!.toFixed(0)}/s`);
}
const direct = await directPostMs();

const fmt = (n: number) => Math.round(n).toLocaleString("en-US");
console.log(`\n${RESULTS} results in batches of ${BATCH} over ${CASES} cases (median of ${ROUNDS} rounds; ${navigator.hardwareConcurrency} cores, shared machine)\n`);
console.log("| Measure | Gatehouse | Baseline | Baseline is |");
console.log("|---|---:|---:|---|");
console.log(`| Results/s, v2 bulk endpoint over HTTP | ${fmt(median(gh.map((g) => g.rps)))} | ${fmt(median(bare))} | bare Bun.serve: JSON parse + same inserts |`);
console.log(`| Results/s, storage only | — | ${fmt(median(raw))} | prepared statements, 1 transaction per batch |`);
console.log(`| Time per batch of ${BATCH} (ms) | ${(BATCH / median(gh.map((g) => g.rps)) * 1000).toFixed(1)} | ${(BATCH / median(bare) * 1000).toFixed(1)} | bare Bun.serve |`);
console.log(`| Complete call → run.completed received (ms) | ${median(gh.map((g) => g.completeToReceivedMs)).toFixed(1)} | ${direct.toFixed(1)} | one direct POST of the envelope |`);
console.log(`| Complete call alone (ms) | ${median(gh.map((g) => g.completeCallMs)).toFixed(1)} | — | |`);
