/**
 * Opening the configured engine for `serve` and the CLI: SQLite in the data dir (no
 * `GATEHOUSE_DATABASE_URL`, today's behaviour) or the PostgreSQL server the URL names, migrated to
 * this binary's schema either way. What differs after that is behind the store.
 */
import { resolve } from "node:path";
import type { Config } from "../config";
import { closeDatabase, closeDatabaseDurably, openDatabase, useGroupCommit, type Connection, type DbHandle } from "./connection";
import { useEngine, type Engine } from "./engine";
import type { GroupCommit, WalSync } from "./group-commit";
import type { DataStep } from "./migrate";
import { runMigrations } from "./migrate";
import type { Db } from "./store";

export type OpenedStorage = {
  engine: Engine;
  db: Db;
  /** The SQLite writer connection; null on PostgreSQL. */
  sqlite: Connection | null;
  groupCommit: GroupCommit;
  /** Where the data is, for logs and messages: the file, or the URL with its password hidden. */
  where: string;
  /** The SQLite file, or null on PostgreSQL. */
  file: string | null;
  /** Waits until every write is durable, then closes. */
  close(): Promise<void>;
  /** Closes now (start-up failed). */
  closeNow(): void;
  /** SQLite: commits share WAL syncs from here on (after migrations); false when every commit syncs itself. */
  groupCommits(walSync?: WalSync): boolean;
};

export type MigrationReport = { report?: (line: string) => void; onApplied?: (tags: string[]) => void; dataSteps?: readonly DataStep[] };

/** The SQLite file of a data directory (absolute, so every message names it unambiguously). */
export function databaseFile(config: Pick<Config, "dataDir">): string {
  return resolve(config.dataDir, "gatehouse.db");
}

/**
 * Opens SQLite without migrating (throws the engine's errors: the caller words them). The process
 * speaks SQLite from here on, as opening PostgreSQL's store makes it speak PostgreSQL.
 */
export function openSqliteStorage(file: string): OpenedStorage & { handle: DbHandle } {
  useEngine("sqlite");
  const handle = openDatabase(file, { migrate: false });
  return {
    engine: "sqlite",
    db: handle.db,
    sqlite: handle.sqlite,
    get groupCommit() {
      return handle.groupCommit;
    },
    where: file,
    file,
    handle,
    close: () => closeDatabaseDurably(handle),
    closeNow: () => closeDatabase(handle),
    groupCommits: (walSync) => useGroupCommit(handle, walSync).grouped,
  };
}

/** Brings the storage to this binary's schema; how many migrations it applied. */
export async function migrateStorage(storage: OpenedStorage, m: MigrationReport = {}): Promise<number> {
  if (storage.engine === "sqlite") return runMigrations((storage as OpenedStorage & { handle: DbHandle }).handle.store.writerDb, undefined, m.report, m.onApplied, m.dataSteps);
  const { migratePostgres } = await import("./postgres/migrate");
  return migratePostgres((storage as OpenedStorage & { sql: import("postgres").Sql }).sql, { onApplied: m.onApplied });
}

/**
 * Connects to PostgreSQL and checks it (connect.ts: DatabaseConnectError, exit 1 or 2). Loaded only
 * when the URL is set, so SQLite instances never load the driver.
 */
export async function openPostgresStorage(config: Pick<Config, "databaseUrl" | "databasePoolSize" | "databaseCaFile">): Promise<OpenedStorage & { sql: import("postgres").Sql }> {
  const { connectPostgres, postgresSettings, redactDatabaseUrl } = await import("./postgres/connect");
  const { postgresHandle } = await import("./postgres/open");
  const settings = postgresSettings(config)!;
  const { sql } = await connectPostgres(settings);
  const handle = postgresHandle(sql);
  return {
    engine: "postgres",
    db: handle.db,
    sqlite: null,
    groupCommit: handle.groupCommit,
    where: `PostgreSQL at ${redactDatabaseUrl(settings.url).replace(/^postgres(ql)?:\/\//, "")}`,
    file: null,
    sql,
    close: () => handle.store.close(),
    closeNow: () => void handle.store.close().catch(() => {}),
    groupCommits: () => false,
  };
}

/** The app context's storage part (src/context.ts) of an opened database. */
export function contextStorage(s: OpenedStorage): { db: Db; sqlite: Connection | null; groupCommit: GroupCommit } {
  return { db: s.db, sqlite: s.sqlite, groupCommit: s.groupCommit };
}
