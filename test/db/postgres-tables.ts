/**
 * For tests that run the queries features build against PostgreSQL before its migrations exist
 * for them: the given sqlite-core tables created on a PostgreSQL database with the column types
 * that mirror SQLite's storage classes (INTEGER → bigint, TEXT → text, REAL → double precision,
 * BLOB → bytea), their primary keys and column indexes, and `copyRows` to give it a SQLite
 * database's rows. Not the product's schema (no defaults, no foreign keys): enough to run a SELECT.
 */
import type { Database } from "bun:sqlite";
import { getTableConfig, type SQLiteTable } from "drizzle-orm/sqlite-core";
import type postgres from "postgres";

const TYPES: Record<string, string> = { integer: "bigint", text: "text", real: "double precision", numeric: "numeric", blob: "bytea" };

/** The tables whose key is no sequence get the identity column the dialect orders insertion by. */
const INSERTION_ORDERED = new Set(["tms_results"]);

export function postgresDdl(table: SQLiteTable): string[] {
  const c = getTableConfig(table);
  const columns = c.columns.map((col) => {
    const type = TYPES[col.getSQLType().toLowerCase()] ?? "text";
    return `"${col.name}" ${type}${col.primary ? " PRIMARY KEY" : ""}${col.notNull && !col.primary ? " NOT NULL" : ""}`;
  });
  if (INSERTION_ORDERED.has(c.name)) columns.push("insertion_seq bigint GENERATED ALWAYS AS IDENTITY");
  for (const pk of c.primaryKeys) columns.push(`PRIMARY KEY (${pk.columns.map((x) => `"${x.name}"`).join(", ")})`);
  const out = [`CREATE TABLE "${c.name}" (${columns.join(", ")})`];
  for (const index of c.indexes) {
    const cols = index.config.columns.map((x) => ("name" in x ? `"${(x as { name: string }).name}"` : null));
    if (cols.some((x) => x === null)) continue; // an expression index: SQLite's own spelling
    out.push(`CREATE ${index.config.unique ? "UNIQUE " : ""}INDEX "${index.config.name}" ON "${c.name}" (${cols.join(", ")})`);
  }
  return out;
}

export async function createTables(pg: postgres.Sql, tables: readonly SQLiteTable[]): Promise<void> {
  for (const table of tables) for (const statement of postgresDdl(table)) await pg.unsafe(statement);
}

/** Every row of `tables` from the SQLite database into the PostgreSQL one (in rowid order, so insertion order carries over). */
export async function copyRows(sqlite: Database, pg: postgres.Sql, tables: readonly SQLiteTable[]): Promise<void> {
  for (const table of tables) {
    const name = getTableConfig(table).name;
    const columns = getTableConfig(table).columns.map((x) => x.name);
    const rows = sqlite.query(`SELECT ${columns.map((x) => `"${x}"`).join(", ")} FROM "${name}" ORDER BY rowid`).values() as unknown[][];
    const insert = `INSERT INTO "${name}" (${columns.map((x) => `"${x}"`).join(", ")}) VALUES (${columns.map((_, i) => `$${i + 1}`).join(", ")})`;
    for (const row of rows) await pg.unsafe(insert, row as never[]);
  }
}
