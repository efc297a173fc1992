import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryDatabase, binaryOnPostgres, startBinary, type BinaryDatabase, type RunningBinary } from "./binary";
import { startReceiver } from "../webhooks/harness";

/**
 * kill -9 the compiled binary in the middle of delivering 1000 events, restart it on the same
 * data directory, and check that every event arrives at least once, with duplicates limited to
 * what was in flight at the moment of the kill — sent but not yet recorded: the requests open
 * (≤ concurrency) plus attempts that had finished but whose outcome waited for the next group
 * commit (≤ one per slot), so at most 2 × GATEHOUSE_WEBHOOK_CONCURRENCY.
 */
const TOKEN = "crash-test-admin-token";
const CONCURRENCY = 8;
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-crash-"));
const rx = startReceiver(async () => {
  await Bun.sleep(5); // a realistic receiver: slow enough that the kill lands mid-stream
  return new Response("ok");
});
const running: RunningBinary[] = [];
// Both processes run on the same database: the data directory's file, or on the PostgreSQL run one database (the server is not killed, Gatehouse is).
let database: BinaryDatabase;
beforeAll(async () => {
  database = await binaryDatabase("whcrash");
});
afterAll(async () => {
  for (const b of running) if (b.proc.exitCode === null && b.proc.signalCode === null) await b.stop();
  rx.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const env = {
  GATEHOUSE_ADMIN_TOKEN: TOKEN,
  GATEHOUSE_DATA_DIR: dataDir,
  GATEHOUSE_LOG_LEVEL: "info", // the harness waits for the "listening" line
  GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  GATEHOUSE_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
  GATEHOUSE_WEBHOOK_PER_SUBSCRIPTION_CONCURRENCY: String(CONCURRENCY),
  GATEHOUSE_WEBHOOK_TIMEOUT_MS: "1000", // lease = 2 × timeout + 5 s: how long a crashed claim stays parked
  GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "100",
  GATEHOUSE_WEBHOOK_RETRY_SCHEDULE: "100ms,200ms",
};
const admin = (bin: RunningBinary, method: string, path: string, body?: unknown) =>
  fetch(`${bin.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${TOKEN}`, ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });

test(
  "1000 events survive a kill -9 mid-stream: each arrives at least once, duplicates only from the in-flight window",
  async () => {
    const first = await startBinary({ env: { ...env, ...database.env } });
    running.push(first);
    const sub = (await (await admin(first, "POST", "/api/admin/webhooks", { url: rx.url, events: ["*"] })).json()) as { id: number };
    const queued = await admin(first, "POST", `/api/admin/webhooks/${sub.id}/test`, { event: "case.created", count: 1000 });
    expect(queued.status).toBe(202);
    const expected = new Set(((await queued.json()) as { webhookIds: string[] }).webhookIds);
    expect(expected.size).toBe(1000);

    await rx.waitFor(250, 30_000);
    first.kill9();
    await first.proc.exited;
    // Requests the dead process wrote just before dying may still sit in the receiver's socket
    // buffers: let this process's receiver read them, so they count as sent before the restart.
    await Bun.sleep(100);
    const atKill = rx.received.length;
    expect(atKill).toBeLessThan(1000); // the kill really landed mid-stream

    const restartedAt = Date.now();
    const second = await startBinary({ env: { ...env, ...database.env } });
    running.push(second);
    // Deliveries leased at the kill come back when their lease passes (timeout + 5 s); wait until the
    // engine records all 1000 as delivered, so every resend has happened before we count.
    const delivered = async () =>
      ((await (await admin(second, "GET", `/api/admin/webhooks/${sub.id}/deliveries?status=delivered&limit=1`)).json()) as { total: number }).total;
    const deadline = Date.now() + 60_000;
    while ((await delivered()) < 1000 && Date.now() < deadline) await Bun.sleep(100);
    expect(await delivered()).toBe(1000);

    const ids = rx.received.map((r) => r.headers["webhook-id"]!);
    const seen = new Set(ids);
    for (const id of expected) expect(seen.has(id)).toBe(true);
    expect(seen.size).toBe(1000);
    const duplicates = ids.length - seen.size;
    expect(duplicates).toBeLessThanOrEqual(2 * CONCURRENCY);
    // Every duplicate is an event the killed process had already sent (its outcome died with it).
    const firstArrival = new Map<string, number>();
    for (const r of rx.received) if (!firstArrival.has(r.headers["webhook-id"]!)) firstArrival.set(r.headers["webhook-id"]!, r.at);
    const duplicated = new Set(ids.filter((id, i) => ids.indexOf(id) !== i));
    for (const id of duplicated) expect(firstArrival.get(id)!).toBeLessThan(restartedAt);
    console.log(`crash test: ${atKill} received before kill -9, ${duplicates} duplicate(s) after restart (bound: 2 × ${CONCURRENCY})`);
    expect(await second.stop()).toBe(0);
  },
  180_000,
);
