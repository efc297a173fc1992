import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { GroupCommit, WalFile, type WalSync } from "./group-commit";
import { runMigrations } from "./migrate";
import type { Connection, Statement } from "./sqlite-client";
export { clientOf, perConnection, type Connection, type RunResult, type Statement } from "./sqlite-client";
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
  private readonly snapshot: ReaderSnapshot | null = null;
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
      this.snapshot = ReaderSnapshot.open(reader, file);
    }
  }

  beforeRead(): void {
    this.snapshot?.renew();
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
        // The reader's snapshot is stale from this COMMIT on (its next read starts another one),
        // and one left open would pin the WAL: the checkpoint this COMMIT may run could not copy
        // the frames after it, the WAL never restarts, and every later COMMIT tries again — under
        // a steady load of reads and writes the WAL grew by hundreds of MB and a COMMIT took
        // ~1 ms (docs/benchmarks/read-path.md, round 7).
        this.snapshot?.end();
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
    this.snapshot?.close();
    if (this.readerConnection !== this.writer) this.readerConnection.close();
  }
}

/** How long the reader keeps one read transaction at most while nothing commits (it pins WAL frames a checkpoint would reuse). */
const SNAPSHOT_MAX_MS = 20;

/**
 * The reader's reads share one read transaction for as long as nothing has committed, instead of
 * each statement opening its own: starting a WAL read transaction takes the shared-memory read
 * lock, and checks the database size (two `fcntl` and an `fstat`), ~15 µs — as much as the rest
 * of a one-row lookup (docs/benchmarks/read-path.md, round 6).
 *
 * Why a shared snapshot is never stale: every commit, by this process or any other, rewrites the
 * WAL-index header at the start of the `-shm` file (its change counter, frame count, salts and
 * checksum — SQLite's documented WAL format). `renew` runs before each query routed to the reader
 * (store.ts): it compares the header with a copy taken before the snapshot was, and starts a new
 * read transaction when they differ. A query therefore reads a state at least as new as the last
 * commit that finished before it was made — what its own read transaction would give. A snapshot
 * ends after SNAPSHOT_MAX_MS, so it pins WAL frames only briefly.
 */
class ReaderSnapshot {
  private readonly taken = new Uint32Array(HEADER_WORDS);
  private active = false;
  private closed = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly beginRead: Statement;
  private readonly endRead: Statement;

  private constructor(
    private readonly connection: Database,
    /** The live WAL-index header (the first copy), mapped from the `-shm` file. */
    private readonly header: Uint32Array,
  ) {
    this.beginRead = connection.prepare("BEGIN");
    this.endRead = connection.prepare("COMMIT");
  }

  /** A snapshot for `reader` of `file`; null when the database has no `-shm` file (not in WAL mode): every statement reads on its own. */
  static open(reader: Database, file: string): ReaderSnapshot | null {
    if ((reader.query("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode !== "wal") return null;
    reader.query("SELECT count(*) FROM sqlite_master").get(); // opens (maps) the -shm if nobody has yet
    let mapped: Uint8Array;
    try {
      mapped = Bun.mmap(`${file}-shm`, { shared: true } as Parameters<typeof Bun.mmap>[1]);
    } catch {
      return null;
    }
    if (mapped.byteLength < HEADER_WORDS * 4) return null;
    return new ReaderSnapshot(reader, new Uint32Array(mapped.buffer, mapped.byteOffset, HEADER_WORDS));
  }

  /** Before a read: keeps the open snapshot when nothing has committed since it was taken, else starts a new one. */
  renew(): void {
    if (this.closed) return; // a read after close fails on its own statement, as it always did
    if (this.active) {
      if (this.unchanged()) return;
      this.end();
    }
    // The copy is taken before the read transaction starts, so a commit landing in between only
    // makes the next `renew` start another one (never the reverse).
    this.taken.set(this.header);
    this.beginRead.run(); // deferred: the read lock is taken by the query that follows
    this.active = true;
    this.timer = setTimeout(() => this.end(), SNAPSHOT_MAX_MS);
    this.timer.unref?.();
  }

  /** Before the reader closes: ends the open snapshot, and no read starts another. */
  close(): void {
    this.end();
    this.closed = true;
  }

  end(): void {
    if (!this.active) return;
    this.active = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.connection.inTransaction) this.endRead.run();
  }

  private unchanged(): boolean {
    const { header, taken } = this;
    for (let i = 0; i < HEADER_WORDS; i++) if (header[i] !== taken[i]) return false;
    return true;
  }
}
/** The WAL-index header: 48 bytes (sqlite.org/walformat.html, "The WAL-Index Header"). */
const HEADER_WORDS = 12;

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
