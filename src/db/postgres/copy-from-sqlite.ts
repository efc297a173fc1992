/**
 * Moving an instance from SQLite to PostgreSQL (`gatehouse copy-to-postgres`): every row of the
 * data directory's database, ids kept, into an empty PostgreSQL database at this binary's schema,
 * in one PostgreSQL transaction — the target holds all of it or, after any failure, nothing.
 * The SQLite file is only read: it stays the instance's database until the admin points the
 * configuration at PostgreSQL, and remains the way back.
 */
import { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import { LOCK_FILE, lockDataDir } from "../data-dir-lock";
import { DatabaseNewerThanBinaryError } from "../migrate";
import { migrations as sqliteMigrations } from "../migrations.generated";
import { migratePostgres } from "./migrate";

/** The copy cannot start, or found something the admin must resolve (exit 2); nothing was written. */
export class CopyRefusedError extends Error {}

export type TableCount = { table: string; rows: number };
export type CopyReport = { tables: TableCount[]; rows: number; migrationsApplied: number };

export type CopyOptions = {
  /** Told each table's count as soon as it is copied (inside the transaction: not yet committed). */
  onTable?: (copied: TableCount) => void;
  /** Told the tags of the PostgreSQL migrations applied to the target first. */
  onMigrated?: (tags: string[]) => void;
  /** Rows per INSERT at most (tests make it small to cross batch boundaries). */
  batchRows?: number;
};

/** The bookkeeping table of each engine's migrations: the target keeps its own. */
const BOOKKEEPING = "__drizzle_migrations";

/**
 * Rows PostgreSQL's migrations put in a fresh database (migrations-postgres/0000: the default
 * workspace, as SQLite's 0008 does): a target holding these and nothing else is empty. The copy
 * replaces them with the source's. test/db/copy-to-postgres.test.ts checks that a freshly
 * migrated database holds no other row, so a new seed row fails it until listed here.
 */
export const SEED_ROWS: ReadonlyMap<string, string> = new Map([["workspaces", `"id" = 1 AND "name_key" = 'default'`]]);

/**
 * Rows a running node writes into an empty database of its own accord: the id of its secret key
 * (src/server/secret-key.ts, at start) and /readyz's write probe (src/db/readiness.ts, after a
 * full disk). A database a node has run on is empty too; the copy replaces these rows with the
 * source's (whose key sealed the secrets copied).
 */
export const STARTED_NODE_ROWS: ReadonlyMap<string, string> = new Map([["settings", `"key" IN ('secret_key.id', 'readyz.write_probe')`]]);

/** Per table, the rows an empty target may hold: SEED_ROWS' and STARTED_NODE_ROWS'. */
const REPLACED_ROWS: ReadonlyMap<string, string> = new Map(
  [...new Set([...SEED_ROWS.keys(), ...STARTED_NODE_ROWS.keys()])].map((table) => [table, [SEED_ROWS.get(table), STARTED_NODE_ROWS.get(table)].filter(Boolean).map((c) => `(${c})`).join(" OR ")]),
);

/** One INSERT's parameters stay below PostgreSQL's 65 535 and its text a few MiB. */
const MAX_PARAMETERS = 60_000;
const MAX_BATCH_BYTES = 8 * 1024 * 1024;
const DEFAULT_BATCH_ROWS = 1_000;

/** How long the copy waits for a lock a running Gatehouse node holds on the target before refusing. */
const TARGET_LOCK_TIMEOUT = "10s";

/**
 * Copies the SQLite database of `dataDir` into the PostgreSQL database `sql` connects to. Holds
 * the data directory's lock for the whole copy (as `serve` does), so no server writes to the
 * source meanwhile and none can start on it before the copy ends; reads inside one SQLite read
 * transaction. Throws CopyRefusedError (or DatabaseNewerThanBinaryError) before writing a row
 * when: a server runs on the data directory, there is no database, its schema is not this
 * binary's, its foreign keys are broken, or the target holds a row.
 */
export async function copyDataDirToPostgres(dataDir: string, sql: postgres.Sql, options: CopyOptions = {}): Promise<CopyReport> {
  const file = join(dataDir, "gatehouse.db");
  if (!existsSync(file)) throw new CopyRefusedError(`no database at ${file}: GATEHOUSE_DATA_DIR must name the data directory of the instance to copy`);
  const lock = lockDataDir(dataDir);
  if (!lock) throw new CopyRefusedError(`${dataDir} is in use by a running gatehouse serve (lock file ${LOCK_FILE}): stop it first, so the copy holds its last write`);
  try {
    const source = new Database(file, { readonly: true, safeIntegers: true });
    try {
      return await copySqliteToPostgres(source, sql, options);
    } finally {
      source.close();
    }
  } finally {
    lock.release();
  }
}

/** The copy itself, from an open SQLite database (opened with `safeIntegers`, so 64-bit integers stay exact). */
export async function copySqliteToPostgres(source: Database, sql: postgres.Sql, options: CopyOptions = {}): Promise<CopyReport> {
  refuseOtherSchema(source);
  refuseBrokenForeignKeys(source);
  const tables = tablesInDependencyOrder(source);

  // A target with rows is refused before migrating it (which would change an older Gatehouse's schema).
  await refuseNonEmptyTarget(sql, tables.map((t) => t.name));
  const migrationsApplied = await migratePostgres(sql, { onApplied: options.onMigrated });

  source.exec("BEGIN"); // one read snapshot for every table
  try {
    const counts = await sql.begin(async (tx) => {
      const names = tables.map((t) => t.name);
      await tx.unsafe(`SET LOCAL lock_timeout = '${TARGET_LOCK_TIMEOUT}'`);
      try {
        // Nothing else reads or writes the target until COMMIT: the emptiness checked next stays true.
        await tx.unsafe(`LOCK TABLE ${names.map(quote).join(", ")} IN ACCESS EXCLUSIVE MODE`);
      } catch (e) {
        if ((e as { code?: string }).code === "55P03")
          throw new CopyRefusedError(`the target database is in use (a Gatehouse node running on it?): no lock on its tables within ${TARGET_LOCK_TIMEOUT}; stop it and run the copy again`);
        throw e;
      }
      await refuseNonEmptyTarget(tx, names);
      for (const [table, seed] of REPLACED_ROWS) await tx.unsafe(`DELETE FROM ${quote(table)} WHERE ${seed}`);

      const targetColumns = await insertableColumns(tx);
      const counts: TableCount[] = [];
      for (const table of tables) {
        const rows = await copyTable(source, tx, table, targetColumns.get(table.name), options.batchRows ?? DEFAULT_BATCH_ROWS);
        counts.push({ table: table.name, rows });
        options.onTable?.({ table: table.name, rows });
      }
      await verifyCounts(source, tx, counts);
      await advanceIdentities(source, tx);
      return counts;
    });
    return { tables: counts, rows: counts.reduce((n, c) => n + c.rows, 0), migrationsApplied };
  } finally {
    try {
      source.exec("ROLLBACK");
    } catch {
      /* the read transaction ends with the connection anyway; the copy's own error stays the one told */
    }
  }
}

type SourceTable = { name: string; columns: string[]; order: string; selfReference: { from: string; to: string } | null };

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** The source must be at exactly this binary's schema: the target is migrated to it, and a row copies only into the columns it was written for. */
function refuseOtherSchema(source: Database): void {
  const bookkept = source.query<{ n: bigint }, []>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '${BOOKKEEPING}'`).get()!.n > 0n;
  const applied = bookkept ? source.query<{ created_at: bigint | number | string }, []>(`SELECT created_at FROM ${BOOKKEEPING}`).all().map((r) => Number(r.created_at)) : [];
  const known = new Set(sqliteMigrations.map((m) => m.when));
  const unknown = applied.filter((when) => !known.has(when));
  if (unknown.length > 0)
    throw new DatabaseNewerThanBinaryError(
      `the SQLite database is at schema version ${applied.length - 1} and this Gatehouse knows schema versions up to ${sqliteMigrations.length - 1} ` +
        `(it records ${unknown.length} migration(s) from a newer Gatehouse): copy it with that newer version; nothing was written`,
    );
  const recorded = new Set(applied);
  const missing = sqliteMigrations.filter((m) => !recorded.has(m.when));
  if (missing.length > 0)
    throw new CopyRefusedError(
      `the SQLite database is ${applied.length === 0 ? "not a migrated Gatehouse database" : `at schema version ${applied.length - 1}`}; this Gatehouse copies schema version ${sqliteMigrations.length - 1} only: ` +
        `upgrade it first (start the server once on it, or run \`gatehouse migrate\` with the same --env-file), then copy; nothing was written`,
    );
}

/** PostgreSQL checks every foreign key on insert: a dangling one is named here rather than failing the copy halfway. */
function refuseBrokenForeignKeys(source: Database): void {
  const broken = source.query<{ table: string; rowid: bigint | null; parent: string }, []>(`SELECT "table", rowid, parent FROM pragma_foreign_key_check`).all();
  if (broken.length === 0) return;
  const sample = broken.slice(0, 5).map((b) => `${b.table} row ${b.rowid} → ${b.parent}`).join(", ");
  throw new CopyRefusedError(`the SQLite database has ${broken.length} row(s) whose foreign key points at no row (${sample}${broken.length > 5 ? ", …" : ""}): PostgreSQL would refuse them; nothing was written`);
}

/**
 * Every table of the source, parents before the tables that reference them (PostgreSQL checks a
 * foreign key at each insert: its constraints are not deferrable), ties by name. A table that
 * references itself (suites under suites) is read parents first (`order`).
 */
function tablesInDependencyOrder(source: Database): SourceTable[] {
  const names = source
    .query<{ name: string }, []>(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '${BOOKKEEPING}' ORDER BY name`)
    .all()
    .map((r) => r.name);
  const parents = new Map<string, Set<string>>();
  const tables = new Map<string, SourceTable>();
  for (const name of names) {
    const columns = source.query<{ name: string }, [string]>(`SELECT name FROM pragma_table_info(?1) ORDER BY cid`).all(name).map((c) => c.name);
    const keys = source.query<{ table: string; from: string; to: string | null; id: bigint }, [string]>(`SELECT "table", "from", "to", id FROM pragma_foreign_key_list(?1)`).all(name);
    const own = keys.filter((k) => k.table === name);
    if (own.length > 1 || new Set(own.map((k) => k.id)).size > 1) throw new Error(`${name} references itself through more than one foreign key, which the copy does not order`);
    parents.set(name, new Set(keys.map((k) => k.table).filter((t) => t !== name)));
    const selfReference = own[0] ? { from: own[0].from, to: own[0].to ?? "rowid" } : null;
    tables.set(name, { name, columns, order: readOrder(source, name), selfReference });
  }
  const ordered: SourceTable[] = [];
  const placed = new Set<string>();
  while (placed.size < names.length) {
    const ready = names.filter((n) => !placed.has(n) && [...parents.get(n)!].every((p) => placed.has(p) || !tables.has(p)));
    if (ready.length === 0) throw new Error(`the foreign keys of ${names.filter((n) => !placed.has(n)).join(", ")} form a cycle, which the copy does not order`);
    for (const n of ready) {
      placed.add(n);
      ordered.push(tables.get(n)!);
    }
  }
  return ordered;
}

/**
 * Rows are read, and so inserted, in rowid order: the order they were inserted in, which
 * PostgreSQL's `insertion_seq` (tms_results) then records as SQLite's rowid did. A table without
 * rowid is read in primary-key order.
 */
function readOrder(source: Database, table: string): string {
  const withoutRowid = source.query<{ wr: bigint }, [string]>(`SELECT wr FROM pragma_table_list WHERE name = ?1 AND schema = 'main'`).get(table)?.wr === 1n;
  if (!withoutRowid) return "rowid";
  const key = source.query<{ name: string }, [string]>(`SELECT name FROM pragma_table_info(?1) WHERE pk > 0 ORDER BY pk`).all(table);
  return key.map((k) => quote(k.name)).join(", ");
}

/** The source's rows in the order to insert them: for a self-referencing table, every row after the one it references. */
function readRows(source: Database, table: SourceTable): IterableIterator<Record<string, unknown>> {
  const t = quote(table.name);
  const columns = table.columns.map(quote).join(", ");
  if (!table.selfReference) return source.query<Record<string, unknown>, []>(`SELECT ${columns} FROM ${t} ORDER BY ${table.order}`).iterate();
  const from = quote(table.selfReference.from);
  const to = table.selfReference.to === "rowid" ? "rowid" : quote(table.selfReference.to);
  // Depth in the tree of references; a row in a cycle (which no insert order satisfies) is never reached and fails the count check.
  return source
    .query<Record<string, unknown>, []>(
      `WITH RECURSIVE tree(r, depth) AS (
         SELECT rowid, 0 FROM ${t} WHERE ${from} IS NULL OR ${from} NOT IN (SELECT ${to} FROM ${t})
         UNION ALL
         SELECT c.rowid, tree.depth + 1 FROM ${t} c JOIN ${t} p ON c.${from} = p.${to} JOIN tree ON tree.r = p.rowid WHERE c.rowid <> p.rowid
       )
       SELECT ${table.columns.map((c) => `${t}.${quote(c)}`).join(", ")} FROM ${t} JOIN tree ON tree.r = ${t}.rowid ORDER BY tree.depth, ${t}.rowid`,
    )
    .iterate();
}

/** The target's columns a copied row fills, per table: all but those PostgreSQL always generates itself (`insertion_seq`). */
async function insertableColumns(tx: postgres.TransactionSql): Promise<Map<string, Set<string>>> {
  const rows = await tx<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND NOT (is_identity = 'YES' AND identity_generation = 'ALWAYS')`;
  const byTable = new Map<string, Set<string>>();
  for (const r of rows) {
    let set = byTable.get(r.table_name);
    if (!set) byTable.set(r.table_name, (set = new Set()));
    set.add(r.column_name);
  }
  return byTable;
}

/** SQLite's values as PostgreSQL takes them: numbers as their decimal text (exact for 64-bit integers), bytes as bytea. */
function targetValue(value: unknown): string | Uint8Array | null {
  if (value === null || value === undefined) return null;
  if (value instanceof Uint8Array) return value;
  return String(value);
}

async function copyTable(source: Database, tx: postgres.TransactionSql, table: SourceTable, target: Set<string> | undefined, batchRows: number): Promise<number> {
  const missing = target ? table.columns.filter((c) => !target.has(c)) : table.columns;
  const extra = target ? [...target].filter((c) => !table.columns.includes(c)) : [];
  if (missing.length > 0 || extra.length > 0)
    throw new Error(
      `the schemas of the two engines disagree on ${table.name} (${[...missing.map((c) => `${c} only in SQLite`), ...extra.map((c) => `${c} only in PostgreSQL`)].join(", ") || "no such table in PostgreSQL"}): this Gatehouse build is broken, nothing was written`,
    );
  const perBatch = Math.max(1, Math.min(batchRows, Math.floor(MAX_PARAMETERS / table.columns.length)));
  const head = `INSERT INTO ${quote(table.name)} (${table.columns.map(quote).join(", ")}) VALUES `;
  let copied = 0;
  let batch: (string | Uint8Array | null)[][] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const width = table.columns.length;
    const values = batch.map((_, r) => `(${table.columns.map((_, c) => `$${r * width + c + 1}`).join(", ")})`).join(", ");
    try {
      await tx.unsafe(head + values, batch.flat() as postgres.ParameterOrJSON<never>[], { prepare: false });
    } catch (e) {
      const message = `copying ${table.name} (rows ${copied + 1}–${copied + batch.length} in ${table.order} order): ${(e as Error).message}; nothing was written`;
      // A value PostgreSQL refuses (data exception, constraint) stays refused on a retry: the admin's to mend.
      if (/^2[23]/.test((e as { code?: string }).code ?? "")) throw new CopyRefusedError(message);
      throw new Error(message, { cause: e });
    }
    copied += batch.length;
    batch = [];
    bytes = 0;
  };
  for (const row of readRows(source, table)) {
    const values = table.columns.map((c) => targetValue(row[c]));
    for (const v of values) bytes += v === null ? 0 : v.length;
    batch.push(values);
    if (batch.length >= perBatch || bytes >= MAX_BATCH_BYTES) await flush();
  }
  await flush();
  return copied;
}

/** Every table holds as many rows on both sides, or the transaction rolls back. */
async function verifyCounts(source: Database, tx: postgres.TransactionSql, copied: TableCount[]): Promise<void> {
  const wrong: string[] = [];
  for (const { table, rows } of copied) {
    const inSource = Number(source.query<{ n: bigint }, []>(`SELECT count(*) AS n FROM ${quote(table)}`).get()!.n);
    const [target] = await tx.unsafe<{ n: string }[]>(`SELECT count(*)::text AS n FROM ${quote(table)}`);
    const inTarget = Number(target!.n);
    if (inSource !== rows || inTarget !== rows) wrong.push(`${table}: ${inSource} in SQLite, ${rows} copied, ${inTarget} in PostgreSQL`);
  }
  if (wrong.length > 0) throw new Error(`the copy does not hold every row (${wrong.join("; ")}); nothing was written`);
}

/**
 * Each identity continues after the copied ids, and after every id SQLite ever handed out
 * (`sqlite_sequence`: AUTOINCREMENT never reuses the id of a deleted row, nor does an identity).
 */
async function advanceIdentities(source: Database, tx: postgres.TransactionSql): Promise<void> {
  const hasSequences = source.query<{ n: bigint }, []>(`SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'sqlite_sequence'`).get()!.n > 0n;
  const handedOut = new Map<string, bigint>(hasSequences ? source.query<{ name: string; seq: bigint }, []>(`SELECT name, seq FROM sqlite_sequence`).all().map((r) => [r.name, BigInt(r.seq)]) : []);
  const identities = await tx<{ table_name: string; column_name: string }[]>`
    SELECT table_name, column_name FROM information_schema.columns
    WHERE table_schema = current_schema() AND is_identity = 'YES' AND identity_generation = 'BY DEFAULT'`;
  for (const { table_name: table, column_name: column } of identities) {
    if (table === BOOKKEEPING) continue;
    const [copied] = await tx.unsafe<{ max: string | null }[]>(`SELECT max(${quote(column)})::text AS max FROM ${quote(table)}`);
    const last = [BigInt(copied!.max ?? 0), handedOut.get(table) ?? 0n].reduce((a, b) => (a > b ? a : b));
    // setval(…, 1, false): the next id is 1, as in a table that never had a row.
    await tx.unsafe(`SELECT setval(pg_get_serial_sequence($1, $2), $3, $4)`, [quote(table), column, String(last > 0n ? last : 1n), last > 0n]);
  }
}

/** Names each table of `tables` that holds a row beyond the seed rows; throws CopyRefusedError when any does. */
async function refuseNonEmptyTarget(sql: postgres.Sql | postgres.TransactionSql, tables: string[]): Promise<void> {
  const existing = new Set(
    (await sql<{ table_name: string }[]>`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`).map((r) => r.table_name),
  );
  const holding: string[] = [];
  for (const table of tables) {
    if (!existing.has(table)) continue;
    const seed = REPLACED_ROWS.get(table);
    const [row] = await sql.unsafe<{ any: boolean }[]>(`SELECT EXISTS (SELECT 1 FROM ${quote(table)}${seed ? ` WHERE NOT (${seed})` : ""}) AS any`);
    if (row!.any) holding.push(table);
  }
  if (holding.length > 0)
    throw new CopyRefusedError(
      `the target database is not empty (rows in ${holding.slice(0, 5).join(", ")}${holding.length > 5 ? `, and ${holding.length - 5} more table(s)` : ""}): ` +
        `the copy goes into an empty database only (CREATE DATABASE …, or DROP it and create it again); nothing was written`,
    );
}
