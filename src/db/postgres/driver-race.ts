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
