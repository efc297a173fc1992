import { Database, type SQLQueryBindings, type Statement as EngineStatement } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { GroupCommit, WalFile, type WalSync } from "./group-commit";
import { runMigrations } from "./migrate";
import { Mutex, routedHandle, storeOf, withinTransaction, type Db, type Store, type Tx, type WriteOptions } from "./store";

export type { Db, Tx } from "./store";
export type DbHandle = { sqlite: Connection; db: Db; file: string; groupCommit: GroupCommit; store: SqliteStore };

/** What the app context carries of an open database (src/context.ts). */
export type Storage = Pick<DbHandle, "db" | "sqlite" | "groupCommit">;

/** The app context's storage part of an open handle: the server and the CLI build contexts with it. */
export function storageOf(handle: DbHandle): Storage {
  return { db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit };
}

/**
 * The engine's connection, for the few things drizzle's handle does not do (statements prepared
 * once, `immediateTransaction`): features name these types, never `bun:sqlite`. Its statements
 * run synchronously to completion.
 */
export type Connection = Database;
/** A statement prepared on a `Connection`: `get`/`all`/`run` with the positional parameters `?1`, `?2`… */
export type Statement<Row = unknown, Params extends SQLQueryBindings[] = any[]> = EngineStatement<Row, Params>;
/** What a statement's `run` answers: rows changed, and the last inserted row's key. */
export type RunResult = ReturnType<Statement["run"]>;

/**
 * The bun:sqlite connection a query made through `db` right now runs on: inside a write
 * transaction the writer (inside its BEGIN), else the reader (`PRAGMA query_only`).
 */
export function clientOf(db: Db | Tx): Connection {
  return (db as unknown as { session: { client: Connection } }).session.client;
}

/**
 * The writer connection of `db`'s store, for background writers that prepare statements once and
 * run them inside `immediateTransaction` (which takes the writer in turn).
 */
export function writerOf(db: Db): Connection {
  return (storeOf(db) as SqliteStore).writer;
}

/** Whether every table in `names` exists (data steps that run on databases of any age). */
export function hasTables(connection: Connection, names: readonly string[]): boolean {
  const found = connection.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name IN (SELECT value FROM json_each(?1))").get(JSON.stringify(names));
  return found!.n === new Set(names).size;
}

/**
 * What hot write paths build once per connection (prepared statements that go around drizzle's
 * query builder): `build` runs on a connection's first use and is kept as long as it lives.
 */
export function perConnection<T>(build: (client: Connection) => T): (db: Db | Tx) => T {
  const built = new WeakMap<Connection, T>();
  return (db) => {
    const client = clientOf(db);
    let value = built.get(client);
    if (value === undefined) built.set(client, (value = build(client)));
    return value;
  };
}

export type OpenOptions = {
  migrate?: boolean;
  /**
   * The server's durability: commits with `synchronous=NORMAL` and one shared WAL sync per group
   * (group-commit.ts), the WAL synced by `fdatasync` or by the given `WalSync` (tests). Without it
   * (the CLI commands) every COMMIT syncs itself (`synchronous=FULL`).
   */
  groupCommit?: true | WalSync;
};

/**
 * Opens the database with the pragmas the product promises:
 * - WAL so readers never block the writer;
 * - synchronous=FULL (or NORMAL under group commit, which syncs the WAL itself before any 2xx)
 *   because every 2xx answer must survive power loss;
 * - busy_timeout so a second writer (backup, CLI) waits instead of failing;
 * - foreign_keys=ON so a membership can never point at nothing;
 * - cache_size 64 MiB so random single-row lookups stay in memory.
 * Write transactions that read then write must use `db.transaction(fn, { behavior: "immediate" })`
 * (BEGIN IMMEDIATE): a deferred transaction that upgrades to a writer can fail with SQLITE_BUSY
 * without waiting on busy_timeout.
 */
export function openDatabase(file: string, opts: OpenOptions = {}): DbHandle {
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
  const writerDb = drizzle(withStatementCache(sqlite));
  (writerDb as unknown as { $client: Database }).$client = sqlite;
  if (opts.migrate !== false) runMigrations(writerDb);
  const store = new SqliteStore(sqlite, writerDb, file);
  const handle: DbHandle = { sqlite, db: routedHandle(store), file, groupCommit: store.groupCommit, store };
  if (opts.groupCommit) useGroupCommit(handle, opts.groupCommit === true ? undefined : opts.groupCommit);
  return handle;
}

/**
 * SQLite behind the seam: one writer connection that write transactions take in turn (a FIFO
 * mutex — a body awaits between its statements, and SQLite has one writer anyway), and a second
 * connection for every read outside a transaction, `query_only`, so a read never sees another
 * task's uncommitted rows and never waits for the writer (WAL). An in-memory database is one
 * connection (a second would be another database).
 */
export class SqliteStore implements Store {
  readonly engine = "sqlite" as const;
  readonly reader: Db;
  groupCommit: GroupCommit;
  private readonly mutex = new Mutex();
  private readonly readerConnection: Database;
  private depth = 0;

  constructor(
    readonly writer: Database,
    readonly writerDb: Db,
    file: string,
  ) {
    this.groupCommit = new GroupCommit(writer, null);
    if (file === ":memory:") {
      this.readerConnection = writer;
      this.reader = drizzle(withStatementCache(writer));
    } else {
      const reader = new Database(file, { strict: true });
      reader.exec("PRAGMA busy_timeout = 5000");
      reader.exec("PRAGMA cache_size = -65536");
      reader.exec("PRAGMA query_only = ON");
      this.readerConnection = reader;
      this.reader = drizzle(withStatementCache(reader));
    }
  }

  async begin<T>(work: (tx: Tx) => Promise<T>, options: WriteOptions): Promise<T> {
    const release = await this.mutex.acquire();
    try {
      if (options.waitForLock === false) {
        this.writer.exec("PRAGMA busy_timeout = 0");
        try {
          this.writer.exec("BEGIN IMMEDIATE");
        } finally {
          this.writer.exec("PRAGMA busy_timeout = 5000");
        }
      } else {
        this.writer.exec("BEGIN IMMEDIATE");
      }
      try {
        const { out, afterCommit } = await withinTransaction(this, this.writerDb, () => work(this.writerDb));
        this.writer.exec("COMMIT");
        afterCommit();
        return out;
      } catch (e) {
        if (this.writer.inTransaction) this.writer.exec("ROLLBACK");
        throw e;
      }
    } finally {
      // Between two transactions: the one moment a WAL sync may take its mark (group-commit.ts).
      this.groupCommit.betweenTransactions();
      release();
    }
  }

  async savepoint<T>(tx: Tx, work: (tx: Tx) => Promise<T>): Promise<T> {
    const name = `gatehouse_sp${++this.depth}`;
    this.writer.exec(`SAVEPOINT ${name}`);
    try {
      const out = await work(tx);
      this.writer.exec(`RELEASE ${name}`);
      return out;
    } catch (e) {
      if (this.writer.inTransaction) {
        this.writer.exec(`ROLLBACK TO ${name}`);
        this.writer.exec(`RELEASE ${name}`);
      }
      throw e;
    } finally {
      this.depth--;
    }
  }

  async close(): Promise<void> {
    this.closeReader();
  }

  /** Closes the reader (the writer is closed by `closeDatabase`). */
  closeReader(): void {
    if (this.readerConnection !== this.writer) this.readerConnection.close();
  }
}

/** Statements kept per connection for drizzle's queries (by SQL text, least recently used dropped). */
const STATEMENT_CACHE_SIZE = 512;

/**
 * The connection as drizzle sees it: `prepare` answers from a cache by SQL text. drizzle prepares
 * every query it runs anew, and compiling the SQL was the largest single cost of a write request
 * (scripts/bench-writes.ts). A dropped statement is not finalized: a query drizzle prepared once
 * (`.prepare()`) may still hold it; the garbage collector finalizes it when nobody does.
 * Sharing a statement is safe because bun:sqlite runs `run/get/all/values` to completion (and
 * resets) within one synchronous call.
 */
function withStatementCache(sqlite: Database): Database {
  const cache = new Map<string, ReturnType<Database["prepare"]>>();
  const prepare = (sql: string) => {
    let st = cache.get(sql);
    if (st) {
      cache.delete(sql);
    } else {
      st = sqlite.prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value!);
    }
    cache.set(sql, st);
    return st;
  };
  return new Proxy(sqlite, {
    get(target, key) {
      if (key === "prepare") return prepare;
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/**
 * Switches an open handle to group commit (call it after migrations, which stay FULL). Falls back
 * to FULL — every commit syncs itself — when the database has no WAL file to sync (in memory).
 */
export function useGroupCommit(handle: DbHandle, wal?: WalSync): GroupCommit {
  // A read transaction opens (creates) the -wal file if this connection has not yet.
  handle.sqlite.query("SELECT count(*) FROM sqlite_master").get();
  const sync = wal ?? WalFile.open(handle.file);
  if (sync) handle.sqlite.exec("PRAGMA synchronous = NORMAL");
  // A previous run killed between a commit and its sync left frames the OS holds but the disk may
  // not: sync once, so everything this process starts from (events to deliver) is on disk.
  if (sync instanceof WalFile) sync.syncNow();
  handle.groupCommit = new GroupCommit(handle.sqlite, sync);
  handle.store.groupCommit = handle.groupCommit;
  return handle.groupCommit;
}

/** Waits for the last WAL sync, then closes (SQLite checkpoints and removes the WAL on the last close). */
export async function closeDatabaseDurably(h: DbHandle): Promise<void> {
  await h.groupCommit.close();
  closeDatabase(h);
}

/** Closes now: a sync still running finishes on its own (and closing checkpoints, which syncs the WAL first). */
export function closeDatabase(h: DbHandle): void {
  void h.groupCommit.close();
  try {
    h.sqlite.exec("PRAGMA optimize");
  } catch {
    /* closing anyway */
  }
  h.store.closeReader();
  h.sqlite.close();
}
