/**
 * The storage seam's one shape for both engines: a `Store` answers reads outside transactions and
 * runs write transactions, and the `Db` handle features hold (`ctx.db`) routes each query to the
 * write transaction its async task is inside, or to the store's reader when it is in none.
 *
 * Why routing by task rather than passing `tx` everywhere: a transaction's body awaits (on
 * PostgreSQL every query is a network round trip), so other requests run in between; a query a
 * body makes through `ctx.db` — a helper that reads, an audit entry — must run inside that
 * transaction, and another request's query must not. `AsyncLocalStorage` follows the task across
 * awaits; nested `writeTransaction` calls inside an open one become savepoints.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type { Engine } from "./engine";

/**
 * The query builder every feature writes against. Its types are drizzle's SQLite ones (the
 * tables are defined once, with sqlite-core); on PostgreSQL the handle is drizzle's postgres-js
 * database, which builds the same queries over the same table objects. Features only `await`
 * queries (never `.get()/.all()/.run()`, which are SQLite's synchronous calls) and take the first
 * row with `first()`.
 */
export type Db = BunSQLiteDatabase;
/** A write transaction's handle: the same query builder, bound to the transaction's connection. */
export type Tx = Db;

/** How a write transaction takes its locks. */
export type WriteOptions = {
  /**
   * Wait for another process's write lock (SQLite: `busy_timeout`) — request writes do; background
   * writes pass false and fail at once instead (`isLockBusy`), trying again later.
   */
  waitForLock?: boolean;
  /**
   * Names of the rules this transaction checks before it writes (seats, a workspace's userNames…):
   * transactions naming the same key run one after another across every node. On SQLite the one
   * writer already serializes them; on PostgreSQL each key is a transaction-scoped advisory lock.
   */
  serializeOn?: readonly string[];
  /**
   * "deferred": the transaction records something whose loss in a crash of the database server is
   * harmless (a log row, a "last used" stamp, a delivery's outcome that a redelivery would record
   * again), so its COMMIT need not wait for the WAL flush. PostgreSQL: `synchronous_commit = off`
   * for this transaction — the flush follows within `wal_writer_delay` (×3 at most) and any later
   * synchronous COMMIT flushes it first (WAL order), so it is never lost behind a write that was
   * acknowledged. SQLite: nothing changes (a background write never waits for the group sync
   * anyway). Default "commit": COMMIT returns once durable. A savepoint follows its transaction.
   */
  durability?: "commit" | "deferred";
};

export interface Store {
  readonly engine: Engine;
  /** The handle for reads outside a transaction (SQLite: the reader connection; PostgreSQL: the pool). */
  readonly reader: Db;
  /**
   * Called (synchronously) each time a query is routed to `reader`, before it runs: SQLite
   * renews its reader's snapshot there when anything committed since it was taken.
   */
  beforeRead?(): void;
  /** Runs `work` as a top-level write transaction; commits when it resolves, rolls back when it throws. */
  begin<T>(work: (tx: Tx) => Promise<T>, options: WriteOptions): Promise<T>;
  /** Runs `work` as a savepoint of the open transaction `tx` (PostgreSQL: with `options.serializeOn`'s locks, taken where it starts). */
  savepoint<T>(tx: Tx, work: (tx: Tx) => Promise<T>, options?: WriteOptions): Promise<T>;
  /**
   * Where counter statements run (src/db/counter.ts): PostgreSQL, a connection of their own whose
   * statements commit at once without waiting for their WAL flush; absent (SQLite), in the
   * caller's write transaction.
   */
  readonly counters?: Db;
  /** Runs `work`'s reads on one snapshot (PostgreSQL: a REPEATABLE READ READ ONLY transaction); absent: reads run as they are. */
  consistentRead?<T>(work: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

type Open = { store: Store; tx: Tx; committed: Set<() => void> };
const openTransaction = new AsyncLocalStorage<Open>();

/** The async context this module was loaded in: no request, no open transaction. */
const outsideEveryTask = AsyncLocalStorage.snapshot();

/**
 * Runs `fn` — and everything it schedules (timers, immediates, microtasks) — outside the calling
 * task's write transaction. AsyncLocalStorage follows a task into what it schedules, so background
 * work started from a transaction body (a purge timer, a "last used" flush) would otherwise route
 * its queries to a transaction that has ended by the time it runs.
 */
export function outsideTransaction<T>(fn: () => T): T {
  return outsideEveryTask(fn);
}

/**
 * Runs `fn` once the calling task's top-level write transaction has committed (outside it), or now
 * when the task is in none; never when it rolls back. The same function queued twice in one
 * transaction runs once. For what must follow a commit, not precede
 * it: waking the delivery loop (on PostgreSQL a tick that ran before the COMMIT would not see the
 * events), invalidating a cache other requests read.
 */
export function afterCommit(fn: () => void): void {
  const open = openTransaction.getStore();
  if (open) open.committed.add(fn);
  else outsideTransaction(fn);
}

/** The callbacks `afterCommit` queued on a committed top-level transaction (the engines' `begin` calls this). */
function runCommitted(callbacks: Set<() => void>): void {
  if (callbacks.size) outsideTransaction(() => { for (const fn of callbacks) fn(); });
}
const storeOfHandle = new WeakMap<object, Store>();

/**
 * Runs `work` with `tx` as its task's open transaction of `store` (the engines' `begin` call this
 * inside their BEGIN): its result, and `afterCommit`, to call once the engine has committed — it
 * runs what the body queued with `afterCommit` (never called on a rollback).
 */
export async function withinTransaction<T>(store: Store, tx: Tx, work: () => Promise<T>): Promise<{ out: T; afterCommit: () => void }> {
  storeOfHandle.set(tx, store);
  const open: Open = { store, tx, committed: new Set() };
  const out = await openTransaction.run(open, work);
  return { out, afterCommit: () => runCommitted(open.committed) };
}

/** The store behind a handle (the routed `ctx.db`, a transaction's `tx`, or the reader). */
export function storeOf(db: Db): Store {
  const store = storeOfHandle.get(db);
  if (!store) throw new Error("not a storage handle: features get theirs from the app context");
  return store;
}

/** Whether the calling task is inside a write transaction of `db`'s store. */
export function inTransaction(db: Db): boolean {
  const open = openTransaction.getStore();
  return !!open && open.store === storeOfHandle.get(db);
}

/**
 * `ctx.db`: the store's handle that routes every property access (every query started from it)
 * to the task's open transaction, else to the reader.
 */
export function routedHandle(store: Store): Db {
  const handle = new Proxy(store.reader as object, {
    get(reader, key) {
      const open = openTransaction.getStore();
      let target: object;
      if (open && open.store === store) target = open.tx;
      else {
        store.beforeRead?.();
        target = reader;
      }
      const value = Reflect.get(target, key, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  }) as Db;
  storeOfHandle.set(handle, store);
  storeOfHandle.set(store.reader, store);
  return handle;
}

/**
 * Runs `work` as one write transaction and resolves to what it returns; a throw rolls everything
 * back. Inside an open transaction of the same store it is a savepoint (a throw rolls back only
 * `work`). On SQLite it is BEGIN IMMEDIATE on the one writer connection, taken in turn (an async
 * mutex: the body awaits, and nothing else may write meanwhile); on PostgreSQL a READ COMMITTED
 * transaction with the `serializeOn` advisory locks (a savepoint takes its keys where it starts,
 * after what the outer transaction holds: a nested write's keys should be few and taken by no
 * outer transaction in the other order). Features open write transactions only
 * through this.
 */
export async function writeTransaction<T>(db: Db, work: (tx: Tx) => T | Promise<T>, options: WriteOptions = {}): Promise<T> {
  const store = storeOf(db);
  const open = openTransaction.getStore();
  if (open && open.store === store)
    return store.savepoint(open.tx, async (tx) => {
      storeOfHandle.set(tx, store); // a savepoint's handle (PostgreSQL's is its own) names its store too
      return work(tx);
    }, options);
  return store.begin(async (tx) => work(tx), options);
}

/**
 * Runs `work`'s reads — everything it queries through `ctx.db` — against one snapshot, so a list's
 * page and its total agree with each other. On PostgreSQL each statement otherwise sees what was
 * committed when it started (READ COMMITTED): a write committed between the page's query and the
 * count's made them disagree. There it is a REPEATABLE READ READ ONLY transaction on one pooled
 * connection; on SQLite the reads run as they are (the reader's snapshot is renewed only when
 * something committed, src/db/connection.ts). Inside a write transaction `work` simply runs in it.
 */
export async function readSnapshot<T>(db: Db, work: () => Promise<T>): Promise<T> {
  const store = storeOf(db);
  if (!store.consistentRead || inTransaction(db)) return work();
  return store.consistentRead(work);
}

/** The first row of a query (or undefined): `await first(db.select()…where(…))`. */
export async function first<T>(rows: PromiseLike<T[]>): Promise<T | undefined> {
  return (await rows)[0];
}

/** A FIFO lock for the one SQLite writer: `acquire` resolves to its release. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  acquire(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((resolve) => (release = resolve));
    const before = this.tail;
    this.tail = this.tail.then(() => next);
    return before.then(() => release);
  }
}
