import { expect, test } from "bun:test";
import { DISABLE_AFTER_FAILING_MS, decide, parseRetryAfter, retryDelay, shouldDisable, withJitter } from "../../src/webhooks/retry";
import { parseConfig } from "../../src/config";

const DEFAULT = (() => {
  const r = parseConfig({});
  if (!r.ok) throw new Error("defaults");
  return r.config.webhookRetrySchedule;
})();
const NOW = 1_800_000_000_000;

test("the default schedule is 5s, 5m, 30m, 2h, 5h, 10h, 10h", () => {
  expect(DEFAULT).toEqual([5e3, 300e3, 1800e3, 7200e3, 18000e3, 36000e3, 36000e3]);
});

test("jitter stays within ±20% at the extremes and in between", () => {
  expect(withJitter(10_000, () => 0)).toBe(8_000);
  expect(withJitter(10_000, () => 0.999999)).toBe(12_000);
  expect(withJitter(10_000, () => 0.5)).toBe(10_000);
  for (let i = 0; i < 1000; i++) {
    const d = withJitter(300_000);
    expect(d).toBeGreaterThanOrEqual(240_000);
    expect(d).toBeLessThanOrEqual(360_000);
  }
});

test("retry n uses the n-th delay; after the last there is none", () => {
  const mid = () => 0.5;
  expect(DEFAULT.map((_, i) => retryDelay(DEFAULT, i + 1, mid))).toEqual(DEFAULT);
  expect(retryDelay(DEFAULT, DEFAULT.length + 1, mid)).toBeNull();
  expect(retryDelay(DEFAULT, 0, mid)).toBeNull();
});

test("2xx delivers, 410 is gone, others retry on the schedule, then fail", () => {
  const mid = () => 0.5;
  const schedule = [1000, 2000];
  for (const status of [200, 201, 204, 299]) expect(decide({ kind: "response", status, retryAfter: null }, 1, schedule, NOW, mid)).toEqual({ next: "delivered" });
  expect(decide({ kind: "response", status: 410, retryAfter: null }, 1, schedule, NOW, mid)).toEqual({ next: "gone" });
  for (const status of [301, 302, 307, 308, 400, 404, 500, 502])
    expect(decide({ kind: "response", status, retryAfter: null }, 1, schedule, NOW, mid)).toEqual({ next: "retry", at: NOW + 1000 });
  expect(decide({ kind: "error", error: "timeout" }, 2, schedule, NOW, mid)).toEqual({ next: "retry", at: NOW + 2000 });
  expect(decide({ kind: "error", error: "refused" }, 3, schedule, NOW, mid)).toEqual({ next: "failed" });
});

test("429 and 503 wait at least Retry-After (seconds or HTTP date), never less than the schedule", () => {
  const mid = () => 0.5;
  expect(decide({ kind: "response", status: 429, retryAfter: "120" }, 1, [1000], NOW, mid)).toEqual({ next: "retry", at: NOW + 120_000 });
  const date = new Date(NOW + 90_000).toUTCString();
  expect(decide({ kind: "response", status: 503, retryAfter: date }, 1, [1000], NOW, mid)).toEqual({ next: "retry", at: NOW + 90_000 });
  expect(decide({ kind: "response", status: 429, retryAfter: "0" }, 1, [5000], NOW, mid)).toEqual({ next: "retry", at: NOW + 5000 });
  // Retry-After on other statuses is ignored.
  expect(decide({ kind: "response", status: 500, retryAfter: "120" }, 1, [1000], NOW, mid)).toEqual({ next: "retry", at: NOW + 1000 });
});

test("Retry-After parsing", () => {
  expect(parseRetryAfter(null, NOW)).toBeNull();
  expect(parseRetryAfter("soon", NOW)).toBeNull();
  expect(parseRetryAfter(" 30 ", NOW)).toBe(30_000);
  expect(parseRetryAfter(new Date(NOW - 5000).toUTCString(), NOW)).toBe(0);
  expect(parseRetryAfter("99999999", NOW)).toBe(24 * 3600 * 1000); // capped
});

test("a subscription is disabled after 5 days failing without a success", () => {
  expect(shouldDisable(null, NOW)).toBe(false);
  expect(shouldDisable(NOW - DISABLE_AFTER_FAILING_MS + 1, NOW)).toBe(false);
  expect(shouldDisable(NOW - DISABLE_AFTER_FAILING_MS, NOW)).toBe(true);
});
