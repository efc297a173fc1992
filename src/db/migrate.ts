import { createHash } from "node:crypto";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { migrations } from "./migrations.generated";

/**
 * Applies the drizzle-kit migrations embedded in the binary. drizzle's own `migrate()` reads a
 * folder at run time, which a single-file executable does not have; so `scripts/embed-migrations.ts`
 * turns migrations/ into text imports (src/db/migrations.generated.ts) and we hand the same
 * structures to drizzle's dialect. Idempotent: applied migrations are recorded in
 * `__drizzle_migrations` exactly as drizzle's own migrator does.
 */
export function runMigrations(db: BunSQLiteDatabase, upTo: number = migrations.length): number {
  // `upTo` (a count of migrations) lets tests build a database as an older release left it.
  const metas = migrations.slice(0, upTo).map((m) => ({
    sql: m.sql.split("--> statement-breakpoint"),
    bps: m.breakpoints,
    folderMillis: m.when,
    hash: createHash("sha256").update(m.sql).digest("hex"),
  }));
  const anyDb = db as unknown as { dialect: { migrate: Function }; session: unknown };
  const before = countApplied(db);
  anyDb.dialect.migrate(metas, anyDb.session, {});
  return countApplied(db) - before;
}

function countApplied(db: BunSQLiteDatabase): number {
  const client = (db as unknown as { $client: import("bun:sqlite").Database }).$client;
  const exists = client.query("SELECT 1 FROM sqlite_master WHERE type='table' AND name='__drizzle_migrations'").get();
  if (!exists) return 0;
  return (client.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n;
}
