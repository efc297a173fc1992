/**
 * PostgreSQL behind the seam: drizzle's postgres-js database over the pool. Reads outside a
 * transaction take any pooled connection; a write transaction holds one connection from BEGIN to
 * COMMIT, READ COMMITTED, with the advisory locks its `serializeOn` names taken first (in a fixed
 * order, so two transactions naming the same keys never deadlock on them; a savepoint's where it
 * starts). A 2xx follows COMMIT,
 * and COMMIT returns once the WAL is flushed (`synchronous_commit` on, the server's own group
 * commit), so there is no group commit of ours on this engine.
 *
 * Row locks taken in different orders by two transactions (a user's deletion walks its groups, a
 * group's update walks its members) can deadlock; PostgreSQL then aborts one of them (40P01). The
 * victim kept nothing, so the store runs it again, a few times with a growing, jittered pause,
 * before the error reaches the caller (503 "busy", lock-wait.ts). A transaction's body must
 * therefore touch nothing but the database before it commits: side effects go in `afterCommit`.
 */
import { sql as fragment } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import type postgres from "postgres";
import { useEngine } from "../engine";
import { listParam } from "../dialect";
import { isWriteConflict } from "../lock-wait";
import { execute } from "../statement";
import { withinTransaction, type Db, type Store, type Tx, type WriteOptions } from "../store";
import { openCounterConnection, type CounterConnection } from "./counter-connection";

/** Tries of one write transaction that keeps losing conflicts (pauses of up to 20, 40, 80, 160 ms between them). */
const WRITE_CONFLICT_ATTEMPTS = 5;

/**
 * Takes the advisory locks of `keys` in one statement, in the order of their hashes (every
 * transaction takes them in that order, so two naming the same keys never deadlock on them). The
 * subquery's ORDER BY keeps it from being flattened, so the locks follow its order.
 */
async function lockKeys(tx: Tx, keys: readonly string[] | undefined): Promise<void> {
  if (!keys?.length) return;
  const unique = [...new Set(keys)];
  if (unique.length === 1) {
    await execute(tx, fragment`SELECT pg_advisory_xact_lock(hashtextextended(${unique[0]}, 0))`);
    return;
  }
  await execute(tx, fragment`SELECT count(pg_advisory_xact_lock(h)) FROM (
    SELECT DISTINCT hashtextextended(k, 0) AS h FROM unnest(CAST(${listParam(unique)} AS text[])) AS k ORDER BY h) AS keys`);
}

export class PostgresStore implements Store {
  readonly engine = "postgres" as const;
  readonly reader: Db;

  constructor(readonly sql: postgres.Sql) {
    useEngine("postgres");
    this.reader = drizzle(sql) as unknown as Db;
  }

  /** Write transactions waiting for a pooled connection, and those holding one (for /metrics). */
  readonly transactions = { waiting: 0, open: 0 };

  /** Write transactions run again after losing a deadlock or serialization conflict (for /metrics and tests). */
  conflictRetries = 0;

  private counterConnection: CounterConnection | null = null;

  /** Counter statements' own connection (counter-connection.ts), opened on first use. */
  get counters(): Db {
    return (this.counterConnection ??= openCounterConnection(this.sql)).db;
  }

  async begin<T>(work: (tx: Tx) => Promise<T>, options: WriteOptions): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.attempt(work, options);
      } catch (e) {
        if (!isWriteConflict(e) || attempt >= WRITE_CONFLICT_ATTEMPTS) throw e;
        this.conflictRetries++;
        await Bun.sleep(Math.random() * 10 * 2 ** attempt);
      }
    }
  }

  private async attempt<T>(work: (tx: Tx) => Promise<T>, options: WriteOptions): Promise<T> {
    const pg = this.reader as unknown as { transaction<R>(fn: (tx: unknown) => Promise<R>, config?: { isolationLevel?: string }): Promise<R> };
    const counts = this.transactions;
    counts.waiting++;
    let holding = false;
    try {
      // drizzle commits when its callback resolves; what `afterCommit` queued runs after that.
      const { out, afterCommit } = await pg.transaction(async (raw) => {
        if (!holding) {
          holding = true;
          counts.waiting--;
          counts.open++;
        }
        return this.body(raw as Tx, work, options);
      });
      afterCommit();
      return out;
    } finally {
      if (holding) counts.open--;
      else counts.waiting--;
    }
  }

  /** A transaction's body: its durability and the `serializeOn` advisory locks first, then `work`. */
  private async body<T>(tx: Tx, work: (tx: Tx) => Promise<T>, options: WriteOptions) {
    if (options.durability === "deferred") await execute(tx, fragment`SET LOCAL synchronous_commit = off`);
    await lockKeys(tx, options.serializeOn);
    return withinTransaction(this, tx, () => work(tx));
  }

  /** A REPEATABLE READ READ ONLY transaction: every read of `work` sees the snapshot of its first. */
  async consistentRead<T>(work: () => Promise<T>): Promise<T> {
    const pg = this.reader as unknown as { transaction<R>(fn: (tx: unknown) => Promise<R>, config?: { isolationLevel?: string; accessMode?: string }): Promise<R> };
    const { out } = await pg.transaction((raw) => withinTransaction(this, raw as Tx, work), { isolationLevel: "repeatable read", accessMode: "read only" });
    return out;
  }

  savepoint<T>(tx: Tx, work: (tx: Tx) => Promise<T>, options: WriteOptions = {}): Promise<T> {
    const pg = tx as unknown as { transaction<R>(fn: (sp: unknown) => Promise<R>): Promise<R> };
    // The savepoint runs on the transaction's own connection: queries routed to `tx` stay in it.
    // Its keys are taken where it starts (held to the outer COMMIT): a nested write's rules hold too.
    return pg.transaction(async (sp) => {
      await lockKeys(sp as Tx, options.serializeOn);
      return work(sp as Tx);
    });
  }

  async close(): Promise<void> {
    await this.counterConnection?.sql.end({ timeout: 5 });
    await this.sql.end({ timeout: 5 });
  }
}
