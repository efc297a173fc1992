#!/usr/bin/env bun
/**
 * Where the webhook engine's per-delivery SQL time goes: the delivery ledger alone (no HTTP),
 * as the loop drives it under load. Not a benchmark with a baseline (that is bench-webhooks.ts):
 * a diagnostic behind the figures in docs/benchmarks/webhooks.md ("Fifth round").
 *
 *   bun scripts/profile-webhook-ledger.ts [--events 60000] [--subs 1] [--batch 32]
 *
 * Enqueues `events` × `subs` deliveries with `publish`, then drains them with ticks as the loop
 * runs them (`batch` successes recorded and `batch` claims per tick, 2 × batch leased, lazy
 * commits). Prints µs per delivery of the whole tick, of each queue step, and of BEGIN + COMMIT
 * (the rest), then the WAL frames one commit writes, attributed to their table or index.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../src/db/connection";
import { DeliveryLedger, type FinishedAttempt, type LeasedDelivery } from "../src/webhooks/ledger";
import { numberArg } from "./args";
import { addSubscriptions, enqueueEvents } from "./webhook-backlog";
import { ephemeralSecretBox } from "../src/lib/secret-box";

const EVENTS_N = numberArg("events", 60_000);
const SUBS = numberArg("subs", 1);
const BATCH = numberArg("batch", 32);

const dir = mkdtempSync(join(tmpdir(), "gatehouse-ledger-"));
const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: true });
const db = handle.sqlite;
const url = "http://127.0.0.1:9/hook";
await addSubscriptions(handle.db, url, SUBS);
await enqueueEvents(handle.db, EVENTS_N);
db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
Bun.gc(true);

const ledger = new DeliveryLedger(handle.db, { retrySchedule: [5_000], leaseMs: 35_000, perSubscriptionConcurrency: BATCH, secrets: ephemeralSecretBox() });
// Time every step of the queue the ledger runs (its queue is private: reached on purpose here).
const spent = new Map<string, number>();
const steps = (ledger as unknown as { q: Record<string, (...a: unknown[]) => unknown> }).q;
for (const [name, step] of Object.entries(steps)) {
  if (name === "transaction") continue;
  steps[name] = async (...a: unknown[]) => {
    const start = performance.now();
    try {
      return await step(...a);
    } finally {
      spent.set(name, (spent.get(name) ?? 0) + performance.now() - start);
    }
  };
}

const success = (c: LeasedDelivery, now: number): FinishedAttempt => ({
  deliveryId: c.id,
  subscriptionId: c.subscriptionId,
  attemptsBefore: c.attempts,
  previousAttemptId: c.lastAttemptId,
  startedAt: now,
  durationMs: 1,
  url,
  userAgent: "Gatehouse-Webhooks/profile",
  signature: `v1,${"A".repeat(43)}=`,
  result: { kind: "response", status: 200, retryAfter: null },
  responseBody: "ok",
  responseHeaders: '{"content-length":"2","content-type":"text/plain;charset=utf-8","date":"Wed, 25 Nov 2026 13:00:00 GMT"}',
});

/** Runs ticks until `limit` deliveries are recorded (or none are left); returns [deliveries, ticks, ms]. */
async function drain(limit: number, held: LeasedDelivery[], state: { finished: FinishedAttempt[] }): Promise<[number, number, number]> {
  let done = 0;
  let ticks = 0;
  const start = performance.now();
  while (done < limit) {
    const now = Date.now();
    const bySub: Record<number, number> = {};
    for (const c of held) bySub[c.subscriptionId] = (bySub[c.subscriptionId] ?? 0) + 1;
    const r = await ledger.tick({ now, finished: state.finished, released: [], claim: { budget: 2 * BATCH - held.length, held: bySub } });
    ticks++;
    done += state.finished.length;
    held.push(...r.claims);
    state.finished = held.splice(0, BATCH).map((c) => success(c, now));
    if (state.finished.length === 0 && r.claims.length === 0) break;
  }
  return [done, ticks, performance.now() - start];
}

const held: LeasedDelivery[] = [];
const state = { finished: [] as FinishedAttempt[] };
const total = EVENTS_N * SUBS;
await drain(50 * BATCH, held, state); // warm-up

// WAL frames per commit, counted early in the drain (a page freed and reused within the window
// counts for its owner at the end of it): no checkpoint meanwhile, then read the frame headers.
db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
db.exec("PRAGMA wal_autocheckpoint = 0");
const [, countedTicks] = await drain(Math.min(600 * BATCH, Math.floor(total / 4)), held, state);
const owner = new Map<number, string>();
for (const r of db.query("SELECT name, pageno, pagetype FROM dbstat").all() as { name: string; pageno: number; pagetype: string }[])
  owner.set(r.pageno, `${r.name} (${r.pagetype})`);
const wal = readFileSync(`${db.filename}-wal`);
const pageSize = wal.readUInt32BE(8);
const frames = new Map<string, number>();
let commits = 0;
for (let off = 32; off + 24 + pageSize <= wal.length; off += 24 + pageSize) {
  const page = wal.readUInt32BE(off);
  const name = page === 1 ? "page 1 (header)" : (owner.get(page) ?? "freelist");
  frames.set(name, (frames.get(name) ?? 0) + 1);
  if (wal.readUInt32BE(off + 4) !== 0) commits++;
}
db.exec("PRAGMA wal_autocheckpoint = 1000");
db.exec("PRAGMA wal_checkpoint(TRUNCATE)");

// The rest of the drain, timed, with SQLite's default checkpoints as the loop runs.
spent.clear();
const [done, ticks, ms] = await drain(Infinity, held, state);
const us = (x: number) => ((1000 * x) / done).toFixed(2);
const inStatements = [...spent.values()].reduce((a, b) => a + b, 0);
console.log(`ledger alone: ${done} deliveries × ${SUBS} subscription(s), ${(done / ticks).toFixed(1)} per tick`);
console.log(`  tick: ${us(ms)} µs per delivery (steps ${us(inStatements)}, BEGIN + COMMIT and glue ${us(ms - inStatements)}; timers add ~0.1 per statement)`);
for (const [name, t] of [...spent].sort((a, b) => b[1] - a[1])) console.log(`    ${name.padEnd(12)} ${us(t)}`);
const all = [...frames.values()].reduce((a, b) => a + b, 0);
console.log(`  WAL frames per commit: ${(all / commits).toFixed(1)} over ${commits} commits (${countedTicks} ticks)`);
for (const [name, n] of [...frames].sort((a, b) => b[1] - a[1])) console.log(`    ${name.padEnd(40)} ${(n / commits).toFixed(2)}`);
closeDatabase(handle);
rmSync(dir, { recursive: true, force: true });
