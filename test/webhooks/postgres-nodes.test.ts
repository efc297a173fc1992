/**
 * Several delivery loops on one PostgreSQL database, as several Gatehouse nodes run them: two app
 * instances in this process, each with its own connection pool, its own loop and its own HTTP
 * surface, over one freshly migrated database, delivering to a real receiver on 127.0.0.1.
 * Claims are row locks that skip what the other node holds (src/db/delivery-queue.ts), so a
 * backlog is shared — each delivery sent once, both nodes busy — and a node that dies with claims
 * leased loses them to the other once their lease has passed.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type postgres from "postgres";
import { createApp } from "../../src/app";
import { testConfig, type Config } from "../../src/config";
import type { AppContext } from "../../src/context";
import { useEngine } from "../../src/db/engine";
import { EVENTS_CHANNEL } from "../../src/db/event-signal";
import { writeTransaction } from "../../src/db/transaction";
import { openPool } from "../../src/db/postgres/connect";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { postgresHandle } from "../../src/db/postgres/open";
import { ephemeralSecretBox } from "../../src/lib/secret-box";
import { metricsFor } from "../../src/lib/metrics";
import { silentLogger } from "../../src/log";
import { registerProcessMetrics } from "../../src/ops/process-metrics";
import { startDeliveryLoop } from "../../src/webhooks/dispatcher";
import { publish } from "../../src/webhooks/publish";
import { ADMIN_TOKEN, until } from "../helpers";
import { freshDatabase, testServerUrl } from "../support/postgres";
import { startReceiver } from "./harness";

let database: { url: string; drop(): Promise<void> };
// Both nodes open the signing secrets with one key, as a cluster's nodes share GATEHOUSE_SECRET_KEY_FILE.
const secrets = ephemeralSecretBox();
const nodes: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  testServerUrl();
  database = await freshDatabase("nodes");
  const { sql } = openPool({ url: database.url, poolSize: 1, caFile: null });
  await migratePostgres(sql);
  await sql.end();
}, 120_000);

afterAll(async () => {
  for (const n of nodes) await n.close();
  useEngine("sqlite");
  await database?.drop();
});

/** One "node": a pool of its own on the shared database, the real app over it, and (when asked) its delivery loop. */
function startNode(overrides: Partial<Config> = {}, { loop = true } = {}) {
  const { sql } = openPool({ url: database.url, poolSize: 6, caFile: null });
  const handle = postgresHandle(sql);
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-node-"));
  const config = testConfig({
    dataDir: dir,
    adminToken: ADMIN_TOKEN,
    baseUrl: "https://gatehouse.test",
    webhookAllowPrivateTargets: true,
    webhookPollIntervalMs: 50,
    webhookTimeoutMs: 1000,
    webhookRetrySchedule: [50, 100],
    webhookConcurrency: 8,
    webhookPerSubscriptionConcurrency: 3,
    ...overrides,
  });
  const ctx: AppContext = { config, db: handle.db, sqlite: null, groupCommit: handle.groupCommit, log: silentLogger, version: "test", secrets };
  const app = createApp(ctx);
  let deliveryLoop = loop ? startDeliveryLoop(ctx) : null;
  let closed = false;
  const node = {
    ctx,
    sql: sql as postgres.Sql,
    admin: async (method: string, path: string, body?: unknown) => {
      const r = await app.handle(
        new Request(`http://localhost${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }),
      );
      const text = await r.text();
      return { status: r.status, body: text ? JSON.parse(text) : null };
    },
    startLoop() {
      deliveryLoop ??= startDeliveryLoop(ctx);
    },
    /** Deliveries this node's loop recorded as delivered (its own Prometheus counter). */
    async delivered(): Promise<number> {
      const text = await metricsFor(ctx).render();
      return Number(/^gatehouse_webhook_attempts_total\{outcome="delivered"\} (\d+)$/m.exec(text)?.[1] ?? 0);
    },
    /**
     * Dies as a killed process does: its connections drop at once, so nothing is given back and
     * nothing more recorded; its loop then stops sending (its shutdown's give-back fails on the
     * closed pool, as a dead process gives nothing back).
     */
    async kill() {
      await sql.end({ timeout: 0 });
      await deliveryLoop?.stop();
    },
    async close() {
      if (closed) return;
      closed = true;
      await deliveryLoop?.stop();
      await sql.end({ timeout: 1 }).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
  nodes.push(node);
  return node;
}

/** The webhook tests' receiver, one path per subscription; it answers after 2 ms unless told otherwise. */
function startPathReceiver() {
  const rx = startReceiver(async () => {
    await Bun.sleep(2);
    return new Response("ok");
  });
  return Object.assign(rx, {
    pathUrl: (path: string) => `${rx.base}${path}`,
    /** What arrived where: each request's path and webhook-id. */
    arrivals: () => rx.received.map((r) => ({ path: r.path, id: r.headers["webhook-id"]!, at: r.at })),
    hangAll: () => rx.setHandler(() => rx.hang()),
    answerOk: () => rx.setHandler(() => new Response("ok")),
  });
}

test("two nodes share a backlog: every delivery sent exactly once, both nodes deliver, each within its caps", async () => {
  const receiver = startPathReceiver();
  try {
    const a = startNode();
    const b = startNode();
    const subs: number[] = [];
    for (const [i, node] of [a, b, a].entries()) {
      const r = await node.admin("POST", "/api/admin/webhooks", { url: receiver.pathUrl(`/hook/${i}`), events: ["*"] });
      expect(r.status).toBe(201);
      subs.push(r.body.id);
    }
    const PER_SUBSCRIPTION = 200;
    // Enqueued through both nodes' API while both loops run.
    const queued = await Promise.all(subs.map((id, i) => [a, b, a][i]!.admin("POST", `/api/admin/webhooks/${id}/test`, { event: "case.deleted", count: PER_SUBSCRIPTION })));
    const expected = new Map(queued.map((q, i) => [`/hook/${i}`, new Set(q.body.webhookIds as string[])]));
    const total = subs.length * PER_SUBSCRIPTION;

    await until(async () => {
      const [{ n }] = (await a.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`) as unknown as [{ n: number }];
      return n === 0;
    }, "every delivery recorded delivered", 60_000);

    // Exactly once: as many requests as deliveries, and each subscription got exactly its own webhook-ids.
    expect(receiver.arrivals().length).toBe(total);
    for (const [path, ids] of expected) {
      const got = receiver.arrivals().filter((r) => r.path === path).map((r) => r.id);
      expect(got.length).toBe(PER_SUBSCRIPTION);
      expect(new Set(got)).toEqual(ids);
    }
    const attempts = (await a.sql`SELECT attempts, count(*)::int AS n FROM webhook_deliveries GROUP BY attempts`) as unknown as { attempts: number; n: number }[];
    expect(attempts).toEqual([{ attempts: 1, n: total }]);

    // Fair: both loops did a real share of the work, and between them recorded every delivery.
    const [byA, byB] = [await a.delivered(), await b.delivered()];
    expect(byA + byB).toBe(total);
    expect(Math.min(byA, byB)).toBeGreaterThanOrEqual(total * 0.1);

    // The caps are per node (docs/webhooks.md, "Several nodes"): a subscription sees at most
    // nodes × its cap at once, the receiver at most nodes × the global concurrency.
    for (const max of receiver.maxInFlightByPath.values()) expect(max).toBeLessThanOrEqual(2 * 3);
    expect(receiver.maxInFlight).toBeLessThanOrEqual(2 * 8);
  } finally {
    receiver.stop();
    for (const n of nodes.splice(0)) await n.close();
  }
}, 90_000);

test("a node killed with claims leased: the other node sends them once their lease has passed, duplicates only what was in flight", async () => {
  const receiver = startPathReceiver();
  try {
    receiver.hangAll();
    const doomed = startNode();
    const sub = await doomed.admin("POST", "/api/admin/webhooks", { url: receiver.pathUrl("/hook/kill"), events: ["*"] });
    expect(sub.status).toBe(201);
    const queued = await doomed.admin("POST", `/api/admin/webhooks/${sub.body.id}/test`, { event: "case.deleted", count: 40 });
    expect(queued.status).toBe(202);
    // The doomed node has claimed (2 × its per-subscription cap) and sent up to its cap, which hang.
    await until(() => receiver.inFlight === 3, "the doomed node's attempts open at the receiver");
    const leased = (await doomed.sql`
      SELECT e.uid, d.locked_until FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
       WHERE d.locked_until IS NOT NULL`) as unknown as { uid: string; locked_until: number }[];
    expect(leased.length).toBe(6);
    const sentByDoomed = new Set(receiver.arrivals().map((r) => r.id));
    expect(sentByDoomed.size).toBe(3);

    await doomed.kill();
    receiver.answerOk();
    const survivor = startNode();
    await until(async () => {
      const [{ n }] = (await survivor.sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`) as unknown as [{ n: number }];
      return n === 0;
    }, "the survivor delivered everything, the doomed node's claims too", 30_000);

    const ids = new Set((queued.body.webhookIds as string[]));
    const arrivals = new Map<string, number[]>();
    for (const r of receiver.arrivals()) arrivals.set(r.id, [...(arrivals.get(r.id) ?? []), r.at]);
    expect(new Set(arrivals.keys())).toEqual(ids); // every event arrived
    // The doomed node's leased claims went out again only after their lease, never before.
    for (const { uid, locked_until } of leased) {
      const times = arrivals.get(uid)!;
      expect(times.at(-1)!).toBeGreaterThanOrEqual(locked_until);
    }
    // Duplicates: exactly the attempts the doomed node had sent and not recorded (≤ 2 × concurrency).
    const duplicated = [...arrivals].filter(([, times]) => times.length > 1).map(([id]) => id);
    expect(new Set(duplicated)).toEqual(sentByDoomed);
    expect(receiver.arrivals().length).toBe(40 + sentByDoomed.size);
    expect(await survivor.delivered()).toBe(40);
  } finally {
    receiver.stop();
    for (const n of nodes.splice(0)) await n.close();
  }
}, 90_000);

/** Commits `count` events from another process (a producer on another node); when it committed. */
async function publishFromAnotherProcess(count: number): Promise<number> {
  const child = Bun.spawn([process.execPath, join(import.meta.dir, "fixtures", "publish-on-postgres.ts"), database.url, String(count)], {
    env: { ...process.env, BUN_BE_BUN: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => child.kill(), 30_000);
  const [status, out, err] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  clearTimeout(timer);
  if (status !== 0) throw new Error(`the producer process failed (${status}): ${err}`);
  return Number(out.trim());
}

/** The backend pids LISTENing on the events channel (postgres.js's dedicated connection per node). */
async function listeners(sql: postgres.Sql): Promise<number[]> {
  const rows = await sql`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND query = ${`listen "${EVENTS_CHANNEL}"`}`;
  return rows.map((r) => r.pid as number);
}

test("another process's commit wakes a node's loop through LISTEN/NOTIFY, also after its listening connection was cut", async () => {
  const receiver = startPathReceiver();
  try {
    // The poll would take a minute: only the notice can bring these events out within the test.
    const node = startNode({ webhookPollIntervalMs: 60_000 });
    const sub = await node.admin("POST", "/api/admin/webhooks", { url: receiver.pathUrl("/hook/wake"), events: ["*"] });
    expect(sub.status).toBe(201);
    const listener = await until(async () => {
      const pids = await listeners(node.sql);
      return pids.length === 1 && pids[0];
    }, "the node listening");

    const committedAt = await publishFromAnotherProcess(3);
    await until(() => receiver.arrivals().length === 3, "the other process's events delivered", 15_000);
    expect(Math.max(...receiver.arrivals().map((r) => r.at)) - committedAt).toBeLessThan(15_000);

    // The server cuts the listening connection (a restart, a failover, a proxy's idle timeout):
    // the driver listens again on a new one, and the loop looks once for what it may have missed.
    await node.sql`SELECT pg_terminate_backend(${listener!})`;
    await until(async () => {
      const pids = await listeners(node.sql);
      return pids.length === 1 && pids[0] !== listener;
    }, "the node listening again on a new connection", 15_000);
    await publishFromAnotherProcess(2);
    await until(() => receiver.arrivals().length === 5, "events committed after the reconnect delivered", 15_000);
  } finally {
    receiver.stop();
    for (const n of nodes.splice(0)) await n.close();
  }
}, 90_000);

test("a producer's commit is announced once per transaction after it commits; a rolled-back one announces nothing", async () => {
  const node = startNode({}, { loop: false });
  const { sql: listening } = openPool({ url: database.url, poolSize: 1, caFile: null });
  const heard: string[] = [];
  try {
    const sub = await node.admin("POST", "/api/admin/webhooks", { url: "http://127.0.0.1:9/hook", events: ["*"] });
    expect(sub.status).toBe(201);
    await listening.listen(EVENTS_CHANNEL, (origin) => heard.push(origin));
    await writeTransaction(node.ctx.db, async (tx) => {
      for (let i = 1; i <= 5; i++) await publish(tx, "case.deleted", { id: i });
      await Bun.sleep(100);
      expect(heard).toEqual([]); // nothing before the commit
    });
    await until(() => heard.length === 1, "the commit's notice");
    await expect(
      writeTransaction(node.ctx.db, async (tx) => {
        await publish(tx, "case.deleted", { id: 9 });
        throw new Error("the entity write failed");
      }),
    ).rejects.toThrow("the entity write failed");
    await publishFromAnotherProcess(1);
    await until(() => heard.length === 2, "the other process's notice");
    expect(heard[0]).not.toBe(heard[1]); // each process names itself, so its own listener can skip its notices
  } finally {
    await listening.end();
    for (const n of nodes.splice(0)) await n.close();
  }
}, 60_000);

test("/metrics on PostgreSQL: the pool's size, write transactions open and waiting, every node's connections by state", async () => {
  const node = startNode({}, { loop: false });
  try {
    registerProcessMetrics(node.ctx, null);
    const text = await metricsFor(node.ctx).render();
    expect(text).toContain("gatehouse_database_pool_size 6");
    expect(text).toContain('gatehouse_database_transactions{state="open"} 0');
    expect(text).toContain('gatehouse_database_transactions{state="waiting"} 0');
    expect(text).toMatch(/^gatehouse_database_server_connections\{state="active"\} [1-9]/m); // the scrape's own query
    expect(text).toMatch(/^gatehouse_database_server_max_connections [1-9]/m);
  } finally {
    for (const n of nodes.splice(0)) await n.close();
  }
});
