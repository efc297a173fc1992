/**
 * The PostgreSQL driver's transactions under a pipelining pool (vendor/postgres/PATCHES.md): a
 * BEGIN always reserves its connection, so the transaction runs alone on it and nothing else runs
 * inside it. Upstream 3.4.9 fails the first two tests (UNSAFE_TRANSACTION). On PostgreSQL whatever
 * the run's engine: the subject is the driver.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { sql as fragment } from "drizzle-orm";
import { PostgresStore } from "../../src/db/postgres/store";
import { execute, rowsOf } from "../../src/db/statement";
import { useEngine } from "../../src/db/engine";
import { freshDatabase, testServerUrl } from "../support/postgres";

let database: Awaited<ReturnType<typeof freshDatabase>>;

beforeAll(async () => {
  testServerUrl(); // starts the run's server when there is none, outside any test's time limit
  database = await freshDatabase("driver");
}, 120_000);

afterAll(async () => {
  useEngine("sqlite");
  await database?.drop();
});

/** A pool of two connections that pipeline at most two queries each, both connected (`max_pipeline` is missing from the driver's types). */
async function smallPool(options: { max?: number; max_pipeline?: number } = {}) {
  const sql = postgres(database.url, { max: 2, max_pipeline: 2, onnotice: () => {}, connection: { application_name: "driver-test" }, ...options } as postgres.Options<{}>);
  await Promise.all([sql`SELECT 1`, sql`SELECT 2`]);
  return sql;
}

/**
 * Fills both connections' pipelines so the next query is the one that fills the second: two slow
 * queries take a connection each, three more are pipelined behind them (2 + 1).
 */
function fillPipelines(sql: postgres.Sql) {
  return [sql`SELECT pg_sleep(0.1)`.execute(), sql`SELECT pg_sleep(0.1)`.execute(), sql`SELECT 3`.execute(), sql`SELECT 4`.execute(), sql`SELECT 5`.execute()];
}

/** The settings a query outside the transaction sees: never the transaction's own. */
const outsideSees = (sql: postgres.Sql) => sql<{ name: string; open: boolean }[]>`SELECT current_setting('application_name') AS name, txid_current_if_assigned() IS NOT NULL AS open`;

test("a BEGIN that fills a connection's pipeline reserves the connection: the transaction commits, no other query runs inside it", async () => {
  const sql = await smallPool();
  try {
    await sql`CREATE TABLE IF NOT EXISTS pipelined (n int)`;
    for (let round = 0; round < 5; round++) {
      const busy = fillPipelines(sql);
      await Bun.sleep(5); // the pipelined queries are written before the BEGIN
      const inside = sql.begin(async (tx) => {
        await tx`SET LOCAL application_name = 'inside'`;
        await tx`INSERT INTO pipelined VALUES (${round})`;
        await Bun.sleep(30); // the pool's other queries come and go meanwhile
        return (await tx`SELECT current_setting('application_name') AS name`)[0]!.name as string;
      });
      const others = Array.from({ length: 6 }, () => outsideSees(sql));
      expect(await inside).toBe("inside");
      for (const [row] of await Promise.all(others)) expect(row).toEqual({ name: "driver-test", open: false });
      await Promise.all(busy);
    }
    expect((await sql`SELECT count(*)::int AS n FROM pipelined`)[0]!.n).toBe(5);
    // No connection was left inside a transaction.
    const idleInTransaction = await sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`;
    expect(idleInTransaction[0]!.n).toBe(0);
  } finally {
    await sql.end({ timeout: 1 });
  }
});

test("max_pipeline 0 (no pipelining at all): every transaction runs", async () => {
  const sql = await smallPool({ max_pipeline: 0 });
  try {
    const sums = await Promise.all(Array.from({ length: 20 }, (_, i) => sql.begin(async (tx) => (await tx`SELECT ${i}::int + 1 AS n`)[0]!.n as number)));
    expect(sums).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
  } finally {
    await sql.end({ timeout: 1 });
  }
});

test("Gatehouse's store: a write transaction whose BEGIN fills a pipeline commits, alone on its connection", async () => {
  const sql = await smallPool();
  const store = new PostgresStore(sql);
  try {
    await sql`CREATE TABLE IF NOT EXISTS written (n int)`;
    const busy = fillPipelines(sql);
    await Bun.sleep(5);
    const seen = await store.begin(async (tx) => {
      await execute(tx, fragment`INSERT INTO written VALUES (1)`);
      return rowsOf<{ open: boolean }>(tx, fragment`SELECT txid_current_if_assigned() IS NOT NULL AS open`);
    }, {});
    expect(seen).toEqual([{ open: true }]);
    await Promise.all(busy);
    expect((await sql`SELECT count(*)::int AS n FROM written`)[0]!.n).toBe(1);
  } finally {
    useEngine("sqlite");
    await sql.end({ timeout: 1 });
  }
});

test("connections cut while queries and transactions are in flight: every query settles, no exception escapes, the pool recovers", async () => {
  // Upstream wrote a cut connection's pending bytes to no socket (a TypeError from a timer) and then
  // sent them ahead of the reconnected connection's startup, which wedged it: every later query hung.
  // A transaction's queries after its connection's loss, and a query the pool lent a connection
  // between its socket's error and its close, also never settled (patches 4 and 6).
  const escaped: unknown[] = [];
  const onEscape = (e: unknown) => escaped.push(e);
  process.on("uncaughtException", onEscape);
  // A short reconnect backoff: upstream's grows to 20 s after many failed connections, which is not the subject here.
  const sql = postgres(database.url, { max: 4, backoff: () => 0.05, connect_timeout: 2, onnotice: () => {}, connection: { application_name: "driver-cut" } } as postgres.Options<{}>);
  const admin = postgres(database.url, { max: 1, onnotice: () => {} });
  const pending = new Set<number>();
  let issued = 0;
  let cuts = 0;
  const until = Date.now() + 4_000;
  try {
    const client = async () => {
      while (Date.now() < until) {
        const id = issued++;
        pending.add(id);
        // Large parameters: several writes per query, so a cut often falls between them.
        const query = id % 5 === 0
          ? sql.begin(async (tx) => { await tx`SELECT 1`; await tx`SELECT ${"x".repeat(2_000)}::text`; })
          : sql`SELECT ${id}::int, ${"y".repeat(id % 3_000)}::text`;
        // Settled (answered or failed), or lost: a lost one never settles.
        const settled = await Promise.race([query.then(() => true, () => true), Bun.sleep(30_000).then(() => false)]);
        if (settled) pending.delete(id);
      }
    };
    const cutter = async () => {
      while (Date.now() < until) {
        await admin`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'driver-cut' AND datname = current_database()`;
        cuts++;
        await Bun.sleep(5 + Math.random() * 20);
      }
    };
    await Promise.all([...Array.from({ length: 16 }, client), cutter()]);
    expect({ hung: pending.size, escaped: escaped.map(String) }).toEqual({ hung: 0, escaped: [] });
    expect(cuts).toBeGreaterThan(50);
    // The pool works again once the cuts stop.
    expect((await sql`SELECT 41 + 1 AS n`)[0]!.n).toBe(42);
  } finally {
    process.off("uncaughtException", onEscape);
    await sql.end({ timeout: 1 });
    await admin.end({ timeout: 1 });
  }
}, 60_000);
