/**
 * Per-token token bucket: `rate` requests per second refill, `burst` capacity. In memory — one
 * Gatehouse process serves one organization, so there is nothing to share. Pure apart from the
 * clock, which is passed in (tests drive it).
 */
export function createRateLimiter(rate: number, burst: number) {
  const buckets = new Map<number, { tokens: number; at: number }>();
  /** Takes one request from `key`'s bucket; returns 0 when allowed, else seconds to wait. */
  return function take(key: number, nowMs: number = Date.now()): number {
    let b = buckets.get(key);
    if (!b) {
      b = { tokens: burst, at: nowMs };
      buckets.set(key, b);
    }
    const refill = ((nowMs - b.at) / 1000) * rate;
    b.tokens = Math.min(burst, b.tokens + refill);
    b.at = nowMs;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / rate));
  };
}
