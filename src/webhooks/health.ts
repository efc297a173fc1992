import type { Db } from "../db/connection";
import { preparedQuery } from "../db/statement";
import { readSnapshot } from "../db/transaction";
import type { AppContext } from "../context";
import { notFound } from "../http/errors";
import type { SubscriptionHealth } from "./model";
import { deliveryId } from "./tables";

const DAY_MS = 86_400_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

const attemptBounds = preparedQuery<{ lo: number | null; hi: number | null }, []>("SELECT min(id) AS lo, max(id) AS hi FROM webhook_attempts");
const attemptAtOrAfter = preparedQuery<{ id: number; started_at: number }, [number]>("SELECT id, started_at FROM webhook_attempts WHERE id >= ?1 ORDER BY id LIMIT 1");

/**
 * The first attempt id at or after `time`. The attempt log is append-only in time order with no
 * index on `started_at` (tables.ts), so this is a binary search over ids: a few point reads
 * instead of a scan. A clock step back can misplace the boundary by the attempts around it.
 */
export async function firstAttemptIdSince(db: Db, time: number): Promise<number> {
  const bounds = (await attemptBounds.get(db))!;
  if (bounds.lo === null || bounds.hi === null) return 1;
  let answer = bounds.hi + 1; // past the end: no attempt that recent
  let lo = bounds.lo;
  let hi = bounds.hi;
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const row = await attemptAtOrAfter.get(db, mid);
    if (!row || row.id > hi) hi = mid - 1; // no attempt in [mid, hi]
    else if (row.started_at < time) lo = row.id + 1;
    else {
      answer = row.id; // and none in [mid, row.id)
      hi = mid - 1;
    }
  }
  return answer;
}

const subscriptionState = preparedQuery<{ enabled: number; disabled_reason: string | null; failing_since: number | null; last_success_at: number | null }, [number]>(
  "SELECT enabled, disabled_reason, failing_since, last_success_at FROM webhook_subscriptions WHERE id = ?1",
);
const subscriptionQueue = preparedQuery<{ pending: number; retrying: number; next: number | null }, [number]>(
  `SELECT count(*) AS pending, count(*) FILTER (WHERE attempts > 0) AS retrying, min(CASE WHEN attempts > 0 THEN next_attempt_at END) AS next
     FROM webhook_deliveries WHERE subscription_id = ?1 AND status = 'pending'`,
);
const attemptsSince = preparedQuery<{ attempts: number; ok: number }, [number, number, number]>(
  `SELECT count(*) AS attempts, count(*) FILTER (WHERE status_code BETWEEN 200 AND 299) AS ok
     FROM webhook_attempts WHERE id >= ?1 AND delivery_id >= ?2 AND delivery_id < ?3`,
);
const lastFailedAttempt = preparedQuery<{ delivery_id: number; started_at: number; status_code: number | null; error: string | null }, [number, number, number]>(
  `SELECT delivery_id, started_at, status_code, error FROM webhook_attempts
    WHERE id >= ?1 AND delivery_id >= ?2 AND delivery_id < ?3 AND (status_code IS NULL OR status_code NOT BETWEEN 200 AND 299)
    ORDER BY id DESC LIMIT 1`,
);

/**
 * What the console's subscription page shows: failing since when and with what, how many
 * deliveries wait for a retry, and the share of successful attempts over the last day. Attempts
 * are found by their delivery id range (tables.ts `deliveryId`: the subscription's id is in the
 * high bits); attempts of deliveries made before migration 0004 are not counted.
 */
export function subscriptionHealth(ctx: Pick<AppContext, "db" | "config">, id: number, now = Date.now()): Promise<SubscriptionHealth> {
  // Every figure from one snapshot: a tick commits a delivery's state and its attempt together,
  // and separate reads on PostgreSQL could count the attempt but not yet the delivered state.
  return readSnapshot(ctx.db, () => healthOf(ctx, id, now));
}

async function healthOf(ctx: Pick<AppContext, "db" | "config">, id: number, now: number): Promise<SubscriptionHealth> {
  const db = ctx.db;
  const sub = await subscriptionState.get(db, id);
  if (!sub) throw notFound(`Webhook subscription ${id}`);
  const lo = deliveryId(id, 0);
  const hi = deliveryId(id + 1, 0);
  const queue = (await subscriptionQueue.get(db, id))!;
  const day = (await attemptsSince.get(db, await firstAttemptIdSince(db, now - DAY_MS), lo, hi))!;
  let lastError: SubscriptionHealth["lastError"] = null;
  if (sub.failing_since !== null) {
    // failing_since is when the first failure was recorded; its attempt started up to a timeout before.
    const row = await lastFailedAttempt.get(db, await firstAttemptIdSince(db, sub.failing_since - ctx.config.webhookTimeoutMs - 60_000), lo, hi);
    if (row)
      lastError = { at: iso(row.started_at)!, deliveryId: row.delivery_id, statusCode: row.status_code, error: row.error ?? (row.status_code !== null ? `HTTP ${row.status_code}` : "failed") };
  }
  return {
    enabled: sub.enabled === 1,
    disabledReason: sub.disabled_reason,
    failingSince: iso(sub.failing_since),
    lastSuccessAt: iso(sub.last_success_at),
    lastError,
    pending: queue.pending,
    waitingRetries: queue.retrying,
    nextRetryAt: iso(queue.next),
    lastDay: { attempts: day.attempts, succeeded: day.ok, successRate: day.attempts === 0 ? null : day.ok / day.attempts },
  };
}
