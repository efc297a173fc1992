/**
 * A statement written once as SQL text with positional parameters `?1`, `?2`…, run on whichever
 * connection `db` routes to now (the task's write transaction, else the reader). For hot paths
 * that skip drizzle's query builder (token lookups, the fast insert, the outbox, numbering): on
 * SQLite it is prepared once per connection; on PostgreSQL it is a named prepared statement
 * (`$1`, `$2`…) of the pool's connections. Write the SQL in the part both engines speak, with the
 * engine-specific fragments of `dialect.ts`.
 */
import { getTableColumns, getTableName, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
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

/**
 * Awaits statements sent together — each started before any is awaited, so on PostgreSQL the
 * driver writes them to the transaction's connection at once and they cost one round trip, not
 * one each (SQLite runs them in order as they are started). Every one settles before this answers
 * (nothing of the transaction is still in flight when it commits or rolls back); the first failure,
 * in the order given, is thrown. Send together only statements whose texts do not need each
 * other's answers.
 */
export async function pipelined<T extends readonly unknown[]>(...statements: { [K in keyof T]: Promise<T[K]> }): Promise<T> {
  const settled = await Promise.allSettled(statements);
  for (const s of settled) if (s.status === "rejected") throw s.reason;
  return settled.map((s) => (s as PromiseFulfilledResult<unknown>).value) as unknown as T;
}

/**
 * A select of `table`'s rows written once (`preparedQuery`), `where` in SQL text with `?N`
 * parameters: each row as drizzle's query builder would answer it — every column under its key,
 * mapped from what the driver gives (JSON parsed, booleans from 0/1) by the column's own mapping —
 * without building the query for every call (~0.2 ms of CPU each, docs/benchmarks/postgres.md).
 */
export function preparedSelect<T extends SQLiteTable, P extends Param[]>(table: T, where: string): (db: Db, ...params: P) => Promise<T["$inferSelect"][]> {
  const columns = Object.entries(getTableColumns(table));
  const statement = preparedQuery<Record<string, unknown>, P>(`SELECT ${columns.map(([key, c]) => `"${c.name}" AS "${key}"`).join(", ")} FROM "${getTableName(table)}" WHERE ${where}`);
  return async (db, ...params) =>
    (await statement.all(db, ...params)).map((raw) => {
      const row: Record<string, unknown> = {};
      for (const [key, c] of columns) row[key] = raw[key] === null || raw[key] === undefined ? null : c.mapFromDriverValue(raw[key]);
      return row as T["$inferSelect"];
    });
}
