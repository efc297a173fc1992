import type { AppContext } from "../context";
import { outageLog } from "../db/availability";
import { deliveryRetention } from "../db/delivery-queue";
import { runsBackgroundWork } from "../db/leader";
import { isLockBusy } from "../db/lock-wait";
import { deliveryId } from "./tables";

/**
 * Retention: delivered deliveries, attempts (by age: the log has no foreign key) and orphaned
 * events older than GATEHOUSE_WEBHOOK_RETENTION_DAYS go, in small batches, on a timer of their
 * own beside the delivery loop. Failed deliveries stay (they are the dead letters).
 */

const PURGE_EVERY_MS = 10 * 60 * 1000;
/** Rows per transaction, so no transaction is long. */
const PURGE_BATCH = 1000;
/** Delivery ids walked per purge transaction (see `purgeExpired`). */
const PURGE_SPAN = 2000;

/** Runs `purgeExpired` every `PURGE_EVERY_MS`, one run at a time; `stop` cancels a run between batches. */
export function startRetentionPurge(ctx: Pick<AppContext, "db" | "config" | "log">): { stop(): void } {
  let stopped = false;
  let purging = false;
  const failures = outageLog(ctx.log, "webhook retention purge");
  const run = async () => {
    // One node of a cluster purges (src/db/leader.ts); the others skip their turn.
    if (purging || stopped || !runsBackgroundWork(ctx.db)) return;
    purging = true;
    try {
      await purgeExpired(ctx, Date.now(), () => stopped);
      failures.succeeded();
    } catch (e) {
      if (isLockBusy(e)) ctx.log.debug("webhook retention purge deferred: the database is locked by another connection");
      else failures.failed(e);
    } finally {
      purging = false;
    }
  };
  const timer = setInterval(() => void run(), PURGE_EVERY_MS);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
  };
}

/**
 * Deletes delivered deliveries, attempts and orphaned events older than the retention, in short
 * transactions with the event loop let through between them. Returns rows deleted.
 *
 * Deliveries have no index on `finished_at` (finishing one would have to move an entry in it on
 * the delivery path). Within one subscription's id range (tables.ts `deliveryId`; the ids from
 * before migration 0004 form one more range) ids grow with creation time, and a delivery finishes
 * after it is created; so every delivery that can go lies below the range's first one created
 * after the cutoff. The purge walks each range upwards in spans of `PURGE_SPAN` ids and stops
 * there. Each run therefore also reads the failed deliveries kept from before the cutoff (a rowid
 * range scan, cheap), and a clock stepped back can leave a delivery for the next run.
 */
export async function purgeExpired(ctx: Pick<AppContext, "db" | "config">, now: number, cancelled: () => boolean = () => false): Promise<number> {
  const cutoff = now - ctx.config.webhookRetentionDays * 86_400_000;
  const queue = deliveryRetention(ctx.db, PURGE_BATCH);
  const letThrough = () => new Promise((r) => setImmediate(r)); // deliveries and requests go between batches
  let total = 0;
  for (const range of [0, ...(await queue.subscriptionIds())]) {
    const rangeEnd = deliveryId(range + 1, 0);
    for (let after = deliveryId(range, 0); ; ) {
      if (cancelled()) return total;
      const first = await queue.nextDelivery(after, rangeEnd);
      if (!first || first.createdAt >= cutoff) break;
      const end = Math.min(first.id + PURGE_SPAN, rangeEnd);
      total += await queue.deleteDeliveredSpan(first.id, end, cutoff);
      after = end - 1;
      await letThrough();
    }
  }
  for (const batch of [queue.deleteAttemptsBefore, queue.deleteOrphanEventsBefore]) {
    for (;;) {
      if (cancelled()) return total;
      const n = await batch(cutoff);
      total += n;
      if (n < PURGE_BATCH) break;
      await letThrough();
    }
  }
  return total;
}
