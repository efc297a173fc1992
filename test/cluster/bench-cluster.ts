/**
 * Cluster benchmark (docs/cluster.md "Benchmark"), on the cluster test's topology: a PostgreSQL
 * primary with a synchronous standby, nodes of the compiled binary, HAProxy.
 *
 *   npx bun test/cluster/bench-cluster.ts [--events 3000] [--rounds 2]
 *
 * Measures: (1) per-node overhead of idle nodes (RSS, CPU, the database's commits/s and
 * connections); (2) WAL written per acknowledged write of the mixed load and per delivery;
 * (3) delivery throughput of one queue (one subscription, N events) drained by 1 node, then by
 * 3, alternating; (4) failover time: primary stopped (immediate), standby promoted at once, time
 * until each node's /readyz and the first acknowledged write through HAProxy. Prints one JSON line each.
 */
import { readFileSync } from "node:fs";
import postgres from "postgres";
import { buildBinary } from "../e2e/binary";
import { clusterNode, clusterSettings, startHaproxy, startNode, startReplicatedPostgres, type ClusterNode } from "../support/cluster";
import { MixedLoad, startWebhookReceiver } from "./load";

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i === -1 ? fallback : Number(process.argv[i + 1]);
};
const EVENTS = arg("events", 3000);
const ROUNDS = arg("rounds", 2);
const ADMIN = "bench-admin-token";

await buildBinary();
const pg = await startReplicatedPostgres();
const receiver = startWebhookReceiver();
const settings = clusterSettings(pg.nodeUrl, ADMIN);
const nodes: ClusterNode[] = [clusterNode("n1"), clusterNode("n2"), clusterNode("n3")];
const sql = () => postgres(pg.primaryUrl(), { max: 1, onnotice: () => {} });
const db = sql();

/** CPU seconds (user + system) of a process, from /proc. */
function cpuSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
}
const rssMb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))![1]) / 1024;
const commits = async () => Number((await db`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = current_database()`)[0]!.n);
const walLsn = async () => String((await db`SELECT pg_current_wal_lsn()::text AS l`)[0]!.l);
const walBytes = async (from: string) => Number((await db`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), ${from}::pg_lsn)::bigint AS b`)[0]!.b);

try {
  await Promise.all(nodes.map((n) => startNode(n, settings)));
  const haproxy = await startHaproxy(nodes.map((n) => ({ name: n.name, port: n.port })));
  for (const n of nodes) await haproxy.waitFor(n.name, "UP");
  const admin = async (path: string, body: unknown) => {
    const r = await fetch(`${haproxy.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
    if (!r.ok) throw new Error(`${path}: ${r.status} ${await r.text()}`);
    return (await r.json()) as any;
  };

  // (1) Idle overhead: 10 s with three nodes and no traffic.
  await Bun.sleep(3_000);
  const pids = nodes.map((n) => n.process!.proc.pid);
  const cpu0 = pids.map(cpuSeconds);
  const c0 = await commits();
  await Bun.sleep(10_000);
  const idle = {
    cpuPercentPerNode: pids.map((p, i) => Math.round(((cpuSeconds(p) - cpu0[i]!) / 10) * 1000) / 10),
    rssMbPerNode: pids.map((p) => Math.round(rssMb(p))),
    commitsPerSecond: Math.round(((await commits()) - c0 - 1) / 10),
    connections: Number((await db`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'gatehouse'`)[0]!.n),
  };
  console.log(`bench idle (3 nodes, no traffic, 10 s): ${JSON.stringify(idle)}`);

  // (2) WAL per acknowledged write: the mixed load through HAProxy for 15 s, with a subscription to case.created.
  const scimToken = (await admin("/api/admin/scim-tokens", { name: "bench idp" })).token as string;
  const apiToken = (await admin("/api/admin/api-tokens", { name: "bench" })).token as string;
  const api = async (path: string, body: unknown) => ((await (await fetch(`${haproxy.url}/api/v1${path}`, { method: "POST", headers: { token: apiToken, "content-type": "application/json" }, body: JSON.stringify(body) })).json()) as any).result;
  await api("/project", { title: "Bench", code: "BEN" });
  const resultCase = (await api("/case/BEN", { title: "target" })).id as number;
  const run = (await api("/run/BEN", { title: "bench", cases: [resultCase] })).id as number;
  const loadSub = await admin("/api/admin/webhooks", { url: receiver.url, events: ["case.created"] });
  receiver.useSecret(loadSub.secret);
  const load = new MixedLoad({ url: haproxy.url, scimToken, apiToken, project: "BEN", run, resultCase }, { workers: 4, pauseMs: 0 });
  const w0 = await walLsn();
  const k0 = await commits();
  const l0 = Date.now();
  load.start();
  await Bun.sleep(15_000);
  await load.stop();
  await Bun.sleep(2_000);
  const seconds = (Date.now() - l0) / 1000;
  const acked = Object.values(load.acknowledged()).reduce((a, b) => a + b, 0);
  const wal = await walBytes(w0);
  console.log(`bench mixed load (3 nodes, 4 clients, no pause): ${JSON.stringify({ writesPerSecond: Math.round(acked / seconds), acknowledged: load.acknowledged(), walBytesPerWrite: Math.round(wal / acked), commitsPerWrite: Math.round((((await commits()) - k0) / acked) * 10) / 10, p50ms: percentile(load.attempts.map((a) => a.ms), 0.5), p99ms: percentile(load.attempts.map((a) => a.ms), 0.99) })}`);
  await fetch(`${haproxy.url}/api/admin/webhooks/${loadSub.id}`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN}` } });

  // (3) One queue, 1 node vs 3 nodes.
  const sub = await admin("/api/admin/webhooks", { url: receiver.url, events: ["*"] });
  receiver.useSecret(sub.secret);
  const drain = async (active: number) => {
    for (const [i, n] of nodes.entries()) {
      const running = n.process !== null && n.process.proc.exitCode === null;
      if (i < active && !running) await startNode(n, settings);
      if (i >= active && running) {
        await n.process!.stop("SIGTERM");
        n.process = null;
      }
    }
    const before = receiver.deliveries.length;
    const w = await walLsn();
    const started = Date.now();
    const nodeUrl = nodes[0]!.url;
    for (let left = EVENTS; left > 0; left -= 1000) {
      const r = await fetch(`${nodeUrl}/api/admin/webhooks/${sub.id}/test`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ event: "case.created", count: Math.min(1000, left) }) });
      if (r.status !== 202) throw new Error(`test events: ${r.status} ${await r.text()}`);
    }
    const deadline = Date.now() + 300_000;
    while (receiver.deliveries.length - before < EVENTS && Date.now() < deadline) await Bun.sleep(20);
    const ms = Date.now() - started;
    const got = receiver.deliveries.length - before;
    return { nodes: active, events: EVENTS, received: got, seconds: ms / 1000, perSecond: Math.round((got / ms) * 1000), walBytesPerDelivery: Math.round((await walBytes(w)) / Math.max(1, got)) };
  };
  for (let r = 0; r < ROUNDS; r++) for (const active of [1, 3]) console.log(`bench one queue: ${JSON.stringify(await drain(active))}`);
  for (const n of nodes) if (!n.process || n.process.proc.exitCode !== null) await startNode(n, settings);
  for (const n of nodes) await haproxy.waitFor(n.name, "UP");

  // (4) Failover: the load runs, the primary stops, the standby is promoted at once.
  load.start();
  await Bun.sleep(3_000);
  const crashed = Date.now();
  pg.crashPrimary();
  await pg.promoteStandby();
  const promoted = Date.now();
  const ready = await Promise.all(
    nodes.map(async (n) => {
      while (Date.now() - promoted < 30_000) {
        const r = await fetch(`${n.url}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(() => null);
        if (r?.status === 200) return Date.now() - promoted;
        await Bun.sleep(50);
      }
      return null;
    }),
  );
  await Bun.sleep(2_000);
  await load.stop();
  const lastBefore = Math.max(...load.attempts.filter((a) => typeof a.status === "number" && a.status < 300 && a.at + a.ms < crashed).map((a) => a.at + a.ms));
  const firstAfter = Math.min(...load.attempts.filter((a) => typeof a.status === "number" && a.status < 300 && a.at + a.ms > crashed).map((a) => a.at + a.ms));
  console.log(
    `bench failover: ${JSON.stringify({ promoteMs: promoted - crashed, nodeReadyMsAfterPromotion: ready, writeGapMs: firstAfter - lastBefore, firstWriteMsAfterPromotion: firstAfter - promoted, nodesAlive: nodes.map((n) => n.process?.proc.exitCode === null) })}`,
  );
  await haproxy.stop();
} finally {
  await db.end().catch(() => {});
  for (const n of nodes) if (n.process && n.process.proc.exitCode === null) await n.process.stop("SIGKILL");
  receiver.stop();
  pg.stop();
}

function percentile(values: number[], p: number): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? 0;
}
process.exit(0);
