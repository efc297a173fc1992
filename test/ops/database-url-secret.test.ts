/**
 * GATEHOUSE_DATABASE_URL's password never leaves the process: not in the start-up log, /version,
 * /metrics, /readyz, the admin's instance page, nor the answers and log lines of requests whose
 * database connections were cut. The run's PostgreSQL server trusts 127.0.0.1, so any password is
 * accepted — which lets a distinctive one travel every path a real one would. The process is
 * `gatehouse serve` from source, with its own crash handlers: cutting its connections again and
 * again must not stop it.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { startBinary } from "../e2e/binary";
import { freshDatabase, testServerUrl } from "../support/postgres";

const PASSWORD = "pw-Never-Shown-7f3c9";
const ADMIN = "database-url-secret-admin-token";
let fresh: Awaited<ReturnType<typeof freshDatabase>>;
let node: Awaited<ReturnType<typeof startBinary>>;

beforeAll(async () => {
  testServerUrl(); // starts the run's server when there is none, outside any test's time limit
  fresh = await freshDatabase("secret_url");
  const url = new URL(fresh.url);
  url.password = PASSWORD;
  node = await startBinary({
    command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
    env: { BUN_BE_BUN: "1", GATEHOUSE_DATABASE_URL: url.toString(), GATEHOUSE_ADMIN_TOKEN: ADMIN, LOG_LEVEL: "debug" },
    timeoutMs: 60_000,
  });
}, 120_000);

afterAll(async () => {
  await node?.stop();
  await fresh?.drop();
}, 30_000);

test("the password is in no answer and no log line, also while connections are cut; the URL is logged with *** (gatehouse serve from source)", async () => {
  const admin = { authorization: `Bearer ${ADMIN}` };
  for (const path of ["/version", "/metrics", "/readyz", "/healthz", "/api/admin/instance"]) {
    const r = await fetch(`${node.url}${path}`, { headers: admin });
    expect({ path, status: r.status }).toEqual({ path, status: 200 });
    expect(await r.text()).not.toContain(PASSWORD);
  }

  // Every connection of the node cut by the server before each request (as a failover does).
  const { default: postgres } = await import("postgres");
  const killer = postgres(testServerUrl(), { max: 1, onnotice: () => {} });
  const database = new URL(fresh.url).pathname.slice(1);
  const statuses: number[] = [];
  try {
    for (let i = 0; i < 8; i++) {
      await killer`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = ${database} AND pid <> pg_backend_pid()`;
      const r = await fetch(`${node.url}/api/admin/api-tokens`, { method: "POST", headers: { ...admin, "content-type": "application/json" }, body: JSON.stringify({ name: `t${i}` }) });
      statuses.push(r.status);
      expect(await r.text()).not.toContain(PASSWORD);
    }
  } finally {
    await killer.end();
  }
  expect(statuses.every((s) => s === 201 || s === 503)).toBe(true);
  expect(statuses).toContain(503); // at least one met a cut connection; the pool reconnects after
  // The pool recovers: a connection cut in the last round may still fail a write or two (503) before one succeeds.
  const after: number[] = [];
  for (let i = 0; i < 10 && after.at(-1) !== 201; i++)
    after.push((await fetch(`${node.url}/api/admin/api-tokens`, { method: "POST", headers: { ...admin, "content-type": "application/json" }, body: JSON.stringify({ name: `after${i}` }) })).status);
  expect(after.at(-1)).toBe(201);
  expect(after.every((s) => s === 201 || s === 503)).toBe(true);
  expect(node.proc.exitCode).toBeNull(); // the same process throughout

  const logs = node.logs();
  expect(logs).toContain('"msg":"database unavailable"');
  expect(logs).not.toMatch(/unhandled promise rejection|"msg":"uncaught exception"/);
  expect(logs).not.toContain(PASSWORD);
  expect(logs).not.toContain(encodeURIComponent(PASSWORD));
  expect(logs).toContain(":***@"); // the start-up line names the database, password hidden
}, 60_000);
