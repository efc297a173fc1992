/**
 * One schema, two engines: PostgreSQL's tables are generated from the sqlite-core ones
 * (scripts/postgres-schema.ts), and each engine has its own migrations. These tests migrate a fresh
 * database of each and compare what their catalogs say — tables, columns (SQLite's storage class →
 * PostgreSQL's type), nullability, defaults, primary keys, indexes (columns or expressions, unique,
 * partial predicate), foreign keys with their ON DELETE/ON UPDATE rules, CHECK constraints — and
 * check that every generated file is what its generator writes today.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import postgres from "postgres";
import { EMBEDDED, renderEmbeddedMigrations } from "../../scripts/embed-migrations";
import { featureTables, GENERATED_SCHEMA, INSERTION_ORDER_TABLES, renderPostgresSchema } from "../../scripts/postgres-schema";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { freshDatabase } from "../support/postgres";

const ROOT = join(import.meta.dir, "../..");

type Column = { type: string; nullable: boolean; default: string | null };
type Index = { on: string; unique: boolean; where: string | null };
type Table = { columns: Record<string, Column>; primaryKey: string[]; indexes: Record<string, Index>; foreignKeys: string[]; checks: number };
type Schema = Record<string, Table>;

/** What SQLite's storage classes are on PostgreSQL (docs/storage-postgres.md, "Schema and migrations"). */
const POSTGRES_TYPE_OF: Record<string, string> = { integer: "bigint", text: "text", blob: "bytea", real: "double precision" };

/** An index's column list or predicate as text both engines' catalogs can be compared by. */
function normalExpression(text: string): string {
  return text
    .toLowerCase()
    .replace(/[`"]/g, "")
    .replace(/\b[a-z_][a-z0-9_]*\./g, "") // table qualifiers
    .replace(/::[a-z]+( [a-z]+)*/g, "") // PostgreSQL's casts of literals
    .replace(/[\s()]/g, "");
}

/** `CREATE [UNIQUE] INDEX name ON table [USING btree] (…) [WHERE …]`: what is indexed, and the predicate. */
function indexParts(definition: string): { on: string; where: string | null } {
  const onAt = definition.search(/\sON\s/i);
  const open = definition.indexOf("(", onAt);
  let depth = 0;
  let close = open;
  for (; close < definition.length; close++) {
    if (definition[close] === "(") depth++;
    else if (definition[close] === ")" && --depth === 0) break;
  }
  const where = /^\s*WHERE\s+([\s\S]*)$/i.exec(definition.slice(close + 1));
  return { on: normalExpression(definition.slice(open + 1, close)), where: where ? normalExpression(where[1]!) : null };
}

/**
 * An index expression of SQLite's as PostgreSQL spells the same meaning: SQLite's lower()/upper()
 * fold ASCII letters only, PostgreSQL's do so under the C collation (scripts/postgres-schema.ts).
 */
function postgresSpelling(expression: string): string {
  return expression.replace(/\b(lower|upper)\(([^()]*)\)/gi, '$1($2 COLLATE "C")');
}

function normalDefault(text: string | null): string | null {
  if (text === null) return null;
  const bare = text.replace(/::[a-z]+( [a-z]+)*$/i, "");
  return bare === "false" ? "0" : bare === "true" ? "1" : bare;
}

function sqliteSchema(file: string): Schema {
  const h = openDatabase(file);
  try {
    const q = <T>(sql: string, ...params: string[]) => h.sqlite.query(sql).all(...params) as T[];
    const schema: Schema = {};
    const tables = q<{ name: string; sql: string }>("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '__drizzle_migrations' ORDER BY name");
    for (const { name, sql } of tables) {
      const info = q<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>("SELECT * FROM pragma_table_info(?)", name);
      const pk = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk);
      const rowid = pk.length === 1 && pk[0]!.type.toLowerCase() === "integer" ? pk[0]!.name : null;
      const columns: Record<string, Column> = {};
      for (const c of info) {
        columns[c.name] = {
          type: POSTGRES_TYPE_OF[c.type.toLowerCase()] ?? `unmapped SQLite type ${c.type}`,
          // An INTEGER PRIMARY KEY is the rowid: never null, and given a value when an insert gives none.
          nullable: c.name === rowid ? false : c.notnull === 0,
          default: c.name === rowid ? "identity" : normalDefault(c.dflt_value),
        };
      }
      // PostgreSQL's stand-in for the implicit rowid that gives insertion order (src/db/dialect.ts insertionOrder).
      if (INSERTION_ORDER_TABLES.has(name)) columns.insertion_seq = { type: "bigint", nullable: false, default: "identity" };
      const indexes: Record<string, Index> = {};
      for (const ix of q<{ name: string; unique: number; origin: string }>("SELECT * FROM pragma_index_list(?)", name)) {
        if (ix.origin === "pk") continue;
        const [{ sql: definition }] = q<{ sql: string | null }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", ix.name);
        if (!definition) throw new Error(`${name}: an index made by a UNIQUE constraint (${ix.name}); the generator writes unique indexes`);
        indexes[ix.name] = { ...indexParts(postgresSpelling(definition)), unique: ix.unique === 1 };
      }
      const fks = new Map<number, { table: string; from: string[]; to: (string | null)[]; onDelete: string; onUpdate: string }>();
      for (const fk of q<{ id: number; table: string; from: string; to: string | null; on_delete: string; on_update: string }>("SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq", name)) {
        const entry = fks.get(fk.id) ?? { table: fk.table, from: [], to: [], onDelete: fk.on_delete, onUpdate: fk.on_update };
        entry.from.push(fk.from);
        entry.to.push(fk.to);
        fks.set(fk.id, entry);
      }
      const foreignKeys = [...fks.values()].map((fk) => {
        // `REFERENCES t` without columns names t's primary key.
        const to = fk.to.every((c) => c === null) ? q<{ name: string }>("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", fk.table).map((c) => c.name) : fk.to;
        return `(${fk.from.join(", ")}) → ${fk.table}(${to.join(", ")}) ON DELETE ${fk.onDelete.toLowerCase()} ON UPDATE ${fk.onUpdate.toLowerCase()}`;
      });
      const checks = (sql.replace(/'(?:[^']|'')*'/g, "''").match(/\bCHECK\s*\(/gi) ?? []).length;
      schema[name] = { columns, primaryKey: pk.map((c) => c.name), indexes, foreignKeys: foreignKeys.sort(), checks };
    }
    return schema;
  } finally {
    closeDatabase(h);
  }
}

const RULE: Record<string, string> = { a: "no action", r: "restrict", c: "cascade", n: "set null", d: "set default" };

async function postgresSchema(sql: postgres.Sql): Promise<Schema> {
  const schema: Schema = {};
  const tables = await sql<{ name: string }[]>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> '__drizzle_migrations' ORDER BY table_name`;
  for (const { name } of tables) schema[name] = { columns: {}, primaryKey: [], indexes: {}, foreignKeys: [], checks: 0 };
  const columns = await sql<{ table: string; name: string; type: string; nullable: string; default: string | null; identity: string }[]>`
    SELECT table_name AS table, column_name AS name, data_type AS type, is_nullable AS nullable, column_default AS default, is_identity AS identity
    FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position`;
  for (const c of columns) {
    const table = schema[c.table];
    if (!table) continue;
    table.columns[c.name] = { type: c.type, nullable: c.nullable === "YES", default: c.identity === "YES" ? "identity" : normalDefault(c.default) };
  }
  const constraints = await sql<{ table: string; kind: string; ref: string | null; on_delete: string; on_update: string; cols: string[]; ref_cols: string[] | null }[]>`
    SELECT t.relname AS table, c.contype AS kind, r.relname AS ref, c.confdeltype AS on_delete, c.confupdtype AS on_update,
      (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS cols,
      (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS ref_cols
    FROM pg_constraint c JOIN pg_class t ON t.oid = c.conrelid JOIN pg_namespace s ON s.oid = t.relnamespace LEFT JOIN pg_class r ON r.oid = c.confrelid
    WHERE s.nspname = current_schema()`;
  for (const c of constraints) {
    const table = schema[c.table];
    if (!table) continue;
    if (c.kind === "p") table.primaryKey = c.cols;
    else if (c.kind === "f") table.foreignKeys.push(`(${c.cols.join(", ")}) → ${c.ref}(${c.ref_cols!.join(", ")}) ON DELETE ${RULE[c.on_delete]} ON UPDATE ${RULE[c.on_update]}`);
    else if (c.kind === "c") table.checks++;
    else throw new Error(`${c.table}: a constraint of kind ${c.kind} (a UNIQUE constraint? the generator writes unique indexes)`);
  }
  for (const table of Object.values(schema)) table.foreignKeys.sort();
  const indexes = await sql<{ table: string; name: string; unique: boolean; primary: boolean; definition: string }[]>`
    SELECT t.relname AS table, x.relname AS name, i.indisunique AS unique, i.indisprimary AS primary, pg_get_indexdef(i.indexrelid) AS definition
    FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_class x ON x.oid = i.indexrelid JOIN pg_namespace s ON s.oid = t.relnamespace
    WHERE s.nspname = current_schema()`;
  for (const ix of indexes) {
    const table = schema[ix.table];
    if (!table || ix.primary) continue;
    table.indexes[ix.name] = { ...indexParts(ix.definition), unique: ix.unique };
  }
  return schema;
}

let dir: string;
let db: { url: string; drop(): Promise<void> };
let sql: postgres.Sql;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-pg-schema-"));
  db = await freshDatabase("schema");
  sql = postgres(db.url, { max: 1, onnotice: () => {} });
  await migratePostgres(sql);
}, 60_000); // starting the test server (initdb) when the run has none

afterAll(async () => {
  await sql?.end();
  await db?.drop();
  rmSync(dir, { recursive: true, force: true });
});

test("a migrated PostgreSQL database has the schema a migrated SQLite database has, table by table", async () => {
  const lite = sqliteSchema(join(dir, "g.db"));
  const pg = await postgresSchema(sql);
  expect(Object.keys(pg)).toEqual(Object.keys(lite));
  for (const name of Object.keys(lite)) expect({ [name]: pg[name] }).toEqual({ [name]: lite[name]! });
  // the comparison sees what matters (a comparison of nothing would pass too)
  expect(lite.admin_tokens!.indexes.admin_tokens_live_name_unique).toEqual({ on: "lowernamecollatec", unique: true, where: "revoked_atisnull" });
  expect(lite.tms_results!.columns.insertion_seq).toEqual({ type: "bigint", nullable: false, default: "identity" });
  expect(lite.webhook_deliveries!.indexes.webhook_deliveries_due).toEqual({ on: "subscription_id,next_attempt_at", unique: false, where: "status='pending'" });
  expect(lite.tms_runs!.foreignKeys).toContain("(environment_id) → tms_environments(id) ON DELETE set null ON UPDATE no action");
  expect(lite.tms_attachments!.columns.content).toEqual({ type: "bytea", nullable: false, default: null });
  expect(lite.webhook_attempts!.columns.id).toEqual({ type: "bigint", nullable: false, default: "identity" });
  expect(lite.tms_cases!.columns.is_flaky).toEqual({ type: "bigint", nullable: false, default: "0" });
  expect(lite.tms_cases!.columns.steps).toEqual({ type: "text", nullable: false, default: "'[]'" });
});

test("a fresh database of either engine holds the same rows: the default workspace, and the next id after it", async () => {
  const h = openDatabase(join(dir, "rows.db"));
  try {
    const lite = h.sqlite.query("SELECT id, name, name_key, archived_at FROM workspaces").all() as Record<string, unknown>[];
    const pg = await sql`SELECT id::int AS id, name, name_key, archived_at FROM workspaces`;
    expect([...pg]).toEqual(lite);
    for (const { name } of h.sqlite.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT IN ('__drizzle_migrations', 'workspaces')").all() as { name: string }[]) {
      const [{ n }] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM ${sql(name)}`;
      expect({ [name]: n }).toEqual({ [name]: (h.sqlite.query(`SELECT count(*) AS n FROM "${name}"`).get() as { n: number }).n });
    }
    const now = new Date().toISOString();
    const liteNext = h.sqlite.query("INSERT INTO workspaces (name, name_key, created_at, updated_at) VALUES ('Next', 'next', ?1, ?1) RETURNING id").get(now);
    const [pgNext] = await sql`INSERT INTO workspaces (name, name_key, created_at, updated_at) VALUES ('Next', 'next', ${now}, ${now}) RETURNING id::int AS id`;
    expect(pgNext).toEqual(liteNext as Record<string, number>);
    expect(pgNext).toEqual({ id: 2 });
  } finally {
    closeDatabase(h);
  }
});

test("a live token name is unique folding ASCII letters only, on both engines (as SQLite's lower())", async () => {
  const h = openDatabase(join(dir, "names.db"));
  try {
    const now = new Date().toISOString();
    const results: Record<string, string[]> = { sqlite: [], postgres: [] };
    let n = 0;
    for (const name of ["Build", "BUILD", "Äbc", "äbc", "ÄBC"]) {
      const hash = `h${n++}`;
      try {
        h.sqlite.query("INSERT INTO scim_tokens (name, token_hash, created_at) VALUES (?, ?, ?)").run(name, hash, now);
        results.sqlite!.push(name);
      } catch {}
      try {
        await sql`INSERT INTO scim_tokens (name, token_hash, created_at) VALUES (${name}, ${hash}, ${now})`;
        results.postgres!.push(name);
      } catch (e) {
        expect((e as { code?: string }).code).toBe("23505");
      }
    }
    expect(results.sqlite).toEqual(["Build", "Äbc", "äbc"]);
    expect(results.postgres).toEqual(results.sqlite!);
  } finally {
    closeDatabase(h);
    await sql`DELETE FROM scim_tokens`;
  }
});

test("the generated PostgreSQL schema is what the generator writes from today's tables", async () => {
  expect(readFileSync(join(ROOT, GENERATED_SCHEMA), "utf8")).toBe(renderPostgresSchema(await featureTables()));
});

test("each engine's embedded migrations are what scripts/embed-migrations.ts writes from its folder", () => {
  for (const { folder, module } of EMBEDDED) expect(readFileSync(join(ROOT, module), "utf8")).toBe(renderEmbeddedMigrations(folder, module));
});

test("PostgreSQL's migrations are current with the generated schema (drizzle-kit has nothing to generate)", () => {
  const out = join(dir, "migrations-postgres");
  cpSync(join(ROOT, "migrations-postgres"), out, { recursive: true });
  // drizzle-kit reads --out relative to the working directory (and answers 0 even when it fails).
  const r = spawnSync(join(ROOT, "node_modules/.bin/drizzle-kit"), ["generate", "--dialect", "postgresql", "--schema", GENERATED_SCHEMA, "--out", relative(ROOT, out)], { cwd: ROOT, encoding: "utf8" });
  expect(`${r.stdout}${r.stderr}`).toContain("No schema changes, nothing to migrate");
  expect(readdirSync(out).sort()).toEqual(readdirSync(join(ROOT, "migrations-postgres")).sort());
}, 60_000);
