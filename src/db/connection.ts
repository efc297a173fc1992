import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { runMigrations } from "./migrate";

export type Db = BunSQLiteDatabase;
/** The transaction handle drizzle passes to `db.transaction(cb)`; `publish` takes it. */
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type DbHandle = { sqlite: Database; db: Db; file: string };

/**
 * Opens the database with the pragmas the product promises:
 * - WAL so readers never block the writer;
 * - synchronous=FULL because every 2xx answer must survive power loss;
 * - busy_timeout so a second writer (backup, CLI) waits instead of failing;
 * - foreign_keys=ON so a membership can never point at nothing;
 * - cache_size 64 MiB so random single-row lookups stay in memory.
 * Write transactions that read then write must use `db.transaction(fn, { behavior: "immediate" })`
 * (BEGIN IMMEDIATE): a deferred transaction that upgrades to a writer can fail with SQLITE_BUSY
 * without waiting on busy_timeout.
 */
export function openDatabase(file: string, opts: { migrate?: boolean } = {}): DbHandle {
  if (file !== ":memory:") mkdirSync(dirname(file), { recursive: true });
  const sqlite = new Database(file, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = FULL");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  sqlite.exec("PRAGMA foreign_keys = ON");
  // 64 MiB page cache instead of SQLite's 2 MiB default: an IdP sync is a stream of random
  // single-row lookups, and with the default most of them miss the cache (measured in
  // scripts/bench-scim.ts). Bounded, and the OS page cache still backs it.
  sqlite.exec("PRAGMA cache_size = -65536");
  const db = drizzle(sqlite);
  if (opts.migrate !== false) runMigrations(db);
  return { sqlite, db, file };
}

export function closeDatabase(h: DbHandle): void {
  try {
    h.sqlite.exec("PRAGMA optimize");
  } catch {
    /* closing anyway */
  }
  h.sqlite.close();
}
