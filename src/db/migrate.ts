import { createHash } from "node:crypto";
import type { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { isPostgres } from "./engine";
import { preparedQuery } from "./statement";
import { storeOf, type Db } from "./store";
import { migrations } from "./migrations.generated";
import { migrations as postgresMigrations } from "./postgres/migrations.generated";

/**
 * What to add to a PostgreSQL migration's number to get the schema version it is. PostgreSQL's
 * history starts at the schema SQLite's reached (its 0000 is SQLite's 0025) and each schema change
 * adds one migration to each, so a PostgreSQL database at its newest migration is at this
 * binary's schema version: `gatehouse version`, /version and the refusal of a newer database
 * speak of the same numbers on either engine.
 */
export const POSTGRES_SCHEMA_OFFSET = migrations.length - postgresMigrations.length;

/**
 * A data step SQL cannot express, run after the schema is current (src/server/migrate.ts lists
 * them, each from the feature whose rows it mends). Returns what it must leave for an admin to
 * resolve, one line each; it runs at every start, so it marks itself done.
 */
export type DataStep = (sqlite: Database) => string[];

/**
 * Applies the drizzle-kit migrations embedded in the binary. drizzle's own `migrate()` reads a
 * folder at run time, which a single-file executable does not have; so `scripts/embed-migrations.ts`
 * turns migrations/ into text imports (src/db/migrations.generated.ts) and we hand the same
 * structures to drizzle's dialect. Idempotent: applied migrations are recorded in
 * `__drizzle_migrations` exactly as drizzle's own migrator does.
 *
 * Then, once every migration is applied, the `dataSteps`; what they must leave for an admin to
 * resolve is passed to `report`, one line each.
 */
export function runMigrations(handle: BunSQLiteDatabase, upTo: number = migrations.length, report: (line: string) => void = () => {}, onApplied: (tags: string[]) => void = () => {}, dataSteps: readonly DataStep[] = []): number {
  const db = onWriter(handle);
  // `upTo` (a count of migrations) lets tests build a database as an older release left it, and
  // stands for an older binary that knows only those.
  const known = migrations.slice(0, upTo);
  refuseUnknownMigrations(appliedTimes(db), known.map((m) => m.when));
  const recorded = new Set(appliedTimes(db));
  const metas = known.map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash("sha256").update(m.sql).digest("hex"),
  }));
  const anyDb = db as unknown as { dialect: { migrate: Function }; session: unknown };
  const before = countApplied(db);
  anyDb.dialect.migrate(metas, anyDb.session, {});
  const applied = countApplied(db) - before;
  if (applied > 0) onApplied(known.filter((m) => !recorded.has(m.when)).map((m) => m.tag));
  if (upTo === migrations.length) {
    const client = (db as unknown as { $client: import("bun:sqlite").Database }).$client;
    for (const step of dataSteps) for (const line of step(client)) report(line);
  }
  return applied;
}

/**
 * Migrations write: given an open database's handle (`ctx.db`, which reads through a `query_only`
 * connection outside a transaction), they run on its store's writer connection. At start, before
 * any transaction (or on the writer itself while `openDatabase` builds the store).
 */
function onWriter(db: BunSQLiteDatabase): BunSQLiteDatabase {
  let writer: Database | undefined;
  try {
    writer = (storeOf(db) as unknown as { writer?: Database }).writer;
  } catch {
    return db; // not a store's handle: the writer's own drizzle database
  }
  if (!writer) return db;
  const onIt = drizzle(writer);
  (onIt as unknown as { $client: Database }).$client = writer;
  return onIt;
}

/**
 * The database records a migration this binary does not carry: a newer Gatehouse migrated it
 * (an older binary started after an upgrade, or a rollback without restoring the backup).
 * Running on would mean serving a schema the code does not know; the CLI exits 2.
 */
export class DatabaseNewerThanBinaryError extends Error {}

/**
 * Throws DatabaseNewerThanBinaryError before anything is written. Migrations are known by their
 * journal time (`when`, stored as `created_at`), which is how drizzle itself tells them apart.
 */
export function refuseUnknownMigrations(applied: readonly number[], known: readonly number[], versionOffset = 0): void {
  const knownTimes = new Set(known);
  const unknown = applied.filter((when) => !knownTimes.has(when));
  if (unknown.length === 0) return;
  // Schema versions count migrations from 0 (0000_init is schema 0), as their file names do.
  throw new DatabaseNewerThanBinaryError(
    `the database is at schema version ${applied.length - 1 + versionOffset} and this Gatehouse knows schema versions up to ${known.length - 1 + versionOffset} ` +
      `(the database records ${unknown.length} migration(s) from a newer Gatehouse). ` +
      `Run the newer version, or restore the backup taken before the upgrade; nothing was changed.`,
  );
}

const postgresApplied = preparedQuery<{ n: number }, []>(`SELECT count(*) AS n FROM "__drizzle_migrations"`);

/**
 * The schema version the database behind a handle is at (for /version): its count of recorded
 * migrations − 1, or null before any. On PostgreSQL its own migrations' count on the same scale (POSTGRES_SCHEMA_OFFSET).
 */
export async function schemaVersionOf(db: Db): Promise<number | null> {
  if (isPostgres()) {
    const n = (await postgresApplied.get(db))?.n ?? 0;
    return n === 0 ? null : n - 1 + POSTGRES_SCHEMA_OFFSET;
  }
  // The connection the handle routes to now (the reader outside a transaction), as `clientOf` finds it.
  return databaseSchemaVersion((db as unknown as { session: { client: Database } }).session.client);
}

/** The schema version a database is at (its count of recorded migrations − 1), or null before any migration. */
export function databaseSchemaVersion(client: import("bun:sqlite").Database): number | null {
  const exists = client.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!exists) return null;
  const n = (client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
  return n === 0 ? null : n - 1;
}

function appliedTimes(db: BunSQLiteDatabase): number[] {
  const client = (db as unknown as { $client: import("bun:sqlite").Database }).$client;
  const exists = client.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!exists) return [];
  return (client.query("SELECT created_at FROM __drizzle_migrations").all() as { created_at: number | string }[]).map((r) => Number(r.created_at));
}

function countApplied(db: BunSQLiteDatabase): number {
  const client = (db as unknown as { $client: import("bun:sqlite").Database }).$client;
  const exists = client.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!exists) return 0;
  return (client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}
