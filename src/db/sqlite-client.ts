/**
 * SQLite's own connection under drizzle's handle, for the few things the handle does not do
 * (statements prepared once, `immediateTransaction`). Apart from connection.ts so that
 * statement.ts can use it without importing the opening of databases (and its migrations).
 */
import type { Database, SQLQueryBindings, Statement as EngineStatement } from "bun:sqlite";
import type { Db, Tx } from "./store";

/**
 * The engine's connection, for the few things drizzle's handle does not do (statements prepared
 * once, `immediateTransaction`): features name these types, never `bun:sqlite`. Its statements
 * run synchronously to completion.
 */
export type Connection = Database;
/** A statement prepared on a `Connection`: `get`/`all`/`run` with the positional parameters `?1`, `?2`… */
export type Statement<Row = unknown, Params extends SQLQueryBindings[] = any[]> = EngineStatement<Row, Params>;
/** What a statement's `run` answers: rows changed, and the last inserted row's key. */
export type RunResult = ReturnType<Statement["run"]>;

/**
 * The bun:sqlite connection a query made through `db` right now runs on: inside a write
 * transaction the writer (inside its BEGIN), else the reader (`PRAGMA query_only`).
 */
export function clientOf(db: Db | Tx): Connection {
  return (db as unknown as { session: { client: Connection } }).session.client;
}

/**
 * What hot write paths build once per connection (prepared statements that go around drizzle's
 * query builder): `build` runs on a connection's first use and is kept as long as it lives.
 */
export function perConnection<T>(build: (client: Connection) => T): (db: Db | Tx) => T {
  const built = new WeakMap<Connection, T>();
  return (db) => {
    const client = clientOf(db);
    let value = built.get(client);
    if (value === undefined) built.set(client, (value = build(client)));
    return value;
  };
}
