import type { Database, Statement } from "bun:sqlite";
import { closeSync, fdatasync, fdatasyncSync, fsyncSync, openSync } from "node:fs";
import { dirname } from "node:path";

/**
 * Group commit: every write on the server's connection commits with `synchronous=NORMAL` (the
 * WAL frames are written to the OS, not forced to disk), and whoever must not go on before the
 * write is on disk — an HTTP 2xx, a webhook claim carrying a new event, a recorded delivery
 * outcome — awaits `durable()`. One `fdatasync` of the `-wal` file, run on Bun's I/O pool,
 * covers every commit that landed before it started; commits that land while it runs share the
 * next one. So N concurrent writers cost one sync, not N, and the main thread never waits for
 * the disk. docs/storage.md gives the reasoning against SQLite's WAL and checkpoint rules.
 *
 * Progress is counted with SQLite's `total_changes()` (rows inserted, updated or deleted on this
 * connection, a monotonic 64-bit count): every write transaction changes at least one row, and a
 * sync takes its mark only between two transactions of the one writer (never while one is open),
 * so every change it counts is committed (or rolled back, which only costs a sync).
 */

/** Forces the WAL to disk. `WalFile` in production; tests inject one whose syncs they hold or fail. */
export type WalSync = { sync(): Promise<void>; close(): void };

/** A write could not be made durable: the request it covered must not answer 2xx (mapped to 503). */
export class DurabilityError extends Error {
  constructor(cause: unknown) {
    super(`the WAL could not be synced to disk: ${(cause as Error)?.message ?? cause}`);
  }
}

type Waiters = { promise: Promise<void>; resolve(): void; reject(e: Error): void };

function makeWaiters(): Waiters {
  let resolve!: () => void;
  let reject!: (e: Error) => void;
  const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  // Nobody may be listening (a loop that stopped): a failed sync is reported through onFailure.
  promise.catch(() => {});
  return { promise, resolve, reject };
}

const DONE = Promise.resolve();

/** Longest a request write waits for background work that fell behind, and the shortest free run after. */
export const WRITE_HOLD_MAX_MS = 200;
export const WRITE_OPEN_MIN_MS = 100;

export class GroupCommit {
  private readonly totalChanges: Statement<{ n: number }> | null;
  /** Every change counted up to here is on disk. */
  private durableMark: number;
  /** The running sync and the mark it covers. */
  private running: { mark: number; waiters: Waiters } | null = null;
  /** Callers waiting for a sync that starts after the running one. */
  private next: Waiters | null = null;
  private scheduled = false;
  /** A sync is due but a transaction was open: it starts when that one ends (`betweenTransactions`). */
  private awaitingGap = false;
  private failed: DurabilityError | null = null;
  private readonly failureListeners = new Set<(e: DurabilityError) => void>();
  private syncs = 0;
  private closed = false;
  /** Set while request writes wait for background work (see `holdWrites`). */
  private gate: { waiters: Waiters; timer: ReturnType<typeof setTimeout> } | null = null;
  /** Until when a hold is not started again (the minimum free run after a hold ran out). */
  private openUntil = 0;
  private holds = 0;

  /**
   * `wal` null: commits are durable by themselves (the connection syncs every COMMIT with
   * `synchronous=FULL`, the database is in memory, or it is PostgreSQL — `sqlite` null — whose
   * COMMIT returns once its WAL is flushed) and `durable()` resolves at once.
   */
  constructor(
    private readonly sqlite: Database | null,
    private wal: WalSync | null,
  ) {
    this.totalChanges = sqlite?.query("SELECT total_changes() AS n") ?? null;
    this.durableMark = this.mark();
  }

  /** Whether commits wait for this group commit's syncs (false: each COMMIT syncs itself). */
  get grouped(): boolean {
    return this.wal !== null;
  }

  /** WAL syncs started so far (for metrics and tests). */
  get syncCount(): number {
    return this.syncs;
  }

  /** The progress mark now: a later `durable(mark)` waits for everything committed before this call. */
  mark(): number {
    return this.totalChanges?.get()!.n ?? 0;
  }

  /** Whether everything up to `mark` is on disk already. */
  isDurable(mark: number): boolean {
    return this.wal === null || mark <= this.durableMark;
  }

  /**
   * Resolves once everything committed before the call (or up to `mark`) is on disk; rejects with
   * a `DurabilityError` if the sync that would cover it fails — and, the WAL's state on disk
   * being unknown after that, every later call rejects too (see `onFailure`).
   */
  durable(mark: number = this.mark()): Promise<void> {
    if (this.failed) return Promise.reject(this.failed);
    if (this.isDurable(mark)) return DONE;
    if (this.closed) return Promise.reject(new DurabilityError("the database is closed"));
    if (this.running && mark <= this.running.mark) return this.running.waiters.promise;
    this.next ??= makeWaiters();
    const promise = this.next.promise;
    this.schedule();
    return promise;
  }

  /**
   * One writer, two kinds of work: request writes and the delivery loop share the main thread, and
   * under a saturating write load each request's transaction would crowd the loop out until events
   * lag by seconds. So the loop reports when it is behind with work it could send right now
   * (`holdWrites(true)`), and request writes then wait before their handler runs (`admitWrite`)
   * until it reports that it caught up, for at most `WRITE_HOLD_MAX_MS`; after a hold that ran out,
   * writes run freely for at least `WRITE_OPEN_MIN_MS`. Writes are slowed, never refused; the loop
   * gets the thread in between.
   */
  holdWrites(behind: boolean, maxMs = WRITE_HOLD_MAX_MS): void {
    if (!behind) return this.openGate();
    if (this.gate || performance.now() < this.openUntil) return;
    const waiters = makeWaiters();
    const timer = setTimeout(() => {
      this.openUntil = performance.now() + WRITE_OPEN_MIN_MS;
      this.openGate();
    }, maxMs);
    this.gate = { waiters, timer };
    this.holds++;
  }

  /** For a request write before its handler runs: nothing to wait for, or the end of the current hold. */
  admitWrite(): Promise<void> | undefined {
    return this.gate?.waiters.promise;
  }

  /** Holds started so far (for metrics). */
  get holdCount(): number {
    return this.holds;
  }

  /** Whether request writes are being held for background work (for metrics and tests). */
  get holdingWrites(): boolean {
    return this.gate !== null;
  }

  private openGate(): void {
    const gate = this.gate;
    if (!gate) return;
    this.gate = null;
    clearTimeout(gate.timer);
    gate.waiters.resolve();
  }

  /** Called once if a sync fails; `serve` stops the process (a restart recovers from the WAL on disk). */
  onFailure(listener: (e: DurabilityError) => void): () => void {
    this.failureListeners.add(listener);
    return () => this.failureListeners.delete(listener);
  }

  /**
   * Syncs what is queued, waits for the running sync, then releases the WAL file. Runs
   * synchronously up to the first wait, so a caller that closes the database right after
   * (`closeDatabase`) still has the queued sync started first.
   */
  async close(): Promise<void> {
    if (!this.running && this.next) this.start();
    while (this.running) await this.running.waiters.promise.catch(() => {});
    this.closed = true;
    this.openGate();
    this.wal?.close();
  }

  /** The writer's transaction ended (committed or rolled back) and the next has not begun. */
  betweenTransactions(): void {
    if (!this.awaitingGap) return;
    this.awaitingGap = false;
    this.start();
  }

  /**
   * Starts the next sync on the next turn of the event loop, so every request answered in this
   * turn joins it; while one runs, the next starts when it ends.
   */
  private schedule(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.start();
    });
  }

  private start(): void {
    const w = this.next;
    if (this.running || !w || !this.wal) return;
    if (this.closed) return w.reject(new DurabilityError("the database is closed"));
    let mark: number;
    try {
      // Never inside a transaction: its changes are counted but not yet committed. Write
      // transactions await between statements and follow one another back to back, so the sync
      // starts in the gap after the open one (`betweenTransactions`), not at a later turn.
      if (this.sqlite?.inTransaction) {
        this.awaitingGap = true;
        return;
      }
      mark = this.mark();
    } catch (e) {
      this.next = null;
      return w.reject(new DurabilityError(e)); // the connection is closed
    }
    this.next = null;
    this.running = { mark, waiters: w };
    this.syncs++;
    this.wal.sync().then(
      () => {
        this.durableMark = Math.max(this.durableMark, mark);
        this.running = null;
        w.resolve();
        this.start();
      },
      (e) => {
        this.failed ??= new DurabilityError(e);
        this.running = null;
        w.reject(this.failed);
        const queued = this.next;
        this.next = null;
        queued?.reject(this.failed);
        for (const l of this.failureListeners) l(this.failed);
        this.failureListeners.clear();
      },
    );
  }
}

/**
 * The `-wal` file of a database, open for `fdatasync`. SQLite itself syncs the WAL with
 * fdatasync on Linux: it forces the data and any size change, and skips the inode timestamp
 * journal commit a full fsync would add.
 *
 * The descriptor stays open for the server's lifetime. SQLite never locks the `-wal` file (its
 * WAL locks live in `-shm`), so our descriptor cannot drop one of its POSIX locks, and SQLite only
 * deletes the WAL when the last connection closes, which this process's connection prevents.
 * Truncation or reuse after a checkpoint keeps the same file (docs/storage.md).
 */
export class WalFile implements WalSync {
  private constructor(private fd: number | null) {}

  /** The WAL of `dbFile`, or null when there is none (in-memory database, not in WAL mode). */
  static open(dbFile: string): WalFile | null {
    if (!dbFile || dbFile === ":memory:") return null;
    let fd: number;
    try {
      fd = openSync(`${dbFile}-wal`, "r");
    } catch {
      return null;
    }
    // The WAL's directory entry: SQLite syncs the directory when it creates the WAL, but the file
    // may have been created by a run that crashed first; one fsync of the directory settles it.
    try {
      const dir = openSync(dirname(dbFile), "r");
      try {
        fsyncSync(dir);
      } finally {
        closeSync(dir);
      }
    } catch (e) {
      closeSync(fd);
      throw e;
    }
    return new WalFile(fd);
  }

  /** Blocks the thread: only for start-up. */
  syncNow(): void {
    if (this.fd !== null) fdatasyncSync(this.fd);
  }

  sync(): Promise<void> {
    const fd = this.fd;
    if (fd === null) return Promise.reject(new Error("WAL file is closed"));
    return new Promise((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already gone */
    }
    this.fd = null;
  }
}
