/**
 * The database under a test app: SQLite in the test's data dir (the default), or, with
 * `GATEHOUSE_TEST_ENGINE=postgres`, a fresh database of its own on the run's PostgreSQL server
 * (test/support/postgres.ts) — the same code above it either way. `.ci/run` runs the suite once
 * per engine.
 */
import { test } from "bun:test";
import { join } from "node:path";
import { closeDatabase, openDatabase, type Connection, type Db } from "../../src/db/connection";
import type { GroupCommit, WalSync } from "../../src/db/group-commit";
import { openPool } from "../../src/db/postgres/connect";
import { postgresHandle } from "../../src/db/postgres/open";
import { useEngine } from "../../src/db/engine";
import { freshDatabaseSync } from "./postgres";

/** Whether this test run is the PostgreSQL one. */
export const onPostgres = process.env.GATEHOUSE_TEST_ENGINE === "postgres";

/**
 * A test of SQLite itself (its file, WAL, fsync, planner), skipped in the PostgreSQL run. Its name
 * says why in parentheses naming SQLite — `"… (SQLite's WAL)"` — so the skip is never silent.
 */
export function testOnSqlite(name: string, fn: () => unknown, timeout?: number): void {
  if (!/\(SQLite[^)]*\)/.test(name)) throw new Error(`testOnSqlite: the name must say why in parentheses, e.g. "… (SQLite's file)": ${name}`);
  test.skipIf(onPostgres)(name, fn as () => void, timeout);
}

export type TestDatabase = {
  db: Db;
  /** The SQLite connection (the writer), or null on PostgreSQL: a test that reads the file itself says so. */
  sqlite: Connection | null;
  groupCommit: GroupCommit;
  /** The PostgreSQL database's URL, or null on SQLite. */
  url: string | null;
  close(): void;
};

/**
 * The run's engine, or SQLite whatever the run when `sqlite` is set: a test whose subject is a
 * SQLite file (an older release's database, the source of a copy to PostgreSQL) runs on it in
 * both runs.
 */
export function openTestDatabase(dir: string, opts: { walSync?: WalSync; sqlite?: boolean } = {}): TestDatabase {
  if (!onPostgres || opts.sqlite) {
    useEngine("sqlite");
    // Group commit as `serve` runs it: with fdatasync of the WAL, or the test's own syncs.
    const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: opts.walSync ?? true });
    return { db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, url: null, close: () => closeDatabase(handle) };
  }
  const fresh = freshDatabaseSync();
  const { sql } = openPool({ url: fresh.url, poolSize: 10, caFile: null });
  const handle = postgresHandle(sql);
  return {
    db: handle.db,
    sqlite: null,
    groupCommit: handle.groupCommit,
    url: fresh.url,
    close: () => void handle.store.close().then(fresh.drop, fresh.drop).catch(() => {}),
  };
}
