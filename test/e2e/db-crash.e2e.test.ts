import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { binaryDatabase, binaryOnPostgres, startBinary, type BinaryDatabase, type RunningBinary } from "./binary";
import { until } from "../helpers";
import { startReceiver } from "../webhooks/harness";

/**
 * kill -9 the compiled binary while 32 clients create SCIM users and test cases as fast as it
 * answers, restart it on the same database, and check that every write that was answered 2xx
 * before the kill is there, and that the `case.created` event of every acknowledged case reaches
 * the subscribed receiver (the outbox row commits with the case). On SQLite that is the data
 * directory's file; on the PostgreSQL run one database of the run's server, which is not killed.
 * (A power loss cannot be staged here; that the answer waits for the WAL sync is tested with held
 * syncs in durable-writes.test.ts.)
 */
const ADMIN = "durability-e2e-admin";
const CLIENTS = 32;
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-durability-"));
// The per-token SCIM rate limit is not under test: writing and checking go as fast as the server answers.
const env = {
  GATEHOUSE_ADMIN_TOKEN: ADMIN,
  GATEHOUSE_DATA_DIR: dataDir,
  GATEHOUSE_LOG_LEVEL: "info",
  GATEHOUSE_SCIM_RATE_LIMIT: "100000",
  GATEHOUSE_SCIM_RATE_BURST: "100000",
  GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
  GATEHOUSE_WEBHOOK_TIMEOUT_MS: "1000", // lease = 2 × timeout + 5 s: how long a delivery claimed at the kill stays parked
  GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "100",
  GATEHOUSE_WEBHOOK_RETRY_SCHEDULE: "100ms,200ms",
};
const rx = startReceiver();
const running: RunningBinary[] = [];
// Both processes run on the same database: the data directory's file, or on the PostgreSQL run one database (the server is not killed, Gatehouse is).
let database: BinaryDatabase;
beforeAll(async () => {
  database = await binaryDatabase("crash");
});
afterAll(async () => {
  for (const b of running) if (b.proc.exitCode === null && b.proc.signalCode === null) await b.stop();
  rx.stop();
  rmSync(dataDir, { recursive: true, force: true });
  await database?.drop();
});

const post = (url: string, headers: Record<string, string>, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

test("every write acknowledged before a kill -9 under 32 concurrent writers is present after restart, and every acknowledged case's event is delivered", async () => {
  const first = await startBinary({ env: { ...env, ...database.env } });
  running.push(first);
  const adminH = { authorization: `Bearer ${ADMIN}` };
  const apiToken = ((await (await post(`${first.url}/api/admin/api-tokens`, adminH, { name: "crash" })).json()) as { token: string }).token;
  const scimToken = ((await (await post(`${first.url}/api/admin/scim-tokens`, adminH, { name: "crash" })).json()) as { token: string }).token;
  expect((await post(`${first.url}/api/v1/project`, { token: apiToken }, { title: "Crash", code: "CRASH" })).status).toBe(200);
  expect((await post(`${first.url}/api/admin/webhooks`, adminH, { url: rx.url, events: ["case.created"] })).status).toBe(201);

  const cases: number[] = [];
  const users: { id: string; userName: string }[] = [];
  let killed = false;
  let n = 0;
  const client = async (c: number) => {
    while (!killed) {
      const i = n++;
      try {
        if (c % 2 === 0) {
          const r = await post(`${first.url}/api/v1/case/CRASH`, { token: apiToken }, { title: `case ${i}` });
          if (r.status === 200) cases.push(((await r.json()) as { result: { id: number } }).result.id);
        } else {
          const userName = `crash${i}@example.com`;
          const r = await post(`${first.url}/scim/v2/Users`, { authorization: `Bearer ${scimToken}` }, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, name: { givenName: "C", familyName: `R${i}` }, active: true });
          if (r.status === 201) users.push({ id: ((await r.json()) as { id: string }).id, userName });
        }
      } catch {
        return; // the connection died with the process: that write was never acknowledged
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, (_, c) => client(c));
  // Kill once enough writes are acknowledged (not after a fixed time: on a loaded machine a fixed
  // window may hold too few writes to prove anything), and never before writes are in flight.
  await until(() => cases.length + users.length >= 300, "300 acknowledged writes", 60_000);
  await Bun.sleep(200);
  // Only answers fully read before this point count as acknowledged.
  const ackedCases = [...cases];
  const ackedUsers = [...users];
  first.kill9();
  killed = true;
  await first.proc.exited;
  await Promise.all(clients);
  expect(ackedCases.length + ackedUsers.length).toBeGreaterThan(100);

  const second = await startBinary({ env: { ...env, ...database.env } });
  running.push(second);
  for (const id of ackedCases) {
    const r = await fetch(`${second.url}/api/v1/case/CRASH/${id}`, { headers: { token: apiToken } });
    expect(r.status).toBe(200);
  }
  for (const u of ackedUsers) {
    const r = await fetch(`${second.url}/scim/v2/Users/${u.id}`, { headers: { authorization: `Bearer ${scimToken}` } });
    expect(r.status).toBe(200);
    expect(((await r.json()) as { userName: string }).userName).toBe(u.userName);
  }
  // Every acknowledged case's event arrives (at least once: one claimed at the kill is sent again once its lease passes).
  const deliveredCases = () => new Set(rx.received.map((r) => (JSON.parse(r.body) as { payload: { id: number } }).payload.id));
  await until(() => ackedCases.every((id) => deliveredCases().has(id)), "the event of every acknowledged case", 60_000);
  const ids = rx.received.map((r) => r.headers["webhook-id"]!);
  const duplicates = ids.length - new Set(ids).size;
  console.log(
    `durability crash test (${binaryOnPostgres ? "PostgreSQL" : "SQLite"}): ${ackedCases.length} cases and ${ackedUsers.length} users acknowledged before kill -9, all present after restart; ` +
      `${ackedCases.length} of their case.created events delivered (${rx.received.length} deliveries, ${duplicates} duplicate(s))`,
  );
  expect(await second.stop()).toBe(0);
}, 180_000);
