import { getTableColumns, getTableName, is, SQL, type InferInsertModel, type InferSelectModel } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Tx } from "./connection";
import { preparedQuery, type Param } from "./statement";

/**
 * Inserts one row through a statement prepared once per connection, for write paths that insert
 * hundreds of rows in one request (case bulks, reporters' auto-created cases). drizzle builds and
 * escapes the SQL of every insert anew, which was half the time a 400-case bulk held the event
 * loop (docs/benchmarks/hardening.md); this keeps drizzle's table definition as the one source of
 * column names, defaults and encodings, and only skips the query builder.
 *
 * The answer is the row as drizzle would read it back: the given values over the columns'
 * defaults, with the generated integer primary key (from `RETURNING`, which both engines speak).
 */
export function fastInserter<T extends SQLiteTable>(table: T) {
  type Row = InferSelectModel<T>;
  const columns = Object.entries(getTableColumns(table)).map(([key, column]) => ({ key, column }));
  const primary = columns.find(({ column }) => column.primary);
  if (!primary) throw new Error(`${getTableName(table)} has no primary key`);
  const written = columns.filter((c) => c !== primary);
  // A default that SQLite computes (an SQL expression) would not be known here without reading the row back.
  for (const { key, column } of written) if (is(column.default, SQL)) throw new Error(`${getTableName(table)}.${key} has an SQL default; fastInserter cannot know its value`);
  const sql = `INSERT INTO "${getTableName(table)}" (${written.map(({ column }) => `"${column.name}"`).join(", ")}) VALUES (${written.map((_, i) => `?${i + 1}`).join(", ")}) RETURNING "${primary.column.name}" AS id`;
  const insert = preparedQuery<{ id: number }>(sql);

  return async (tx: Tx, values: InferInsertModel<T>): Promise<Row> => {
    const row: Record<string, unknown> = {};
    const params = written.map(({ key, column }) => {
      let value = (values as Record<string, unknown>)[key];
      if (value === undefined) value = column.defaultFn ? column.defaultFn() : column.hasDefault ? column.default : null;
      // a JSON column's default ([] or {}) is one shared object: each row gets its own copy
      if (typeof value === "object" && value !== null) value = structuredClone(value);
      row[key] = value;
      return value === null ? null : (column.mapToDriverValue(value) as Param);
    });
    row[primary.key] = (await insert.get(tx, ...params))!.id;
    return row as Row;
  };
}
