/**
 * A statement written once as SQL text with positional parameters `?1`, `?2`…, run on whichever
 * connection `db` routes to now (the task's write transaction, else the reader). For hot paths
 * that skip drizzle's query builder (token lookups, the fast insert, the outbox, numbering): on
 * SQLite it is prepared once per connection; on PostgreSQL it is a named prepared statement
 * (`$1`, `$2`…) of the pool's connections. Write the SQL in the part both engines speak, with the
 * engine-specific fragments of `dialect.ts`.
 */
import type { SQL } from "drizzle-orm";
import { perConnection } from "./sqlite-client";
import type { Db } from "./store";
import { postgresPlaceholders } from "./dialect";
import { engine, isPostgres, type Engine } from "./engine";

export type Param = string | number | bigint | boolean | Uint8Array | null;

export type PreparedQuery<Row, P extends Param[]> = {
  /** Every row. */
  all(db: Db, ...params: P): Promise<Row[]>;
  /** The first row, or undefined. */
  get(db: Db, ...params: P): Promise<Row | undefined>;
  /** Runs it; how many rows it changed. */
  run(db: Db, ...params: P): Promise<{ changes: number }>;
};

type PostgresClient = { unsafe(query: string, params: unknown[], options: { prepare: boolean }): Promise<Record<string, unknown>[] & { count: number }> };

function postgresClientOf(db: Db): PostgresClient {
  return (db as unknown as { session: { client: PostgresClient } }).session.client;
}

export function preparedQuery<Row = Record<string, unknown>, P extends Param[] = Param[]>(text: string): PreparedQuery<Row, P> {
  const onSqlite = perConnection((client) => client.query<Row, any[]>(text));
  let numbered: string | null = null;
  const onPostgres = async (db: Db, params: P) => postgresClientOf(db).unsafe((numbered ??= postgresPlaceholders(text)), params, { prepare: true });
  return {
    async all(db, ...params) {
      if (isPostgres()) return (await onPostgres(db, params)) as unknown as Row[];
      return onSqlite(db).all(...params);
    },
    async get(db, ...params) {
      if (isPostgres()) return (await onPostgres(db, params))[0] as Row | undefined;
      return onSqlite(db).get(...params) ?? undefined;
    },
    async run(db, ...params) {
      if (isPostgres()) return { changes: (await onPostgres(db, params)).count };
      return { changes: onSqlite(db).run(...params).changes };
    },
  };
}

type PostgresDb = { execute(query: SQL): Promise<Record<string, unknown>[] & { count: number }> };

/** The rows of a raw drizzle `sql` query (`db.all(sql…)` on SQLite; `execute` on PostgreSQL). */
export async function rowsOf<Row>(db: Db, query: SQL): Promise<Row[]> {
  if (isPostgres()) return (await (db as unknown as PostgresDb).execute(query)) as unknown as Row[];
  return db.all<Row>(query);
}

/** Runs a raw drizzle `sql` write; how many rows it changed. */
export async function execute(db: Db, query: SQL): Promise<{ changes: number }> {
  if (isPostgres()) return { changes: (await (db as unknown as PostgresDb).execute(query)).count };
  return { changes: (db.run(query) as unknown as { changes: number }).changes };
}

/**
 * `build()`, made once per engine: for statements whose text holds a dialect fragment, built on
 * first use. A module-level cache must not hand one engine's SQL to the other (a test process runs
 * apps of both; the engine is the process's, picked when a store opens).
 */
export function perEngine<T>(build: () => T): () => T {
  const built = new Map<Engine, T>();
  return () => {
    const key = engine();
    let value = built.get(key);
    if (value === undefined) built.set(key, (value = build()));
    return value;
  };
}
