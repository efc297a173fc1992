import type { Database } from "bun:sqlite";
import { withoutLockWait } from "./lock-wait";

/** How long "last used" stamps are gathered before one write records them. */
const FLUSH_AFTER_MS = 50;

/**
 * "Last used" of a credential is informational, so recording it never runs on the request path:
 * a use is noted in memory and written shortly after, in one transaction for all tokens, without
 * waiting for the write lock. A locked or full database loses the stamp (the next use notes it
 * again) and never fails or slows the request that used the token.
 */
export function lastUsedRecorder(sqlite: Database, table: "api_tokens" | "scim_tokens" | "admin_tokens") {
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
