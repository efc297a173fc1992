import { outsideTransaction } from "./transaction";
import type { Db } from "./connection";
import { preparedQuery, type PreparedQuery } from "./statement";
import { storeOf, writeTransaction, type Store } from "./store";

/** The credentials whose use is stamped. */
export type TokenTable = "api_tokens" | "scim_tokens" | "admin_tokens";

/** How long "last used" stamps are gathered before one write records them. */
const FLUSH_AFTER_MS = 50;

const stampOf: Record<TokenTable, PreparedQuery<unknown, [string | number, number]>> = {
  api_tokens: preparedQuery("UPDATE api_tokens SET last_used_at = ?1 WHERE id = ?2"),
  scim_tokens: preparedQuery("UPDATE scim_tokens SET last_used_at = ?1 WHERE id = ?2"),
  admin_tokens: preparedQuery("UPDATE admin_tokens SET last_used_at = ?1 WHERE id = ?2"),
};

/**
 * "Last used" of a credential is informational, so recording it never runs on the request path:
 * a use is noted in memory and written shortly after, in one transaction for all tokens, without
 * waiting for the write lock. A locked or full database loses the stamp (the next use notes it
 * again) and never fails or slows the request that used the token.
 */
export function lastUsedRecorder(db: Db, table: TokenTable) {
  const update = stampOf[table];
  const pending = new Map<number, string | number>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = async () => {
    timer = null;
    const stamps = [...pending];
    pending.clear();
    try {
      await writeTransaction(db, async (tx) => {
        for (const [id, at] of stamps) await update.run(tx, at, id);
      }, { waitForLock: false, durability: "deferred" });
    } catch {
      /* best effort: busy, full or closed */
    }
  };
  /** Notes a use of `tokenId` at `at` (the table's own timestamp format). */
  return (tokenId: number, at: string | number) => {
    pending.set(tokenId, at);
    if (!timer) {
      // Never inside the caller's transaction, if it is in one: the flush is a write of its own.
      timer = outsideTransaction(() => setTimeout(() => void flush(), FLUSH_AFTER_MS)); // flush settles on its own
      timer.unref?.();
    }
  };
}

const recordersOf = new WeakMap<Store, Map<TokenTable, ReturnType<typeof lastUsedRecorder>>>();

/** Notes a use of `tokenId` of `table` at `at` with the database's one recorder for that table. */
export function noteTokenUse(db: Db, table: TokenTable, tokenId: number, at: string | number): void {
  const store = storeOf(db);
  let recorders = recordersOf.get(store);
  if (!recorders) recordersOf.set(store, (recorders = new Map()));
  let record = recorders.get(table);
  if (!record) recorders.set(table, (record = lastUsedRecorder(db, table)));
  record(tokenId, at);
}
