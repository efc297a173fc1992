import { clientOf, perConnection, type Connection, type Db } from "./connection";
import { withoutLockWait } from "./lock-wait";

/** The credentials whose use is stamped. */
export type TokenTable = "api_tokens" | "scim_tokens" | "admin_tokens";

/** How long "last used" stamps are gathered before one write records them. */
const FLUSH_AFTER_MS = 50;

/**
 * "Last used" of a credential is informational, so recording it never runs on the request path:
 * a use is noted in memory and written shortly after, in one transaction for all tokens, without
 * waiting for the write lock. A locked or full database loses the stamp (the next use notes it
 * again) and never fails or slows the request that used the token.
 */
export function lastUsedRecorder(sqlite: Connection, table: TokenTable) {
  const update = sqlite.query<unknown, [string | number, number]>(`UPDATE ${table} SET last_used_at = ?1 WHERE id = ?2`);
  const pending = new Map<number, string | number>();
  let timer: ReturnType<typeof setTimeout> | null = null;
  const flush = () => {
    timer = null;
    const stamps = [...pending];
    pending.clear();
    try {
      withoutLockWait(sqlite, () => sqlite.transaction(() => stamps.forEach(([id, at]) => update.run(at, id))).immediate());
    } catch {
      /* best effort: busy, full or closed */
    }
  };
  /** Notes a use of `tokenId` at `at` (the table's own timestamp format). */
  return (tokenId: number, at: string | number) => {
    pending.set(tokenId, at);
    if (!timer) {
      timer = setTimeout(flush, FLUSH_AFTER_MS);
      timer.unref?.();
    }
  };
}

const recordersOn = perConnection(() => new Map<TokenTable, ReturnType<typeof lastUsedRecorder>>());

/** Notes a use of `tokenId` of `table` at `at` with the connection's one recorder for that table. */
export function noteTokenUse(db: Db, table: TokenTable, tokenId: number, at: string | number): void {
  const recorders = recordersOn(db);
  let record = recorders.get(table);
  if (!record) recorders.set(table, (record = lastUsedRecorder(clientOf(db), table)));
  record(tokenId, at);
}
