/**
 * Issue 18 against the compiled binary: no request can stall the process (§1), and operating
 * faults get clear answers (§5).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { buildBinary, startBinary, type RunningBinary } from "./binary";

const ADMIN = "e2e-hardening-admin-token-0123456789";
let bin: RunningBinary;
let apiToken: string;
let scimToken: string;

beforeAll(async () => {
  await buildBinary();
  bin = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: ADMIN, GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "200" } });
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  apiToken = ((await (await fetch(`${bin.url}/api/admin/api-tokens`, { method: "POST", headers: admin, body: JSON.stringify({ name: "e2e" }) })).json()) as any).token;
  scimToken = ((await (await fetch(`${bin.url}/api/admin/scim-tokens`, { method: "POST", headers: admin, body: JSON.stringify({ name: "e2e" }) })).json()) as any).token;
}, 120_000);
afterAll(async () => {
  await bin?.stop();
});

const timed = async (url: string, init: RequestInit = {}) => {
  const started = performance.now();
  const r = await fetch(url, init);
  await r.arrayBuffer();
  return { status: r.status, ms: performance.now() - started };
};

test("while another process holds the write lock, reads and health answer at once (the delivery loop never waits for the lock)", async () => {
  const other = new Database(join(bin.dir, "data", "gatehouse.db"));
  other.exec("BEGIN IMMEDIATE");
  try {
    const slowest = { ms: 0 };
    // The loop polls every 200 ms: over 2 s it tries the lock ~10 times, each of which used to
    // freeze the process for busy_timeout (5 s).
    for (const until = performance.now() + 2000; performance.now() < until; ) {
      for (const [url, init] of [
        [`${bin.url}/healthz`, {}],
        [`${bin.url}/api/v1/project`, { headers: { token: apiToken } }],
        [`${bin.url}/scim/v2/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`, { headers: { authorization: `Bearer ${scimToken}` } }],
      ] as const) {
        const r = await timed(url, init);
        expect(r.status).toBe(200);
        slowest.ms = Math.max(slowest.ms, r.ms);
      }
      await Bun.sleep(50);
    }
    expect(slowest.ms).toBeLessThan(1000);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
}, 30_000);
