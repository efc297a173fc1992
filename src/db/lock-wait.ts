/**
 * Background writes (the delivery loop's ticks, its retention purge, "last used" stamps, the audit
 * purge) must never make the only thread wait for the write lock: while another connection holds
 * it (a CLI `scim-token create` or `backup`, an operator's `sqlite3`), `busy_timeout` would freeze
 * every request for up to its 5 s. They open their transactions with `{ waitForLock: false }`
 * instead — they fail at once with SQLITE_BUSY (`isLockBusy`) and their caller tries again later.
 * Request writes keep waiting: a request that must write has nothing better to do.
 */


/** The SQLite result code of an error (`SQLITE_BUSY`, `SQLITE_FULL`…), also when drizzle wrapped it. */
export function sqliteCode(e: unknown): string | null {
  for (let at = e, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("SQLITE_")) return code;
  }
  return null;
}

/** The SQLSTATE of a PostgreSQL error (`40P01`, `53100`…), also when drizzle wrapped it. */
export function sqlState(e: unknown): string | null {
  for (let at = e, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return null;
}

/**
 * PostgreSQL's "this transaction lost a conflict with another": 40P01 deadlock_detected, 40001
 * serialization_failure. Nothing of it was kept; the store runs it again (postgres/store.ts).
 */
export function isWriteConflict(e: unknown): boolean {
  const code = sqlState(e);
  return code === "40P01" || code === "40001";
}

/**
 * Whether an error is "another connection holds the lock": SQLite's BUSY, or on PostgreSQL a write
 * conflict that still failed after the store's retries.
 */
export function isLockBusy(e: unknown): boolean {
  const code = sqliteCode(e);
  return code === "SQLITE_BUSY" || !!code?.startsWith("SQLITE_BUSY_") || isWriteConflict(e);
}

/**
 * The database or its disk is full (nothing of the failed write was kept): SQLITE_FULL, or
 * PostgreSQL's 53100 disk_full.
 */
export function isStorageFull(e: unknown): boolean {
  const code = sqliteCode(e);
  return code === "SQLITE_FULL" || !!code?.startsWith("SQLITE_FULL_") || sqlState(e) === "53100";
}
