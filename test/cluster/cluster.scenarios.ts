/**
 * The cluster test (issue 27, docs/cluster.md): real processes on 127.0.0.1 — a PostgreSQL primary
 * with a synchronous streaming standby, three nodes of the compiled binary on one multi-host URL,
 * HAProxy in front checking /readyz, a webhook receiver — under a steady mixed load sent through
 * HAProxy (SCIM creates and patches, v1 case creates, v2 results; clients retry until answered 2xx).
 *
 *   4. three nodes started at once on an empty database migrate it once; a node that does not
 *      know a migration the database records (an older version) exits 2;
 *   1. kill -9 a node: every acknowledged write is in the database, every case.created of an
 *      acknowledged case reaches the receiver, duplicates within the crash bound;
 *   2. SIGTERM each node in turn and start it again (a rolling restart): no request fails;
 *   3. stop the primary (immediate), promote the standby: every node writes again within
 *      RECOVERY_BOUND_MS of the promotion, answering 503 meanwhile (never 500, never a hang);
 *      nothing acknowledged lost, no event lost.
 *
 * Not part of `npm test` (its name is no *.test.ts): `.ci/run` runs it once, on its own step:
 *   npx bun test ./test/cluster/cluster.scenarios.ts
 * Each scenario prints what was acknowledged, found, delivered and duplicated.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import postgres from "postgres";
import { buildBinary } from "../e2e/binary";
import { cleanUpCluster, clusterNode, clusterSettings, startHaproxy, startNode, startReplicatedPostgres, type ClusterNode, type Haproxy, type NodeSettings, type ReplicatedPostgres } from "../support/cluster";
import { findAcknowledged, MixedLoad, startWebhookReceiver, type WebhookReceiver } from "./load";
import { migrations as postgresMigrations } from "../../src/db/postgres/migrations.generated";

const ADMIN_TOKEN = "cluster-test-admin-token";
const PROJECT = "CLU";
/** Each node's webhook concurrency: the crash-duplicate bound is 2 × this per node that dies with claims (docs/webhooks.md). */
const CONCURRENCY = 8;
/** Stated bound: after the standby is promoted, every node takes writes again within this. */
const RECOVERY_BOUND_MS = 10_000;
/** How long the test waits for every event of an acknowledged write to arrive (the lease of a killed node's claims is 2 × 1 s + 5 s). */
const SETTLE_MS = 60_000;

let pg: ReplicatedPostgres;
let haproxy: Haproxy;
let receiver: WebhookReceiver;
let settings: NodeSettings;
let load: MixedLoad;
const nodes: ClusterNode[] = [clusterNode("n1"), clusterNode("n2"), clusterNode("n3")];

beforeAll(async () => {
  await buildBinary();
  pg = await startReplicatedPostgres();
  receiver = startWebhookReceiver();
  settings = clusterSettings(pg.nodeUrl, ADMIN_TOKEN, {
    GATEHOUSE_WEBHOOK_CONCURRENCY: String(CONCURRENCY),
    GATEHOUSE_WEBHOOK_TIMEOUT_MS: "1000",
    GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "100",
    GATEHOUSE_WEBHOOK_RETRY_SCHEDULE: "200ms,500ms,1s,2s,5s",
  });

}, 120_000);

afterAll(async () => {
  try {
    await stopEverything();
  } finally {
    cleanUpCluster(); // whatever is left, whatever failed above: no process, data dir or temp dir stays
  }
}, 60_000);

async function stopEverything() {
  await load?.stop();
  // GATEHOUSE_CLUSTER_LOGS=<dir> keeps every process's log for a failure's post-mortem.
  const keep = process.env.GATEHOUSE_CLUSTER_LOGS;
  if (keep) {
    mkdirSync(keep, { recursive: true });
    for (const n of nodes) writeFileSync(join(keep, `${n.name}.log`), nodeLogs(n));
    if (pg) for (const i of [pg.primary, pg.standby]) writeFileSync(join(keep, `postgres-${i.name}.log`), i.log());
    if (haproxy) writeFileSync(join(keep, "haproxy.log"), `${haproxy.config}\n${haproxy.logs()}`);
  }
  await Promise.all(nodes.map((n) => (n.process && n.process.proc.exitCode === null ? n.process.stop("SIGKILL") : null)));
  await haproxy?.stop();
  receiver?.stop();
  pg?.stop();
}

const admin = async (path: string, body: unknown) => {
  const r = await fetch(`${haproxy.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return (await r.json()) as any;
};
const api = async (token: string, path: string, body: unknown) => {
  const r = await fetch(`${haproxy.url}/api/v1${path}`, { method: "POST", headers: { token, "content-type": "application/json" }, body: JSON.stringify(body) });
  if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
  return ((await r.json()) as any).result;
};

async function withDatabase<T>(work: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = postgres(pg.primaryUrl(), { max: 1, onnotice: () => {} });
  try {
    return await work(sql);
  } finally {
    await sql.end();
  }
}

/** Starts a node process that is expected to refuse to start; its exit code and output. */
async function startRefused(node: ClusterNode): Promise<{ code: number | null; output: string }> {
  const binary = await buildBinary();
  const proc = Bun.spawn([binary, "serve"], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...settings, GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: String(node.port), GATEHOUSE_DATA_DIR: node.dataDir },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => proc.kill("SIGKILL"), 30_000);
  const [code, out, err] = await Promise.all([proc.exited, new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  clearTimeout(timer);
  return { code: proc.signalCode ? null : code, output: out + err };
}

/** Waits until the receiver has a case.created for every acknowledged case and no delivery is pending; what was missing if not. */
async function settle(): Promise<{ undelivered: number[]; pending: number }> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    const got = receiver.caseIds();
    const undelivered = [...load.cases.values()].filter((n) => !got.has(n));
    const pending = await withDatabase(async (sql) => Number((await sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`)[0]!.n));
    if ((undelivered.length === 0 && pending === 0) || Date.now() > deadline) return { undelivered, pending };
    await Bun.sleep(200);
  }
}

type Summary = Awaited<ReturnType<typeof measure>>;

/** Stops the load, waits for deliveries, looks for every acknowledged write; prints the counts. */
async function measure(scenario: string, from: number, duplicateBound: number) {
  await load.stop();
  const { undelivered, pending } = await settle();
  const found = await findAcknowledged(load, pg.primaryUrl(), PROJECT);
  const failed = load.failedAttempts(from);
  const statuses: Record<string, number> = {};
  for (const a of failed) statuses[String(a.status)] = (statuses[String(a.status)] ?? 0) + 1;
  const summary = {
    acknowledged: load.acknowledged(),
    found: found.found,
    missing: found.missing,
    delivered: { events: receiver.deliveries.length, caseCreated: receiver.caseIds().size, undelivered, pending },
    duplicated: { thisScenario: receiver.duplicates(from), bound: duplicateBound, total: receiver.duplicates() },
    clients: { attempts: load.attempts.filter((a) => a.at >= from).length, failedAttempts: statuses, scimConflicts: load.userConflicts.size, v2Replays: load.resultReplays.size, extraCases: found.extraCases, rejected: load.rejected.length, abandoned: load.abandoned.length },
    // Never a 500, never a hang: while a node or the primary is gone the answers are 502/503 (retried).
    errors: failed.filter((a) => a.status === 500 || a.status === "timeout" || a.status === 504),
  };
  console.log(`cluster ${scenario}: ${JSON.stringify({ ...summary, missing: summary.missing.length, errors: summary.errors.length, delivered: { ...summary.delivered, undelivered: undelivered.length } })}`);
  return summary;
}

/** What every scenario must leave: each acknowledged write stored, each of its events delivered, duplicates within the bound, no 500 or hang. */
function expectNothingLost(s: Summary) {
  expect(s.missing.slice(0, 20)).toEqual([]);
  expect(load.rejected.slice(0, 5)).toEqual([]);
  expect(load.abandoned).toEqual([]);
  expect(receiver.badSignatures).toEqual([]);
  expect(s.delivered.undelivered).toEqual([]);
  expect(s.delivered.pending).toBe(0);
  expect(s.duplicated.thisScenario).toBeLessThanOrEqual(s.duplicated.bound);
  expect(s.errors).toEqual([]);
}

const nodeLogs = (node: ClusterNode) => node.logs();

describe("a cluster of three nodes on PostgreSQL with a synchronous standby, behind HAProxy", () => {
  test("4. three nodes started at once on an empty database migrate it once; an older node on the newer schema exits 2", async () => {
    await Promise.all(nodes.map((n) => startNode(n, settings)));
    haproxy = await startHaproxy(nodes.map((n) => ({ name: n.name, port: n.port })));
    for (const n of nodes) await haproxy.waitFor(n.name, "UP");

    const recorded = await withDatabase((sql) => sql<{ hash: string; n: number }[]>`SELECT hash, count(*)::int AS n FROM "__drizzle_migrations" GROUP BY hash`);
    expect(recorded.length).toBe(postgresMigrations.length);
    expect(recorded.every((r) => r.n === 1)).toBe(true);
    const migrated = nodes.filter((n) => nodeLogs(n).includes('"msg":"migrations applied"')).map((n) => n.name);
    console.log(`cluster start: ${postgresMigrations.length} migration(s) applied by ${migrated.join(", ")}; the other nodes waited for the lock and applied none`);
    expect(migrated.length).toBe(1);

    // An older Gatehouse: the database records a migration this binary does not carry.
    const newer = postgresMigrations.at(-1)!.when + 1;
    await withDatabase((sql) => sql`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('from-a-newer-release', ${newer})`);
    try {
      const refused = await startRefused(clusterNode("old"));
      expect(refused.code).toBe(2);
      expect(refused.output).toContain("newer");
    } finally {
      await withDatabase((sql) => sql`DELETE FROM "__drizzle_migrations" WHERE hash = 'from-a-newer-release'`);
    }

    // What the load writes to: tokens, a project, a run with one case for the v2 results, a subscription to case.created.
    const scimToken = (await admin("/api/admin/scim-tokens", { name: "cluster idp" })).token as string;
    const apiToken = (await admin("/api/admin/api-tokens", { name: "cluster reporter" })).token as string;
    await api(apiToken, "/project", { title: "Cluster", code: PROJECT });
    const resultCase = (await api(apiToken, `/case/${PROJECT}`, { title: "result target" })).id as number;
    const run = (await api(apiToken, `/run/${PROJECT}`, { title: "cluster run", cases: [resultCase] })).id as number;
    const subscription = await admin("/api/admin/webhooks", { url: receiver.url, events: ["case.created"] });
    receiver.useSecret(subscription.secret);
    load = new MixedLoad({ url: haproxy.url, scimToken, apiToken, project: PROJECT, run, resultCase });
  }, 180_000);

  test("1. kill -9 a node under load: nothing acknowledged lost, every event delivered, duplicates within 2 × concurrency", async () => {
    const from = Date.now();
    load.start();
    await Bun.sleep(4_000);
    const victim = nodes[1]!;
    victim.process!.kill9();
    await victim.process!.proc.exited;
    const killedAt = Date.now();
    await haproxy.waitFor(victim.name, "DOWN");
    const downAfter = Date.now() - killedAt;
    await Bun.sleep(2_000);
    await startNode(victim, settings);
    await haproxy.waitFor(victim.name, "UP");
    await Bun.sleep(3_000);
    const s = await measure("1 (kill -9 n2)", from, 2 * CONCURRENCY);
    console.log(`cluster 1: HAProxy took n2 out ${downAfter} ms after the kill; ${s.clients.attempts} attempts, failed ones retried by the clients: ${JSON.stringify(s.clients.failedAttempts)}`);
    expectNothingLost(s);
  }, 180_000);

  test("2. rolling restart (SIGTERM each node, start it again): no request fails", async () => {
    const from = Date.now();
    load.start();
    await Bun.sleep(3_000);
    const exits: number[] = [];
    for (const node of nodes) {
      exits.push(await node.process!.stop("SIGTERM"));
      await startNode(node, settings);
      await haproxy.waitFor(node.name, "UP");
      await Bun.sleep(1_000);
    }
    await Bun.sleep(2_000);
    const to = Date.now();
    const s = await measure("2 (rolling restart)", from, CONCURRENCY * nodes.length);
    console.log(`cluster 2: ${s.clients.attempts} attempts during the rolling restart, exit codes ${exits.join(", ")}, failed attempts ${JSON.stringify(s.clients.failedAttempts)}`);
    expectNothingLost(s);
    expect(exits).toEqual([0, 0, 0]);
    expect(load.failedAttempts(from, to)).toEqual([]);
  }, 180_000);

  test(`3. the primary stops (immediate), the standby is promoted: nodes write again within ${RECOVERY_BOUND_MS / 1000} s, nothing acknowledged lost, no event lost`, async () => {
    const from = Date.now();
    load.start();
    await Bun.sleep(4_000);
    const crashedAt = Date.now();
    pg.crashPrimary();
    // A failover manager's detection time, shortened: the nodes meet a database with no primary meanwhile.
    await Bun.sleep(1_000);
    await pg.promoteStandby();
    const promotedAt = Date.now();
    // Each node is back when its /readyz (a write probe on the primary) answers 200 again.
    const recovered = await Promise.all(
      nodes.map(async (n) => {
        const deadline = promotedAt + 30_000;
        let last = "";
        while (Date.now() < deadline) {
          if (n.process!.proc.exitCode !== null) {
            console.log(`cluster 3: ${n.name} exited (code ${n.process!.proc.exitCode}); its last error: ${nodeLogs(n).split("\n").filter((l) => l.includes('"level":"error"')).at(-1)?.slice(0, 300)}`);
            return Infinity;
          }
          const r = await fetch(`${n.url}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch((e: Error) => e);
          if (!(r instanceof Error) && r.status === 200) return Date.now() - promotedAt;
          last = r instanceof Error ? r.message : `${r.status} ${(await r.text()).slice(0, 200)}`;
          await Bun.sleep(100);
        }
        console.log(`cluster 3: ${n.name} /readyz still answers ${last}`);
        return Infinity;
      }),
    );
    await Bun.sleep(3_000);
    const s = await measure("3 (primary failover)", from, 2 * CONCURRENCY * nodes.length);
    // Counted once every attempt has ended (measure stops the load): requests held during the outage end after the promotion.
    const acknowledgedAt = load.attempts.filter((a) => typeof a.status === "number" && a.status < 300).map((a) => a.at + a.ms);
    const firstWrite = Math.min(...acknowledgedAt.filter((t) => t >= promotedAt));
    const lastBefore = Math.max(...acknowledgedAt.filter((t) => t < crashedAt));
    console.log(
      `cluster 3: primary stopped, standby promoted ${promotedAt - crashedAt} ms later; nodes ready again ${recovered.map((ms, i) => `${nodes[i]!.name} +${ms} ms`).join(", ")} after the promotion; first acknowledged write through HAProxy +${firstWrite - promotedAt} ms (no write acknowledged for ${firstWrite - lastBefore} ms); answers meanwhile ${JSON.stringify(s.clients.failedAttempts)}`,
    );
    for (const n of nodes) {
      const errors = nodeLogs(n).split("\n").filter((l) => l.includes('"level":"error"') && JSON.parse(l).time >= new Date(crashedAt).toISOString());
      if (errors.length) console.log(`cluster 3: ${n.name} logged ${errors.length} error(s), the first: ${errors[0]!.slice(0, 400)}`);
    }
    expectNothingLost(s);
    for (const ms of recovered) expect(ms).toBeLessThanOrEqual(RECOVERY_BOUND_MS);
  }, 240_000);
});
