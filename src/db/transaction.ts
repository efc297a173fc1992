import { writeTransaction, type Db, type WriteOptions } from "./store";

export { afterCommit, first, outsideTransaction, readSnapshot, writeTransaction, type WriteOptions } from "./store";

/**
 * `work` bound once as a write transaction, for background writers that run statements prepared
 * on the writer (`writerOf`) outside drizzle (activity rows, purges, delivery ticks, "last used"
 * stamps). Like every write it takes the writer in turn; `work` itself runs to completion without
 * awaiting.
 */
export function immediateTransaction<A extends unknown[], T>(db: Db, work: (...args: A) => T, options: WriteOptions = {}): (...args: A) => Promise<T> {
  return (...args) => writeTransaction(db, () => work(...args), options);
}
