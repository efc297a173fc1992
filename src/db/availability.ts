/**
 * Whether a failed storage call means "no writable database right now" — the server is down or
 * restarting, the connection broke, a failover left no primary (or only a read-only one), or a
 * statement ran past its deadline — rather than a bug. The one error mapping answers such
 * failures 503 with `Retry-After` (never 500), so clients and load balancers retry; the node
 * itself reconnects on its next query (postgres.js opens connections on demand).
 */
import type { Logger } from "../log";

/** postgres.js's own connection codes and the socket errors it passes through. */
const CONNECTION_CODES = new Set([
  "CONNECTION_CLOSED",
  "CONNECTION_DESTROYED",
  "CONNECTION_ENDED",
  "CONNECT_TIMEOUT",
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "ENOTFOUND",
  "EAI_AGAIN",
]);

/**
 * SQLSTATEs of the same kind: 25006 a write on a read-only server (a standby, or a demoted
 * primary), 53300 no free connection slot, 57P01–57P03 the server shutting down, crashed or
 * still starting, 57014 a statement cancelled by `statement_timeout`, 55P03 a lock wait past
 * `lock_timeout`, 08xxx connection exceptions.
 */
const UNAVAILABLE_SQLSTATES = new Set(["25006", "53300", "57P01", "57P02", "57P03", "57014", "55P03"]);

/** A deadline of Gatehouse's own (a readiness probe) that the database did not meet. */
export class DatabaseDeadlineError extends Error {
  readonly code = "GATEHOUSE_DEADLINE";
}

export function isDatabaseUnavailable(e: unknown): boolean {
  return unavailableCause(e) !== null;
}

/**
 * What made the database unavailable, for the log: the driver's own error (code and message),
 * never the wrapper drizzle adds, whose message lists the query's parameters.
 */
export function unavailableReason(e: unknown): string {
  const cause = unavailableCause(e);
  return cause ? `${cause.code}: ${cause.message}` : "";
}

function unavailableCause(e: unknown): { code: string; message: string } | null {
  for (let at = e, depth = 0; at && depth < 5; at = (at as { cause?: unknown }).cause, depth++) {
    const code = (at as { code?: unknown }).code;
    if (typeof code !== "string") continue;
    if (at instanceof DatabaseDeadlineError || CONNECTION_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))
      return { code, message: String((at as Error).message ?? "") };
  }
  return null;
}

/** `work`, or a DatabaseDeadlineError once `ms` have passed (the work itself is not cancelled). */
export async function withinDeadline<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new DatabaseDeadlineError(`${what}: no answer within ${ms} ms`)), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * How periodic work (the delivery loop, the leader election, the retention purges) logs its
 * failures: an unavailable database — a failover, a restart, a cut connection — is one warn when
 * the outage starts and one info when the work succeeds again, not an error every tick for as long
 * as it lasts; any other failure is a bug and stays an error each time.
 */
export function outageLog(log: Logger, what: string): { failed(e: unknown): void; succeeded(): void } {
  let since: number | null = null;
  return {
    failed(e) {
      if (!isDatabaseUnavailable(e)) {
        log.error(`${what} failed`, { error: String((e as Error)?.message ?? e) });
        return;
      }
      if (since !== null) return;
      since = Date.now();
      log.warn(`${what}: database unavailable; retrying until it answers`, { reason: unavailableReason(e) });
    },
    succeeded() {
      if (since === null) return;
      log.info(`${what}: database available again`, { unavailableMs: Date.now() - since });
      since = null;
    },
  };
}
