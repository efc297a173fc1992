/**
 * For tests that run the queries features build on both engines: a fresh PostgreSQL database
 * migrated to the product's schema (src/db/postgres/migrate.ts), given a SQLite database's rows of
 * the named tables — data made through the real HTTP surface on SQLite, then the same rows on
 * PostgreSQL.
 */
import type { Database } from "bun:sqlite";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import postgres from "postgres";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { freshDatabase } from "../support/postgres";

/** A one-connection client (the session settings below stay on it); int8 read as a JS number, as the product reads it. */
export async function migratedCopy(sqlite: Database, tables: readonly SQLiteTable[], prefix: string): Promise<{ pg: postgres.Sql; close(): Promise<void> }> {
  const db = await freshDatabase(prefix);
  const pg = postgres(db.url, { max: 1, onnotice: () => {}, types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } } as never });
  await migratePostgres(pg);
  await copyRows(sqlite, pg, tables);
  await pg.unsafe("ANALYZE");
  return {
    pg,
    async close() {
      await pg.end();
      await db.drop();
    },
  };
}

/**
 * Every row of `tables` from the SQLite database into the PostgreSQL one, in rowid order (so
 * insertion order carries over), foreign keys unchecked for the copy (tables in any order); rows
 * already there (the migrated default workspace) are kept.
 */
export async function copyRows(sqlite: Database, pg: postgres.Sql, tables: readonly SQLiteTable[]): Promise<void> {
  await pg.unsafe("SET session_replication_role = replica");
  for (const table of tables) {
    const { name, columns } = getTableConfig(table);
    const names = columns.map((x) => `"${x.name}"`).join(", ");
    const rows = sqlite.query(`SELECT ${names} FROM "${name}" ORDER BY rowid`).values() as unknown[][];
    const insert = `INSERT INTO "${name}" (${names}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")}) ON CONFLICT DO NOTHING`;
    for (const row of rows) await pg.unsafe(insert, row as never[]);
  }
  await pg.unsafe("SET session_replication_role = DEFAULT");
}
