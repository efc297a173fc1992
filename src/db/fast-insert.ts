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

  /** The row as it will be stored (without its key) and the statement's parameters. */
  const prepare = (values: InferInsertModel<T>) => {
    const row: Record<string, unknown> = {};
    const params = written.map(({ key, column }) => {
      let value = (values as Record<string, unknown>)[key];
      if (value === undefined) value = column.defaultFn ? column.defaultFn() : column.hasDefault ? column.default : null;
      // a JSON column's default ([] or {}) is one shared object: each row gets its own copy
      if (typeof value === "object" && value !== null) value = structuredClone(value);
      row[key] = value;
      return value === null ? null : (column.mapToDriverValue(value) as Param);
    });
    return { row, params };
  };
  const send = async (tx: Tx, { row, params }: ReturnType<typeof prepare>): Promise<Row> => {
    row[primary.key] = (await insert.get(tx, ...params))!.id;
    return row as Row;
  };

  return Object.assign((tx: Tx, values: InferInsertModel<T>): Promise<Row> => send(tx, prepare(values)), {
    /**
     * The row as it will be stored, all but its key, before the insert is sent (`send`): what a
     * caller builds from the row (an event's payload) can go out with the insert instead of after
     * its answer (`pipelined`, src/db/statement.ts).
     */
    prepare(values: InferInsertModel<T>): { row: Omit<Row, "id">; send(tx: Tx): Promise<Row> } {
      const prepared = prepare(values);
      return { row: prepared.row as Row, send: (tx) => send(tx, prepared) };
    },
  });
}
