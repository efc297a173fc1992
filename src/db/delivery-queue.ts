/**
 * The webhook delivery queue's SQL: what the delivery loop's ledger (src/webhooks/ledger.ts) runs in
 * its ticks — claim (due rows, then a lease), record an attempt, finish or release a delivery,
 * stamp or disable a subscription — and what retention (src/webhooks/retention.ts) deletes. The
 * state machine, the fair share and the retry decisions stay with the webhooks; this module only
 * says how each step reads and writes rows, so a second engine claims with its own SQL (row
 * locks that skip what another node holds) behind the same functions.
 *
 * Statements are prepared once, when the ledger (or a retention run) starts on a connection.
 */
import { writerOf, type Db } from "./connection";
import { inListText, listParam } from "./dialect";
import { immediateTransaction } from "./transaction";

/** An enabled subscription's row, as a tick reads them (in id order). */
export type QueuedSubscriptionRow = { id: number; url: string; secret: string; previous_secret: string | null; previous_secret_expires_at: number | null };

/** A due delivery with its event. */
export type DueDeliveryRow = {
  id: number; attempts: number; last_attempt_id: number | null; uid: string; name: string; payload: string; created_at: number;
  workspace_id: number | null; project_code: string | null;
};

/** One attempt as the log stores it. */
export type AttemptLogRow = {
  deliveryId: number; previousAttemptId: number | null; startedAt: number; durationMs: number; url: string; userAgent: string | null;
  signature: string | null; statusCode: number | null; error: string | null; responseBody: string | null; responseHeaders: string | null; cycleAttempt: number;
};

/** Where an attempt leaves its delivery. */
export type DeliveryOutcome = {
  status: "pending" | "delivered" | "failed"; nextAttemptAt: number; statusCode: number | null; error: string | null; now: number; finishedAt: number | null; attemptId: number;
};

export function deliveryQueue(db: Db) {
  const connection = writerOf(db);
  const subs = connection.query<QueuedSubscriptionRow, []>(
    "SELECT id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_subscriptions WHERE enabled = 1 ORDER BY id",
  );
  const due = connection.query<DueDeliveryRow, [number, number, number]>(
    `SELECT d.id, d.attempts, d.last_attempt_id, e.uid, e.name, e.payload, e.created_at, e.workspace_id, e.project_code
       FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
      WHERE d.subscription_id = ?1 AND d.status = 'pending' AND d.next_attempt_at <= ?2
        AND (d.locked_until IS NULL OR d.locked_until <= ?2)
      ORDER BY d.next_attempt_at LIMIT ?3`,
  );
  // The lease touches only the row, not the due index (next_attempt_at stays): leased rows are
  // skipped by the due query's locked_until test — at most 2 × the cap of them per subscription.
  // One statement per subscription's claim (the ids bound as one list), not one per row: 0.5–1 µs
  // less per delivery in a microbenchmark of 32-row claims.
  const lease = connection.query<unknown, [string, number, number]>(`UPDATE webhook_deliveries SET locked_until = ?2, updated_at = ?3 WHERE ${inListText("id", "?1")}`);
  // Appended at the end of the log (webhooks/tables.ts); `finish` then points the delivery at it.
  const logAttempt = connection.query<unknown, [number, number | null, number, number, string, string | null, string | null, number | null, string | null, string | null, string | null, number]>(
    `INSERT INTO webhook_attempts (delivery_id, previous_attempt_id, started_at, duration_ms, url, user_agent, signature, status_code, error, response_body, response_headers, cycle_attempt)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)`,
  );
  const unlogAttempt = connection.query<unknown, [number]>("DELETE FROM webhook_attempts WHERE id = ?1");
  const finish = connection.query<unknown, [number, string, number, number | null, string | null, number, number | null, number]>(
    `UPDATE webhook_deliveries SET status = ?2, attempts = attempts + 1, next_attempt_at = ?3, locked_until = NULL,
            last_status_code = ?4, last_error = ?5, updated_at = ?6, finished_at = ?7, last_attempt_id = ?8
      WHERE id = ?1`,
  );
  const release = connection.query<unknown, [number, number]>("UPDATE webhook_deliveries SET locked_until = NULL, updated_at = ?2 WHERE id = ?1 AND status = 'pending'");
  // `last_success_at` is kept to the second: under load a subscription succeeds in every tick,
  // and rewriting its row each time would add a page to every commit.
  const subSuccess = connection.query<unknown, [number, number]>(
    `UPDATE webhook_subscriptions SET failing_since = NULL, last_success_at = ?2
      WHERE id = ?1 AND (failing_since IS NOT NULL OR last_success_at IS NULL OR last_success_at <= ?2 - 1000)`,
  );
  const subFailing = connection.query<{ failing_since: number }, [number, number]>("UPDATE webhook_subscriptions SET failing_since = coalesce(failing_since, ?2) WHERE id = ?1 RETURNING failing_since");
  const subDisable = connection.query<unknown, [number, string, number]>("UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?2, updated_at = ?3 WHERE id = ?1 AND enabled = 1");

  return {
    /** `body` bound as one write transaction (a tick): all of it commits, or none. */
    transaction: <A extends unknown[], T>(body: (...args: A) => T) => immediateTransaction(db, body),
    enabledSubscriptions: (): QueuedSubscriptionRow[] => subs.all(),
    /** Up to `limit` deliveries of the subscription due at `now` and not leased, oldest due first. */
    due: (subscriptionId: number, now: number, limit: number): DueDeliveryRow[] => due.all(subscriptionId, now, limit),
    lease: (ids: readonly number[], until: number, now: number): void => void lease.run(listParam(ids), until, now),
    /** Appends an attempt to the log; its id. */
    logAttempt: (a: AttemptLogRow): number =>
      Number(logAttempt.run(a.deliveryId, a.previousAttemptId, a.startedAt, a.durationMs, a.url, a.userAgent, a.signature, a.statusCode, a.error, a.responseBody, a.responseHeaders, a.cycleAttempt).lastInsertRowid),
    unlogAttempt: (attemptId: number): void => void unlogAttempt.run(attemptId),
    /** Moves a delivery on after an attempt; false when it no longer exists. */
    finish: (deliveryId: number, o: DeliveryOutcome): boolean => finish.run(deliveryId, o.status, o.nextAttemptAt, o.statusCode, o.error, o.now, o.finishedAt, o.attemptId).changes > 0,
    /** Gives a lease back without counting an attempt (a delivery no longer pending is left alone). */
    release: (deliveryId: number, now: number): void => void release.run(deliveryId, now),
    markSubscriptionSucceeded: (subscriptionId: number, now: number): void => void subSuccess.run(subscriptionId, now),
    /** Notes a failure; since when the subscription fails (null: it no longer exists). */
    markSubscriptionFailing: (subscriptionId: number, now: number): number | null => subFailing.get(subscriptionId, now)?.failing_since ?? null,
    /** Disables an enabled subscription; false when it was not (any more). */
    disableSubscription: (subscriptionId: number, reason: string, now: number): boolean => subDisable.run(subscriptionId, reason, now).changes > 0,
  };
}

export type DeliveryQueue = ReturnType<typeof deliveryQueue>;

/**
 * Retention's reads and deletes. Each delete is its own short transaction that never waits for the
 * write lock (it throws busy instead, and retention tries again on its next run), and answers the
 * rows it deleted; at most `batch` rows for the batched ones.
 */
export function deliveryRetention(db: Db, batch: number) {
  const connection = writerOf(db);
  const nextDelivery = connection.query<{ id: number; created_at: number }, [number, number]>(
    "SELECT id, created_at FROM webhook_deliveries WHERE id > ?1 AND id < ?2 ORDER BY id LIMIT 1",
  );
  const subscriptionIds = connection.query<{ id: number }, []>("SELECT id FROM webhook_subscriptions ORDER BY id");
  const deleteSpan = connection.query<unknown, [number, number, number]>("DELETE FROM webhook_deliveries WHERE id >= ?1 AND id < ?2 AND status = 'delivered' AND finished_at < ?3");
  const deleteAttempts = connection.query<unknown, [number]>(`DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE started_at < ?1 ORDER BY id LIMIT ${batch})`);
  const deleteEvents = connection.query<unknown, [number]>(
    `DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e WHERE e.created_at < ?1
       AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) LIMIT ${batch})`,
  );
  const write = (run: () => number): Promise<number> => immediateTransaction(db, run, { waitForLock: false })();
  return {
    subscriptionIds: (): number[] => subscriptionIds.all().map((s) => s.id),
    /** The first delivery with an id in (after, before), or null. */
    nextDelivery: (after: number, before: number): { id: number; createdAt: number } | null => {
      const row = nextDelivery.get(after, before);
      return row ? { id: row.id, createdAt: row.created_at } : null;
    },
    /** Deletes the delivered deliveries with ids in [from, to) finished before `cutoff`. */
    deleteDeliveredSpan: (from: number, to: number, cutoff: number): Promise<number> => write(() => deleteSpan.run(from, to, cutoff).changes),
    /** Deletes up to `batch` attempts started before `cutoff`, oldest first. */
    deleteAttemptsBefore: (cutoff: number): Promise<number> => write(() => deleteAttempts.run(cutoff).changes),
    /** Deletes up to `batch` events created before `cutoff` that no delivery points at. */
    deleteOrphanEventsBefore: (cutoff: number): Promise<number> => write(() => deleteEvents.run(cutoff).changes),
  };
}
