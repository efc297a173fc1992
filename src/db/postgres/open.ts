/**
 * An open PostgreSQL database as the app context carries it: the routed handle over the store, and
 * the durability barrier, which on this engine resolves at once (COMMIT returned after the WAL
 * flush). `connectPostgres` (connect.ts) opens and checks the pool; `migratePostgres` brings the
 * schema up to date; this wraps the pool.
 */
import type postgres from "postgres";
import { GroupCommit } from "../group-commit";
import { routedHandle, type Db } from "../store";
import { PostgresStore } from "./store";

export type PostgresHandle = { db: Db; store: PostgresStore; groupCommit: GroupCommit; sql: postgres.Sql };

export function postgresHandle(sql: postgres.Sql): PostgresHandle {
  const store = new PostgresStore(sql);
  return { db: routedHandle(store), store, groupCommit: new GroupCommit(null, null), sql };
}
