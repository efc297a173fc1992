/**
 * Which unique index refused a write, on either engine: PostgreSQL's `unique_violation` (23505,
 * the index in `constraint_name`), SQLite's `SQLITE_CONSTRAINT_UNIQUE` (its message names the
 * columns). A rule held by a unique index answers the loser of a race with its own error this way
 * (on PostgreSQL the second insert waits for the first's COMMIT, then fails here).
 */

/** Whether `e` (or what it wraps) is a unique violation of index `index` on `columns` (`"users.user_name_key"`). */
export function violatesUnique(e: unknown, index: string, columns: string): boolean {
  for (let at = e, depth = 0; at && depth < 4; at = (at as { cause?: unknown }).cause, depth++) {
    const { code, constraint_name, message } = at as { code?: unknown; constraint_name?: unknown; message?: unknown };
    if (code === "23505") return constraint_name === index;
    if (code === "SQLITE_CONSTRAINT_UNIQUE") return typeof message === "string" && message.endsWith(`: ${columns}`);
  }
  return false;
}
