/**
 * A race in postgres.js 3.4.9 under Bun: a query's bytes are flushed on `setImmediate`; when the
 * server goes away in the same turn, the connection's `closed()` cancels that immediate and drops
 * its socket, but Bun may still run the cancelled immediate, which then writes to `null` and throws
 * a TypeError from no caller of ours — an uncaught exception that would stop the node exactly when
 * the database restarts or fails over. Nothing is lost by ignoring it: `closed()` has already
 * failed every query sent on that connection (CONNECTION_CLOSED → 503), and the pool reconnects.
 * `serve`'s crash handler (src/cli/serve.ts) logs it and carries on.
 */
export function isClosedSocketWrite(e: unknown): boolean {
  const stack = (e as Error | undefined)?.stack ?? "";
  return e instanceof TypeError && /\bnextWrite\b/.test(stack) && /postgres[\\/]src[\\/]connection\.js/.test(stack) && /socket\.write/.test((e as Error).message);
}

/**
 * Another of postgres.js 3.4.9's: each new connection first asks the catalog for the array types
 * (`fetch_types`), and that query's promise has no handler — a connection cut while it runs (a
 * failover, `pg_terminate_backend`) rejects it unhandled. The connection is gone and the pool
 * reconnects for the queries waiting on it, so it is as harmless as the race above. (Turning
 * `fetch_types` off is no way out: then a transaction opened on a new connection never starts.)
 */
export function isArrayTypesFetchFailure(e: unknown): boolean {
  const query = (e as { query?: unknown } | undefined)?.query;
  return typeof query === "string" && /from pg_catalog\.pg_type a\s+left join pg_catalog\.pg_type b on b\.oid = a\.typelem/.test(query);
}

/** A driver failure from no caller of ours that `serve` logs and survives (see above). */
export function isHarmlessDriverFailure(e: unknown): boolean {
  return isClosedSocketWrite(e) || isArrayTypesFetchFailure(e);
}
