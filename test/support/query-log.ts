/**
 * A second handle on a test app's database that records the SQL text of every query run through
 * it, on the run's engine: for tests that count queries (a page's member lists in one query, not
 * one per group). SQLite: drizzle over the app's connection with a logger; PostgreSQL: a small
 * pool of its own on the app's database, with postgres.js's debug hook.
 */
import { drizzle } from "drizzle-orm/bun-sqlite";
import type { AppContext } from "../../src/context";
import type { Db } from "../../src/db/connection";
import { openPool } from "../../src/db/postgres/connect";
import { PostgresStore } from "../../src/db/postgres/store";
import { routedHandle } from "../../src/db/store";

export function queryLoggingDb(t: { ctx: AppContext; databaseUrl: string | null }): { db: Db; queries: string[]; close(): Promise<void> } {
  const queries: string[] = [];
  if (t.databaseUrl === null) {
    return { db: drizzle(t.ctx.sqlite!, { logger: { logQuery: (q) => void queries.push(q) } }), queries, close: async () => {} };
  }
  const { sql } = openPool({ url: t.databaseUrl, poolSize: 2, caFile: null });
  // Every connection of the pool reads its debug hook from these options at each query.
  (sql.options as { debug?: unknown }).debug = (_connection: number, query: string) => void queries.push(query);
  const store = new PostgresStore(sql);
  return { db: routedHandle(store), queries, close: () => store.close() };
}
