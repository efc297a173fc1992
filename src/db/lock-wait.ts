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

/** Whether an error is SQLite's "another connection holds the lock". */
export function isLockBusy(e: unknown): boolean {
  const code = sqliteCode(e);
  return code === "SQLITE_BUSY" || !!code?.startsWith("SQLITE_BUSY_");
}

/** SQLITE_FULL: the database or its disk is full (nothing of the failed write was kept). */
export function isStorageFull(e: unknown): boolean {
  const code = sqliteCode(e);
  return code === "SQLITE_FULL" || !!code?.startsWith("SQLITE_FULL_");
}
