/**
 * Counters that hand out numbers (per-project numbers, src/tms/shared/numbers.ts): one statement
 * that increments a counter row and returns its new value, run where the engine lets it hold the
 * row for the least time.
 *
 * - SQLite: inside the caller's write transaction, as any statement of it (the one writer holds
 *   the counter with everything else until COMMIT; nothing would gain from taking it apart).
 * - PostgreSQL: on the store's counter connection (`Store.counters`), outside the caller's
 *   transaction, committed on its own at once with `synchronous_commit = off`. The counter row is
 *   locked for that one statement instead of until the caller's COMMIT and its WAL flush, so
 *   creates in one project no longer run one at a time. What that changes and why it stays safe
 *   (docs/storage.md, "Per-project numbers"):
 *   - a number is never handed out twice: each statement increments the committed value under
 *     the row lock, and the counter never goes down;
 *   - a caller that fails after taking its number leaves it unused (a gap), as a deleted entity
 *     does; numbers follow the order the counter gave them, commits only roughly;
 *   - durability: the counter's commit record is in the WAL before the caller's COMMIT record (it
 *     returned first), and the caller's COMMIT waits for the flush of the WAL up to its own record
 *     (and a synchronous standby's confirmation of it), so a crash or failover that loses the
 *     counter's increment loses every commit that used its numbers too.
 * Callers validate their input before they take a number, so bad input never spends one.
 */
import { preparedQuery, type Param } from "./statement";
import { storeOf, type Db } from "./store";

/**
 * A counter statement: `text` must increment one counter row and return its new value as `last`
 * (an upsert `… RETURNING last`). Its function takes numbers for the write transaction `tx` is in.
 */
export function counterStatement<P extends Param[]>(text: string): (tx: Db, ...params: P) => Promise<number> {
  const statement = preparedQuery<{ last: number }, P>(text);
  return async (tx, ...params) => {
    const row = await statement.get(storeOf(tx).counters ?? tx, ...params);
    if (!row) throw new Error("counter statement returned no row");
    return row.last;
  };
}
