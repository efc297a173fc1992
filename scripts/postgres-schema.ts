/**
 * Writes src/db/postgres/schema.generated.ts: PostgreSQL's tables (drizzle pg-core), derived from
 * the sqlite-core tables every feature defines in its `tables.ts`, so the schema is defined once.
 * drizzle-kit then turns that file into PostgreSQL's migrations (drizzle.postgres.config.ts →
 * migrations-postgres/). Run by `npm run db:generate`; test/db/postgres-schema.test.ts fails when
 * the file is stale or when the two engines' migrated schemas disagree.
 *
 * Columns keep SQLite's storage classes (docs/storage-postgres.md, "Schema and migrations") so the
 * queries built over the sqlite-core tables run unchanged on PostgreSQL: INTEGER → bigint (an
 * integer primary key → an identity column), TEXT → text, BLOB → bytea, REAL → double precision;
 * booleans stay 0/1 integers and JSON stays text.
 */
import { Glob } from "bun";
import { Column, getTableColumns, is, SQL, StringChunk } from "drizzle-orm";
import { getTableConfig, SQLiteTable, type SQLiteColumn } from "drizzle-orm/sqlite-core";
import { writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dir, "..");
export const GENERATED_SCHEMA = "src/db/postgres/schema.generated.ts";

/**
 * What the SQLite migrations made differently from the tables.ts definitions (sqlite_master after
 * every migration is the truth): `ALTER TABLE … ADD … NOT NULL` needs a default for the rows already
 * there, and some foreign keys were added by hand-written SQL. PostgreSQL mirrors them.
 * test/db/postgres-schema.test.ts fails when this list and the migrated SQLite schema disagree.
 */
export const SQLITE_MIGRATION_DEFAULTS: ReadonlyMap<string, number | string> = new Map([
  // 0014: per-project numbers were added to tables with rows in them (then backfilled).
  ["tms_cases.number", 0],
  ["tms_suites.number", 0],
  ["tms_milestones.number", 0],
  ["tms_plans.number", 0],
  ["tms_runs.number", 0],
  ["tms_defects.number", 0],
]);

/**
 * Tables whose rows some query orders by insertion (`insertionOrder`, src/db/dialect.ts) while
 * their key is no sequence: SQLite's implicit rowid gives that order; on PostgreSQL an identity
 * column `insertion_seq` that no query writes does.
 */
export const INSERTION_ORDER_TABLES: ReadonlySet<string> = new Set(["tms_results"]);

type Found = { exportName: string; table: SQLiteTable; file: string };

/** Every sqlite-core table exported by a `src/**\/tables.ts`, in file then export order. */
export async function featureTables(): Promise<Found[]> {
  const files = [...new Glob("src/**/tables.ts").scanSync({ cwd: root })].sort();
  const found: Found[] = [];
  const seen = new Set<SQLiteTable>();
  for (const file of files) {
    const mod = (await import(join(root, file))) as Record<string, unknown>;
    for (const [exportName, value] of Object.entries(mod)) {
      if (!is(value, SQLiteTable) || seen.has(value)) continue;
      seen.add(value);
      found.push({ exportName, table: value, file });
    }
  }
  return found;
}

/** A SQL fragment of an index (expression or WHERE) or a CHECK: SQLite text PostgreSQL reads the same. */
const PORTABLE_WORDS = new Set(["lower", "upper", "is", "not", "null", "and", "or", "in", "coalesce", "length", "true", "false"]);

function portableSql(fragment: string, where: string, columnNames: ReadonlySet<string>): string {
  const words = fragment.replace(/'(?:[^']|'')*'/g, "''").replace(/"[^"]*"/g, "").match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? [];
  const foreign = words.filter((w) => !PORTABLE_WORDS.has(w.toLowerCase()) && !columnNames.has(w));
  if (foreign.length > 0)
    throw new Error(
      `${where}: "${fragment}" uses ${foreign.join(", ")}, which this generator does not know PostgreSQL to read the same ` +
        `(COLLATE NOCASE, json functions… need a PostgreSQL spelling): add its translation to scripts/postgres-schema.ts`,
    );
  return fragment;
}

function renderSql(sqlObj: SQL, keyOf: Map<Column, string>, columnNames: ReadonlySet<string>, where: string): string {
  let text = "";
  for (const chunk of sqlObj.queryChunks) {
    if (is(chunk, StringChunk)) text += portableSql(chunk.value.join(""), where, columnNames).replaceAll("`", "\\`").replaceAll("${", "\\${");
    else if (is(chunk, Column)) {
      const key = keyOf.get(chunk);
      if (!key || !columnNames.has(chunk.name)) throw new Error(`${where}: a column of another table in an index or check`);
      // SQLite's lower()/upper() fold ASCII letters only; PostgreSQL's do the same under the C collation.
      const folded = /\b(lower|upper)\(\s*$/i.test(text);
      text += folded ? `\${t.${key}} COLLATE "C"` : `\${t.${key}}`;
    } else if (is(chunk, SQL)) text += renderSql(chunk, keyOf, columnNames, where);
    else throw new Error(`${where}: a bound value in an index or check (write it as SQL text)`);
  }
  return `sql\`${text}\``;
}

function defaultOf(column: SQLiteColumn, where: string): string | null {
  const migrated = SQLITE_MIGRATION_DEFAULTS.get(where);
  if (!column.hasDefault || column.default === undefined) return migrated === undefined ? null : JSON.stringify(migrated);
  const value = column.default as unknown;
  if (is(value, SQL)) throw new Error(`${where}: an SQL default needs a PostgreSQL translation in scripts/postgres-schema.ts`);
  if (typeof value === "boolean") return value ? "1" : "0";
  if (typeof value === "number" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "object" && value !== null) return JSON.stringify(JSON.stringify(value));
  throw new Error(`${where}: a default of type ${typeof value}`);
}

const ACTIONS = new Set(["cascade", "restrict", "no action", "set null", "set default"]);

/** The source of src/db/postgres/schema.generated.ts for these tables. */
export function renderPostgresSchema(tables: Found[]): string {
  const varOf = new Map<SQLiteTable, string>();
  for (const { exportName, table, file } of tables) {
    if ([...varOf.values()].includes(exportName)) throw new Error(`${file}: a second table exported as ${exportName}`);
    varOf.set(table, exportName);
  }
  const keyOfColumn = new Map<Column, string>();
  for (const { table } of tables) for (const [key, column] of Object.entries(getTableColumns(table))) keyOfColumn.set(column, key);

  const out: string[] = [
    "// Generated by scripts/postgres-schema.ts from the sqlite-core tables (src/**/tables.ts) — do not edit.",
    "// drizzle-kit makes PostgreSQL's migrations from it (drizzle.postgres.config.ts → migrations-postgres/).",
    "IMPORTS",
    "",
  ];
  for (const { table } of tables) {
    const config = getTableConfig(table);
    const tableVar = varOf.get(table)!;
    const columns = Object.entries(getTableColumns(table));
    const columnNames = new Set(columns.map(([, c]) => c.name));
    const extras: string[] = [];
    const defs = new Map<string, string>();
    for (const [key, column] of columns) {
      const where = `${config.name}.${column.name}`;
      const sqlType = column.getSQLType();
      let def: string;
      if (sqlType === "integer") def = `bigint(${JSON.stringify(column.name)}, { mode: "number" })`;
      else if (sqlType === "text") def = `text(${JSON.stringify(column.name)})`;
      else if (sqlType === "blob") def = `bytea(${JSON.stringify(column.name)})`;
      else if (sqlType === "real") def = `doublePrecision(${JSON.stringify(column.name)})`;
      else throw new Error(`${where}: no PostgreSQL type for SQLite's ${sqlType}`);
      if (column.primary) {
        def += ".primaryKey()";
        // SQLite hands an INTEGER PRIMARY KEY a new value when an insert gives none (AUTOINCREMENT or not).
        if (sqlType === "integer") def += ".generatedByDefaultAsIdentity()";
      } else if (column.notNull) def += ".notNull()";
      const dflt = defaultOf(column, where);
      if (dflt !== null) def += `.default(${dflt})`;
      if (column.isUnique) extras.push(`uniqueIndex(${JSON.stringify(column.uniqueName)}).on(t.${key})`);
      defs.set(key, def);
    }
    for (const fk of config.foreignKeys) {
      const ref = fk.reference();
      if (ref.columns.length !== 1) throw new Error(`${config.name}: a foreign key over ${ref.columns.length} columns`);
      const [from, to] = [ref.columns[0]!, ref.foreignColumns[0]!];
      const target = varOf.get(to.table as SQLiteTable);
      if (!target) throw new Error(`${config.name}.${from.name}: references a table no tables.ts exports`);
      const onDelete = fk.onDelete ?? "no action";
      const onUpdate = fk.onUpdate ?? "no action";
      if (!ACTIONS.has(onDelete) || onUpdate !== "no action") throw new Error(`${config.name}.${from.name}: ON DELETE ${onDelete} ON UPDATE ${onUpdate}`);
      const key = keyOfColumn.get(from)!;
      // A table referencing itself needs the column's type written out for TypeScript.
      const returns = target === tableVar ? ": AnyPgColumn" : "";
      defs.set(key, `${defs.get(key)}.references(()${returns} => ${target}.${keyOfColumn.get(to)}, { onDelete: ${JSON.stringify(onDelete)} })`);
    }
    if (INSERTION_ORDER_TABLES.has(config.name)) {
      if (defs.has("insertionSeq") || columnNames.has("insertion_seq")) throw new Error(`${config.name}: already has insertion_seq`);
      defs.set("insertionSeq", `bigint("insertion_seq", { mode: "number" }).generatedAlwaysAsIdentity()`);
    }
    out.push(`export const ${tableVar} = pgTable(`, `  ${JSON.stringify(config.name)},`, "  {");
    for (const [key, def] of defs) out.push(`    ${key}: ${def},`);
    out.push("  },");
    for (const pk of config.primaryKeys) extras.push(`primaryKey({ columns: [${pk.columns.map((c) => `t.${keyOfColumn.get(c)}`).join(", ")}] })`);
    for (const ix of config.indexes) {
      const { name, columns, unique, where } = ix.config;
      const on = columns.map((c) => (is(c, SQL) ? renderSql(c, keyOfColumn, columnNames, `index ${name}`) : `t.${keyOfColumn.get(c as Column)}`));
      let line = `${unique ? "uniqueIndex" : "index"}(${JSON.stringify(name)}).on(${on.join(", ")})`;
      if (where) line += `.where(${renderSql(where, keyOfColumn, columnNames, `index ${name}`)})`;
      extras.push(line);
    }
    for (const c of config.checks) extras.push(`check(${JSON.stringify(c.name)}, ${renderSql(c.value, keyOfColumn, columnNames, `check ${c.name}`)})`);
    if (config.uniqueConstraints.length > 0) throw new Error(`${config.name}: table-level unique() — use uniqueIndex, which both engines name alike`);
    if (extras.length > 0) {
      out.push("  (t) => [");
      for (const e of extras) out.push(`    ${e},`);
      out.push("  ],");
    }
    out.push(");", "");
  }
  const body = out.join("\n");
  const used = (name: string) => new RegExp(`\\b${name}\\(|\\b${name}\``).test(body);
  const pgCore = ["bigint", "check", "customType", "doublePrecision", "index", "pgTable", "primaryKey", "text", "uniqueIndex"].filter((n) => n === "customType" ? used("bytea") : used(n));
  if (body.includes(": AnyPgColumn")) pgCore.unshift("type AnyPgColumn");
  const imports = [...(used("sql") ? ['import { sql } from "drizzle-orm";'] : []), `import { ${pgCore.join(", ")} } from "drizzle-orm/pg-core";`];
  if (used("bytea")) imports.push("", "/** SQLite's BLOB: raw bytes. */", 'const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });');
  return body.replace("IMPORTS", imports.join("\n"));
}

if (import.meta.main) {
  writeFileSync(join(root, GENERATED_SCHEMA), renderPostgresSchema(await featureTables()));
  console.log(`${GENERATED_SCHEMA} written`);
}
