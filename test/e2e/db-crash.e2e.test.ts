import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBinary, type RunningBinary } from "./binary";
import { until } from "../helpers";

/**
 * kill -9 the compiled binary while 32 clients create SCIM users and test cases as fast as it
 * answers, restart it on the same data directory, and check that every write that was answered
 * 2xx before the kill is there. (A power loss cannot be staged here; that the answer waits for the
 * WAL sync is tested with held syncs in durable-writes.test.ts.)
 */
const ADMIN = "durability-e2e-admin";
const CLIENTS = 32;
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-durability-"));
// The per-token SCIM rate limit is not under test: writing and checking go as fast as the server answers.
const env = { GATEHOUSE_ADMIN_TOKEN: ADMIN, GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_LOG_LEVEL: "info", GATEHOUSE_SCIM_RATE_LIMIT: "100000", GATEHOUSE_SCIM_RATE_BURST: "100000" };
const running: RunningBinary[] = [];
afterAll(async () => {
  for (const b of running) if (b.proc.exitCode === null && b.proc.signalCode === null) await b.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

const post = (url: string, headers: Record<string, string>, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });

test("every write acknowledged before a kill -9 under 32 concurrent writers is present after restart", async () => {
  const first = await startBinary({ env });
  running.push(first);
  const adminH = { authorization: `Bearer ${ADMIN}` };
  const apiToken = ((await (await post(`${first.url}/api/admin/api-tokens`, adminH, { name: "crash" })).json()) as { token: string }).token;
  const scimToken = ((await (await post(`${first.url}/api/admin/scim-tokens`, adminH, { name: "crash" })).json()) as { token: string }).token;
  expect((await post(`${first.url}/api/v1/project`, { token: apiToken }, { title: "Crash", code: "CRASH" })).status).toBe(200);

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

  const second = await startBinary({ env });
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
  console.log(`durability crash test: ${ackedCases.length} cases and ${ackedUsers.length} users acknowledged before kill -9, all present after restart`);
  expect(await second.stop()).toBe(0);
}, 120_000);
