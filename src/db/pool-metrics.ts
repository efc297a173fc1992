/**
 * The database connections behind the store, for /metrics. SQLite has two fixed connections (the
 * writer and the reader) and nothing to report. On PostgreSQL, postgres.js 3.4.9 keeps its pool's
 * state private (its queues of open, busy and waiting connections are not exposed), so the
 * gauges are what can be known: the configured size and the options, write transactions waiting
 * for a connection or holding one (counted by the store), and — one query per scrape — the
 * server's view of every Gatehouse connection to this database (all nodes', by state, from
 * `pg_stat_activity`) beside its `max_connections`.
 */
import type postgres from "postgres";
import type { Db } from "./connection";
import { storeOf } from "./store";

export type PoolMetrics = {
  /** `GATEHOUSE_DATABASE_POOL_SIZE`: connections this process opens at most. */
  size: number;
  transactionsOpen: number;
  transactionsWaiting: number;
  /** Connections of every Gatehouse node to this database, by `pg_stat_activity.state`; null when the server did not answer. */
  serverConnections: Map<string, number> | null;
  maxConnections: number | null;
};

type PostgresStoreView = { sql: postgres.Sql; transactions: { open: number; waiting: number } };

/** Null on SQLite. */
export async function poolMetrics(db: Db): Promise<PoolMetrics | null> {
  const store = storeOf(db);
  if (store.engine !== "postgres") return null;
  const { sql, transactions } = store as unknown as PostgresStoreView;
  let serverConnections: Map<string, number> | null = null;
  let maxConnections: number | null = null;
  try {
    const rows = await sql<{ state: string | null; n: number; max: number }[]>`
      SELECT a.state, count(*)::int AS n, current_setting('max_connections')::int AS max
        FROM pg_stat_activity a
       WHERE a.datname = current_database() AND a.application_name = ${sql.options.connection.application_name ?? "gatehouse"}
       GROUP BY a.state`;
    serverConnections = new Map(rows.map((r) => [r.state ?? "unknown", r.n]));
    maxConnections = rows[0]?.max ?? null;
  } catch {
    /* the server is away: the local figures still say something */
  }
  return { size: sql.options.max, transactionsOpen: transactions.open, transactionsWaiting: transactions.waiting, serverConnections, maxConnections };
}
