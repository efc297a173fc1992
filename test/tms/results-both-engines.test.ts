/**
 * One test process, apps of both engines (as the suite's SQLite run is when it reaches the
 * PostgreSQL tests): the v2 results path's statements are built per engine. A module-level cache
 * once gave a PostgreSQL node SQLite's `rowid` (500 on every retried result id).
 */
import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers";
import { startTestCluster, type TestCluster } from "../support/in-process-nodes";
import { testServerUrl } from "../support/postgres";

let cluster: TestCluster | null = null;
const sqlite = createTestApp({}, { sqlite: true });
afterAll(async () => {
  sqlite.close();
  await cluster?.close();
});

type Caller = { admin(method: string, path: string, body?: unknown): Promise<Response>; request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response> };

async function reportTwice(app: Caller): Promise<number[]> {
  const token = ((await (await app.admin("POST", "/api/admin/api-tokens", { name: "reporter" })).json()) as { token: string }).token;
  const api = (method: string, path: string, body?: unknown) => app.request(method, path, { body, headers: { token } });
  expect((await api("POST", "/api/v1/project", { title: "Both", code: "BOTH" })).status).toBe(200);
  const run = ((await (await api("POST", "/api/v1/run/BOTH", { title: "r" })).json()) as { result: { id: number } }).result.id;
  const batch = { results: [{ id: "same-id", title: "a reported case", execution: { status: "passed" } }] };
  const statuses: number[] = [];
  for (let i = 0; i < 2; i++) statuses.push((await api("POST", `/api/v2/BOTH/run/${run}/results`, batch)).status); // the retry finds the id
  return statuses;
}

test("a retried v2 result id answers 200 on SQLite, then on PostgreSQL in the same process", async () => {
  expect(await reportTwice(sqlite)).toEqual([200, 200]);
  testServerUrl();
  cluster = await startTestCluster(1);
  expect(await reportTwice(cluster.nodes[0]!)).toEqual([200, 200]);
}, 60_000);
