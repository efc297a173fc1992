/**
 * The rules a write checks before it writes hold with the racing requests spread over three nodes
 * (issue 27): each node is an app of its own with its own pool (test/support/in-process-nodes.ts)
 * on one PostgreSQL database, the requests go round-robin over the nodes, all at once, so their
 * transactions overlap on the server as those of three processes would. Each race checks the
 * answers and then the database: seats, unique userNames, unique group displayNames per
 * workspace, a member add racing a deactivation, per-project case numbers, run transitions and
 * idempotent v2 result ids. Single-node versions: test/directory/postgres-rules.test.ts,
 * test/tms/concurrent-rules.test.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import type { Config } from "../../src/config";
import { expectScimError, json, newUser, PATCH_SCHEMA } from "../scim/helpers";
import { startTestCluster, type TestCluster, type TestNode } from "../support/in-process-nodes";
import { testServerUrl } from "../support/postgres";

/** Rate limits high enough never to answer a race 429. */
const NO_RATE_LIMITS: Partial<Config> = { scimRateLimit: 100_000, scimRateBurst: 100_000, scimDuplicateStatus: 409 };

/** `n` requests at once, request i sent to node i mod 3; the answers in order. */
const spread = <T>(nodes: TestNode[], n: number, send: (node: TestNode, i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => send(nodes[i % nodes.length]!, i)));

const statuses = (answers: Response[]) => answers.map((r) => r.status);
const tally = (codes: number[]) => Object.fromEntries([...new Set(codes)].sort().map((c) => [c, codes.filter((x) => x === c).length]));

/** A cluster of three nodes, a client of the database for the checks, and a SCIM caller with a token of `workspaceId`. */
function clusterFixture(overrides: Partial<Config>) {
  const fixture = {} as { cluster: TestCluster; nodes: TestNode[]; sql: postgres.Sql };
  beforeAll(async () => {
    testServerUrl(); // starts the run's server when there is none, outside any test's time limit
    fixture.cluster = await startTestCluster(3, { ...NO_RATE_LIMITS, ...overrides });
    fixture.nodes = fixture.cluster.nodes;
    // int8 as JS numbers, as Gatehouse reads them.
    fixture.sql = postgres(fixture.cluster.url, { max: 2, onnotice: () => {}, types: { int8: { to: 20, from: [20], serialize: String, parse: Number } as never } });
    // Every node's pool connected before the races, so their transactions really overlap.
    await Promise.all(fixture.nodes.flatMap((n) => Array.from({ length: 4 }, () => n.request("GET", "/readyz"))));
  }, 120_000);
  afterAll(async () => {
    await fixture.sql?.end();
    await fixture.cluster?.close();
  });
  return fixture;
}

async function scimCaller(nodes: TestNode[], workspaceId?: number) {
  const created = await json(await nodes[0]!.admin("POST", "/api/admin/scim-tokens", { name: `idp ${workspaceId ?? 1} ${Math.random()}`, ...(workspaceId ? { workspaceId } : {}) }));
  return (node: TestNode, method: string, path: string, body?: unknown) =>
    node.request(method, `/scim/v2${path}`, { body, headers: { authorization: `Bearer ${created.token}`, accept: "application/scim+json", "content-type": "application/scim+json" } });
}

describe("seats across nodes", () => {
  const f = clusterFixture({ licenseSeats: 5 });

  test("GATEHOUSE_LICENSE_SEATS=5, 40 creates over three nodes at once: exactly 5 active regular users, 35 refused with the SCIM seat error", async () => {
    const scim = await scimCaller(f.nodes);
    const answers = await spread(f.nodes, 40, (node, i) => scim(node, "POST", "/Users", newUser(`seat${i}@cluster.example`)));
    expect(tally(statuses(answers))).toEqual({ 201: 5, 409: 35 });
    for (const r of answers.filter((a) => a.status === 409)) expect((await expectScimError(r, 409)).detail).toContain("No free license seat");
    const [row] = await f.sql`SELECT count(*)::int AS n FROM users WHERE active = 1 AND user_type = 'regular'`;
    expect(row!.n).toBe(5);
    expect((await f.sql`SELECT count(*)::int AS n FROM users`)[0]!.n).toBe(5); // a refused create leaves nothing
  }, 60_000);
});

describe("directory rules across nodes", () => {
  const f = clusterFixture({});

  test("one userName 50 times in differing case over three nodes: one 201, 49 × 409 uniqueness, one row", async () => {
    const scim = await scimCaller(f.nodes);
    const spellings = (i: number) => [...`same.user@cluster.example`].map((c, j) => ((i >> j % 6) & 1 ? c.toUpperCase() : c)).join("");
    const answers = await spread(f.nodes, 50, (node, i) => scim(node, "POST", "/Users", newUser(spellings(i))));
    expect(tally(statuses(answers))).toEqual({ 201: 1, 409: 49 });
    for (const r of answers.filter((a) => a.status === 409)) await expectScimError(r, 409, "uniqueness");
    const rows = await f.sql`SELECT user_name_key FROM users WHERE user_name_key = 'same.user@cluster.example'`;
    expect(rows.length).toBe(1);
  }, 60_000);

  test("group displayNames: 12 creates per workspace in two workspaces over three nodes: one group per workspace holds the name", async () => {
    const workspace = await json(await f.nodes[1]!.admin("POST", "/api/admin/workspaces", { name: "second" }));
    const callers = [await scimCaller(f.nodes), await scimCaller(f.nodes, workspace.id)];
    const answers = await spread(f.nodes, 24, (node, i) => callers[i % 2]!(node, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: i % 4 < 2 ? "Platform" : "PLATFORM" }));
    expect(tally(statuses(answers))).toEqual({ 201: 2, 409: 22 });
    for (const r of answers.filter((a) => a.status === 409)) await expectScimError(r, 409, "uniqueness");
    const rows = await f.sql`SELECT workspace_id, count(*)::int AS n FROM groups WHERE display_name_key = 'platform' GROUP BY workspace_id ORDER BY workspace_id`;
    expect(rows.map((r) => [r.workspace_id, r.n])).toEqual([[1, 1], [workspace.id, 1]]);
  }, 60_000);

  test("a member add racing a deactivation, on different nodes: a deactivated user is never left a member", async () => {
    const scim = await scimCaller(f.nodes);
    const group = await json(await scim(f.nodes[0]!, "POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Deactivation race" }));
    const seen: number[] = [];
    for (let round = 0; round < 6; round++) {
      const people = await Promise.all(Array.from({ length: 4 }, async (_, i) => (await json(await scim(f.nodes[i % 3]!, "POST", "/Users", newUser(`leaver${round}-${i}@cluster.example`)))).id as string));
      // Per person: the deactivation on one node, two adds on the two others, all at once.
      const answers = await Promise.all(people.flatMap((id, p) => [
        scim(f.nodes[(p + round) % 3]!, "PATCH", `/Users/${id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: false }] }),
        ...[1, 2].map((k) => scim(f.nodes[(p + round + k) % 3]!, "PATCH", `/Groups/${group.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: id }] }] })),
      ]));
      seen.push(...statuses(answers));
    }
    expect(seen.filter((s) => s >= 500)).toEqual([]);
    const inactiveMembers = await f.sql`SELECT gm.user_id FROM group_members gm JOIN users u ON u.id = gm.user_id WHERE u.active = 0`;
    expect(inactiveMembers.map((r) => r.user_id)).toEqual([]);
    expect((await f.sql`SELECT count(*)::int AS n FROM users WHERE user_name LIKE 'leaver%' AND active = 1`)[0]!.n).toBe(0);
  }, 90_000);
});

describe("test-management rules across nodes", () => {
  const f = clusterFixture({});
  let token = "";
  const api = async (node: TestNode, method: string, path: string, body?: unknown) => {
    const r = await node.request(method, path.startsWith("/api/") ? path : `/api/v1${path}`, { body, headers: { token } });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  };
  const ok = async (node: TestNode, method: string, path: string, body?: unknown) => {
    const r = await api(node, method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  const events = async (name: string) => (await f.sql`SELECT payload FROM webhook_events WHERE name = ${name} AND project_code = 'RACE'`).map((r) => JSON.parse(r.payload as string).id as number);

  beforeAll(async () => {
    token = (await json(await f.nodes[0]!.admin("POST", "/api/admin/api-tokens", { name: "reporter" }))).token;
    await ok(f.nodes[1]!, "POST", "/project", { title: "Race", code: "RACE" });
  });

  test("per-project case numbers: 45 creates over three nodes at once are numbered 1..45, no gap, no repeat", async () => {
    const answers = await spread(f.nodes, 45, (node, i) => api(node, "POST", "/case/RACE", { title: `case ${i}` }));
    expect(answers.filter((a) => a.status !== 200)).toEqual([]);
    const oneTo45 = Array.from({ length: 45 }, (_, i) => i + 1);
    expect(answers.map((a) => a.body.result.id as number).sort((a, b) => a - b)).toEqual(oneTo45);
    const rows = await f.sql`SELECT c.number, c.title FROM tms_cases c JOIN tms_projects p ON p.id = c.project_id WHERE p.code = 'RACE' ORDER BY c.number`;
    expect(rows.map((r) => r.number)).toEqual(oneTo45);
    // each number names the case created under it
    for (const [i, a] of answers.entries()) expect(rows[a.body.result.id - 1]!.title).toBe(`case ${i}`);
  }, 60_000);

  test("run transitions: completes and aborts racing on three nodes: one wins per run, the others answer by its state, one event per run", async () => {
    const RUNS = 8;
    const runs = await Promise.all(Array.from({ length: RUNS }, async (_, i) => (await ok(f.nodes[i % 3]!, "POST", "/run/RACE", { title: `run ${i}`, cases: [1, 2] })).id as number));
    // Per run: three completes and three aborts, on all three nodes, at once.
    const answers = await spread(f.nodes, RUNS * 6, (node, i) => api(node, "POST", `/run/RACE/${runs[Math.floor(i / 6)]}/${i % 2 ? "abort" : "complete"}`));
    const completed = new Set(await events("run.completed"));
    const aborted = new Set(await events("run.aborted"));
    expect((await events("run.completed")).length + (await events("run.aborted")).length).toBe(RUNS); // one event per run, never two
    const stored = new Map((await f.sql`SELECT r.number, r.status FROM tms_runs r JOIN tms_projects p ON p.id = r.project_id WHERE p.code = 'RACE'`).map((r) => [r.number as number, r.status as string]));
    for (const [k, run] of runs.entries()) {
      const mine = answers.slice(k * 6, k * 6 + 6);
      const completes = mine.filter((_, j) => j % 2 === 0).map((a) => a.status);
      const aborts = mine.filter((_, j) => j % 2 === 1).map((a) => a.status);
      expect(completed.has(run) !== aborted.has(run)).toBe(true);
      if (completed.has(run)) {
        expect(stored.get(run)).toBe("completed");
        expect({ completes, aborts }).toEqual({ completes: [200, 200, 200], aborts: [409, 409, 409] }); // completing a completed run answers 200 unchanged
      } else {
        expect(stored.get(run)).toBe("aborted");
        expect({ completes, aborts: aborts.sort() }).toEqual({ completes: [409, 409, 409], aborts: [200, 409, 409] });
      }
    }
  }, 60_000);

  test("idempotent v2 result ids: one batch sent to all three nodes at once, twice each, stores each result once", async () => {
    const run = (await ok(f.nodes[0]!, "POST", "/run/RACE", { title: "reporter run", cases: [1, 2, 3] })).id as number;
    const batch = {
      results: [
        { id: "r-1", title: "linked", testops_id: 1, execution: { status: "passed" } },
        { id: "r-2", title: "linked too", testops_id: 2, execution: { status: "failed" } },
        { id: "r-3", title: "a case found or created once", execution: { status: "passed" } },
      ],
    };
    const answers = await spread(f.nodes, 6, (node) => api(node, "POST", `/api/v2/RACE/run/${run}/results`, batch));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const rows = await f.sql`SELECT res.client_id, count(*)::int AS n FROM tms_results res JOIN tms_runs r ON r.id = res.run_id JOIN tms_projects p ON p.id = r.project_id
      WHERE p.code = 'RACE' AND r.number = ${run} GROUP BY res.client_id ORDER BY res.client_id`;
    expect(rows.map((r) => [r.client_id, r.n])).toEqual([["r-1", 1], ["r-2", 1], ["r-3", 1]]);
    const created = await f.sql`SELECT count(*)::int AS n FROM tms_cases c JOIN tms_projects p ON p.id = c.project_id WHERE p.code = 'RACE' AND c.title = 'a case found or created once'`;
    expect(created[0]!.n).toBe(1);
  }, 60_000);
});
