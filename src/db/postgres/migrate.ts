import { createHash } from "node:crypto";
import type postgres from "postgres";
import { POSTGRES_SCHEMA_OFFSET, refuseUnknownMigrations } from "../migrate";
import { migrations } from "./migrations.generated";

/**
 * The session-level advisory lock every node takes before looking at the schema ("Gatehous" as
 * 8 ASCII bytes): nodes started at once migrate one after the other, so the first applies the
 * migrations and the others, once it lets go, find them applied.
 */
export const MIGRATION_LOCK_KEY = "5143766062163699059";

/** Where applied migrations are recorded: drizzle's own table, in the role's schema beside the tables. */
const BOOKKEEPING = `CREATE TABLE "__drizzle_migrations" ("id" serial PRIMARY KEY, "hash" text NOT NULL, "created_at" bigint)`;

export type MigratePostgresOptions = {
  /** A count of migrations: stands for an older binary that knows only those (tests). */
  upTo?: number;
  /** Told the tags of the migrations this call applied, when it applied any. */
  onApplied?: (tags: string[]) => void;
};

/**
 * Applies the PostgreSQL migrations embedded in the binary (migrations-postgres/, through
 * src/db/postgres/migrations.generated.ts), each in its own transaction with its bookkeeping row,
 * so a failure leaves the database at the last whole migration. All of it runs on one reserved
 * connection holding `pg_advisory_lock`: concurrent callers wait, then apply nothing. A database
 * that records a migration this binary does not carry is refused (DatabaseNewerThanBinaryError,
 * exit 2) before anything is written, as on SQLite. Returns how many migrations it applied.
 */
export async function migratePostgres(sql: postgres.Sql, options: MigratePostgresOptions = {}): Promise<number> {
  const known = migrations.slice(0, options.upTo ?? migrations.length);
  const connection = await sql.reserve();
  try {
    // The pool's statement_timeout (connect.ts) bounds requests, not schema changes, nor waiting
    // here while another node migrates: off on this session, reset before it goes back.
    await connection.unsafe("SET statement_timeout = 0");
    await connection.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
    try {
      // Created only when absent (under the lock), not IF NOT EXISTS: that logs a notice at every start.
      const [{ present }] = await connection.unsafe<{ present: boolean }[]>(`SELECT to_regclass('"__drizzle_migrations"') IS NOT NULL AS present`);
      if (!present) await connection.unsafe(BOOKKEEPING);
      const appliedTimes = (await connection.unsafe<{ created_at: string }[]>(`SELECT "created_at"::text AS created_at FROM "__drizzle_migrations"`)).map((r) => Number(r.created_at));
      refuseUnknownMigrations(appliedTimes, known.map((m) => m.when), POSTGRES_SCHEMA_OFFSET);
      const recorded = new Set(appliedTimes);
      const applied: string[] = [];
      for (const m of known) {
        if (recorded.has(m.when)) continue;
        await applyOne(connection, m);
        applied.push(m.tag);
      }
      if (applied.length > 0) options.onApplied?.(applied);
      return applied.length;
    } finally {
      // A connection that broke has lost its session, and the lock with it; its error is the one to report.
      await connection.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`).catch(() => {});
    }
  } finally {
    await connection.unsafe("RESET statement_timeout").catch(() => {});
    connection.release();
  }
}

async function applyOne(connection: postgres.ReservedSql, m: (typeof migrations)[number]): Promise<void> {
  await connection.unsafe("BEGIN");
  try {
    for (const statement of m.sql.split("--> statement-breakpoint")) {
      if (statement.trim() !== "") await connection.unsafe(statement, [], { prepare: false });
    }
    const hash = createHash("sha256").update(m.sql).digest("hex");
    await connection`INSERT INTO "__drizzle_migrations" ("hash", "created_at") VALUES (${hash}, ${m.when})`;
    await connection.unsafe("COMMIT");
  } catch (e) {
    await connection.unsafe("ROLLBACK").catch(() => {});
    throw e;
  }
}
