/**
 * Pure delivery policy: what an attempt's outcome means and when to try again. No I/O, no clock:
 * the caller passes `now` and a random source, so every rule is unit-tested.
 */

export const JITTER = 0.2;
/** A subscription failing without a single success for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 24 * 3600 * 1000;
/** A hostile or mistaken `Retry-After` cannot park a delivery for longer than this. */
export const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/** `delay` ±20%, uniformly. `random` returns [0, 1). */
export function withJitter(delayMs: number, random: () => number = Math.random): number {
  return Math.round(delayMs * (1 - JITTER + 2 * JITTER * random()));
}

/**
 * Delay before the next attempt after `attemptsMade` failed attempts (1 = the first try failed),
 * or null when the schedule is exhausted and the delivery is dead-lettered.
 */
export function retryDelay(schedule: readonly number[], attemptsMade: number, random: () => number = Math.random): number | null {
  if (attemptsMade < 1 || attemptsMade > schedule.length) return null;
  return withJitter(schedule[attemptsMade - 1]!, random);
}

/** `Retry-After` as delta-seconds or an HTTP date → milliseconds to wait (≥ 0), or null when absent/unreadable. */
export function parseRetryAfter(value: string | null, nowMs: number): number | null {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - nowMs), MAX_RETRY_AFTER_MS);
}

export type AttemptResult =
  | { kind: "response"; status: number; retryAfter: string | null }
  | { kind: "error"; error: string };

export type Verdict =
  /** 2xx: done. */
  | { next: "delivered" }
  /** 410 Gone: the subscriber asked us to stop; the subscription is disabled. */
  | { next: "gone" }
  /** Try again at `at`. */
  | { next: "retry"; at: number }
  /** Schedule exhausted: dead letter. */
  | { next: "failed" };

/**
 * The outcome of one attempt. `attemptsMade` counts this attempt. 3xx is a failure (redirects are
 * not followed: a moved endpoint must be re-registered, and following could reach an address the
 * SSRF guard never checked). 429/503 wait at least `Retry-After` (and at least the scheduled delay).
 */
export function decide(result: AttemptResult, attemptsMade: number, schedule: readonly number[], nowMs: number, random: () => number = Math.random): Verdict {
  if (result.kind === "response" && result.status >= 200 && result.status < 300) return { next: "delivered" };
  if (result.kind === "response" && result.status === 410) return { next: "gone" };
  const delay = retryDelay(schedule, attemptsMade, random);
  if (delay === null) return { next: "failed" };
  let wait = delay;
  if (result.kind === "response" && (result.status === 429 || result.status === 503)) {
    const after = parseRetryAfter(result.retryAfter, nowMs);
    if (after !== null) wait = Math.max(wait, after);
  }
  return { next: "retry", at: nowMs + wait };
}

/** Should a failing subscription be disabled now? */
export function shouldDisable(failingSinceMs: number | null, nowMs: number): boolean {
  return failingSinceMs !== null && nowMs - failingSinceMs >= DISABLE_AFTER_FAILING_MS;
}
