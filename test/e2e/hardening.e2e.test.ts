/**
 * Issue 18 against the compiled binary: no request can stall the process (§1), and operating
 * faults get clear answers (§5).
 */
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryOnPostgres, buildBinary, runBinaryCommand, startBinary, type RunningBinary } from "./binary";

const ADMIN = "e2e-hardening-admin-token-0123456789";
let bin: RunningBinary;
let apiToken: string;
let scimToken: string;

/** A binary (on the run's engine unless `sqliteOnly`) and an API and a SCIM token of it. */
async function startWithTokens(sqliteOnly = false) {
  // The per-token SCIM rate limit is not under test here: the filter test's setup creates 1100 users at once.
  const started = await startBinary({ sqliteOnly, env: { GATEHOUSE_ADMIN_TOKEN: ADMIN, GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "200", GATEHOUSE_SCIM_RATE_LIMIT: "100000", GATEHOUSE_SCIM_RATE_BURST: "100000" } });
  const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
  const token = async (kind: string) => ((await (await fetch(`${started.url}/api/admin/${kind}`, { method: "POST", headers: admin, body: JSON.stringify({ name: "e2e" }) })).json()) as any).token as string;
  return { bin: started, apiToken: await token("api-tokens"), scimToken: await token("scim-tokens") };
}

beforeAll(async () => {
  await buildBinary();
  ({ bin, apiToken, scimToken } = await startWithTokens());
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

test("SQLite file: while another process holds the write lock, reads and health answer at once (the delivery loop never waits for the lock)", async () => {
  // SQLite's one writer lock, taken by another process on the file: a server on the file, whatever the run's engine.
  const { bin, apiToken, scimToken } = await startWithTokens(true);
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
    await bin.stop();
  }
}, 60_000);

test("a second serve on the same data directory exits 2 naming it; migrate (and, on SQLite, backup) keep working beside the server", async () => {
  const dataDir = join(bin.dir, "data");
  const second = await runBinaryCommand(["serve"], { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: "0", ...bin.storageEnv });
  expect(second.code).toBe(2);
  expect(second.stderr + second.stdout).toContain(`GATEHOUSE_DATA_DIR: ${dataDir} is in use`);
  // On PostgreSQL the backup is pg_dump's (serve.e2e.test.ts checks the refusal).
  if (!binaryOnPostgres) expect((await runBinaryCommand(["backup", join(bin.dir, "copy.db")], { GATEHOUSE_DATA_DIR: dataDir })).code).toBe(0);
  expect((await runBinaryCommand(["migrate"], { GATEHOUSE_DATA_DIR: dataDir, ...bin.storageEnv })).code).toBe(0);
  expect((await fetch(`${bin.url}/healthz`)).status).toBe(200);
}, 30_000);

test("/metrics: open to a direct loopback scrape, not to one relayed by a proxy unless it sends the admin token", async () => {
  expect((await fetch(`${bin.url}/metrics`)).status).toBe(200);
  expect((await fetch(`${bin.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } })).status).toBe(401);
  expect((await fetch(`${bin.url}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${ADMIN}` } })).status).toBe(200);
});

test("a bulk write over the row budget is refused at once with 413; the process answers meanwhile", async () => {
  const h = { token: apiToken, "content-type": "application/json" };
  expect((await fetch(`${bin.url}/api/v1/project`, { method: "POST", headers: h, body: JSON.stringify({ title: "Abuse", code: "ABUSE" }) })).status).toBe(200);
  const ids = ((await (await fetch(`${bin.url}/api/v1/case/ABUSE/bulk`, { method: "POST", headers: h, body: JSON.stringify({ cases: Array.from({ length: 100 }, (_, i) => ({ title: `c${i}` })) }) })).json()) as any).result.ids;
  const run = ((await (await fetch(`${bin.url}/api/v1/run/ABUSE`, { method: "POST", headers: h, body: JSON.stringify({ title: "r", cases: ids }) })).json()) as any).result.id;
  const results = Array.from({ length: 2000 }, (_, i) => ({ title: `t${i}`, testops_ids: ids, execution: { status: "failed" }, defect: true }));
  const abuse = timed(`${bin.url}/api/v2/ABUSE/run/${run}/results`, { method: "POST", headers: h, body: JSON.stringify({ results }) });
  const health = await timed(`${bin.url}/healthz`);
  expect(health.status).toBe(200);
  const refused = await abuse;
  expect(refused.status).toBe(413);
  // The budget trips after 2000 rows written: in-process on SQLite, a network round trip each on
  // PostgreSQL (where other requests do not wait on the transaction: health answered above).
  expect(refused.ms).toBeLessThan(binaryOnPostgres ? 15_000 : 2000);
}, 30_000);

test("a costly legal SCIM filter is refused with 400 invalidFilter instead of stalling", async () => {
  // Enough users that a 200-term scan is over the budget (terms × users > 200000).
  const auth = { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" };
  const created = await Promise.all(Array.from({ length: 1100 }, (_, i) =>
    fetch(`${bin.url}/scim/v2/Users`, { method: "POST", headers: auth, body: JSON.stringify({ userName: `u${i}@example.com`, name: { givenName: "U", familyName: String(i) } }) }).then(async (r) => (await r.arrayBuffer(), r.status))));
  expect(created.filter((status) => status !== 201)).toEqual([]);
  const filter = Array.from({ length: 200 }, (_, i) => `not (emails co "q${i}")`).join(" and ");
  const r = await fetch(`${bin.url}/scim/v2/Users?filter=${encodeURIComponent(filter)}`, { headers: auth });
  expect(r.status).toBe(400);
  const body = (await r.json()) as any;
  expect(body.scimType).toBe("invalidFilter");
  expect(body.detail).toContain("too costly");
}, 60_000);

test("SQLite file: disk full (a small tmpfs as the data directory): 507, /readyz not writable, reads go on; all recovers once space is freed", async () => {
  const mountPoint = mkdtempSync(join(tmpdir(), "gatehouse-tmpfs-"));
  // Larger than /readyz's free-space floor (64 MiB, twice the largest write), so freeing the
  // filler makes the instance ready again.
  const mounted = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=96m", "tmpfs", mountPoint]);
  if (mounted.exitCode !== 0) throw new Error(`this test mounts a tmpfs (root, as in .ci/run): ${mounted.stderr.toString()}`);
  let full: RunningBinary | null = null;
  try {
    // The disk under the SQLite file (PostgreSQL's disk is its server's, not this process's).
    full = await startBinary({ sqliteOnly: true, env: { GATEHOUSE_ADMIN_TOKEN: ADMIN, GATEHOUSE_DATA_DIR: join(mountPoint, "data") } });
    const admin = { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" };
    const token = ((await (await fetch(`${full.url}/api/admin/api-tokens`, { method: "POST", headers: admin, body: JSON.stringify({ name: "full" }) })).json()) as any).token;
    const h = { token, "content-type": "application/json" };
    // Leave a little room, then write until the disk says no.
    const free = () => Number(Bun.spawnSync(["df", "--output=avail", "-B1", mountPoint]).stdout.toString().trim().split("\n").pop());
    writeFileSync(join(mountPoint, "filler"), new Uint8Array(Math.max(0, free() - 256 * 1024)));
    let refused: Response | null = null;
    for (let i = 0; i < 200 && !refused; i++) {
      const r = await fetch(`${full.url}/api/v1/project`, { method: "POST", headers: h, body: JSON.stringify({ title: `Full ${i}`, code: `F${i}`, description: "x".repeat(10_000) }) });
      if (r.status !== 200) refused = r;
      else await r.arrayBuffer();
    }
    expect(refused?.status).toBe(507);
    expect(((await refused!.json()) as any).error.code).toBe("insufficient_storage");
    const ready = await fetch(`${full.url}/readyz`);
    expect(ready.status).toBe(503);
    expect(((await ready.json()) as any).database).toContain("not writable");
    // Between "full" and "room for the largest write": still not ready.
    rmSync(join(mountPoint, "filler"));
    writeFileSync(join(mountPoint, "filler"), new Uint8Array(Math.max(0, free() - 32 * 1024 * 1024)));
    expect((await fetch(`${full.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${full.url}/api/v1/project`, { headers: { token } })).status).toBe(200);

    rmSync(join(mountPoint, "filler"));
    expect((await fetch(`${full.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${full.url}/api/v1/project`, { method: "POST", headers: h, body: JSON.stringify({ title: "After", code: "AFTER" }) })).status).toBe(200);
    expect(await full.stop()).toBe(0);
    full = null;
  } finally {
    if (full) full.kill9();
    await Bun.sleep(100);
    Bun.spawnSync(["umount", "-l", mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
  }
}, 60_000);
