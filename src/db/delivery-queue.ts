/**
 * The webhook delivery queue's SQL: what the delivery loop's ledger (src/webhooks/ledger.ts) runs in
 * its ticks — claim (due rows, then a lease), record a batch of attempts, release leases,
 * stamp or disable a subscription — and what retention (src/webhooks/retention.ts) deletes. The
 * state machine, the fair share and the retry decisions stay with the webhooks; this module only
 * says how each step reads and writes rows; PostgreSQL claims with its own SQL (row locks that
 * skip what another node holds) behind the same function, so several nodes share one queue.
 *
 * Statements are written once (`preparedQuery`) and run on whatever `db` routes to: inside a tick,
 * the tick's transaction.
 */
import type { Db } from "./connection";
import { inListText, listParam } from "./dialect";
import { engine, isPostgres, type Engine } from "./engine";
import { perEngine, preparedQuery, type PreparedQuery } from "./statement";
import { writeTransaction } from "./transaction";

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
  status: "pending" | "delivered" | "failed"; nextAttemptAt: number; statusCode: number | null; error: string | null; finishedAt: number | null;
};

const enabledSubscriptions = preparedQuery<QueuedSubscriptionRow, []>(
  "SELECT id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_subscriptions WHERE enabled = 1 ORDER BY id",
);
const dueDeliveries = preparedQuery<DueDeliveryRow, [number, number, number]>(
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
// Its text has an engine's fragment, so it is written once per engine (not when this module loads,
// before the process has chosen its engine).
const leaseByEngine = new Map<Engine, PreparedQuery<unknown, [string, number, number]>>();
const leaseDeliveries = () => {
  let q = leaseByEngine.get(engine());
  if (!q) leaseByEngine.set(engine(), (q = preparedQuery(`UPDATE webhook_deliveries SET locked_until = ?2, updated_at = ?3 WHERE ${inListText("id", "?1")}`)));
  return q;
};
// Appended at the end of the log (webhooks/tables.ts); `finish` then points the delivery at it.
const logAttempt = preparedQuery<{ id: number }, [number, number | null, number, number, string, string | null, string | null, number | null, string | null, string | null, string | null, number]>(
  `INSERT INTO webhook_attempts (delivery_id, previous_attempt_id, started_at, duration_ms, url, user_agent, signature, status_code, error, response_body, response_headers, cycle_attempt)
   VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12) RETURNING id`,
);
const unlogAttempt = preparedQuery<unknown, [number]>("DELETE FROM webhook_attempts WHERE id = ?1");
const finishDelivery = preparedQuery<unknown, [number, string, number, number | null, string | null, number, number | null, number]>(
  `UPDATE webhook_deliveries SET status = ?2, attempts = attempts + 1, next_attempt_at = ?3, locked_until = NULL,
          last_status_code = ?4, last_error = ?5, updated_at = ?6, finished_at = ?7, last_attempt_id = ?8
    WHERE id = ?1`,
);

/**
 * PostgreSQL's record of a batch of attempts, one statement: each attempt takes its log id from
 * the log's identity sequence, its delivery moves on and points at it, and the attempt is logged
 * only for a delivery that was there to move on (one deleted meanwhile logs nothing). The batch
 * comes as one JSON parameter (`?1`), one object per attempt, each delivery at most once. Every
 * statement is a round trip and a socket write of the driver's on the loop's thread — per attempt
 * two of them were most of a PostgreSQL delivery's cost (docs/benchmarks/postgres.md) — so a tick
 * records its whole batch in one.
 */
const recordAttemptsOnPostgres = preparedQuery<unknown, [string, number]>(
  `WITH input AS MATERIALIZED (
     SELECT nextval((SELECT pg_get_serial_sequence('webhook_attempts', 'id'))) AS attempt_id, i.*
       FROM json_to_recordset(?1::json) AS i(delivery_id bigint, previous_attempt_id bigint, started_at bigint, duration_ms bigint, url text,
              user_agent text, signature text, status_code bigint, error text, response_body text, response_headers text, cycle_attempt bigint,
              status text, next_attempt_at bigint, last_status_code bigint, last_error text, finished_at bigint)),
   finished AS (
     UPDATE webhook_deliveries d SET status = i.status, attempts = d.attempts + 1, next_attempt_at = i.next_attempt_at, locked_until = NULL,
            last_status_code = i.last_status_code, last_error = i.last_error, updated_at = ?2, finished_at = i.finished_at, last_attempt_id = i.attempt_id
       FROM input i WHERE d.id = i.delivery_id
     RETURNING d.id)
   INSERT INTO webhook_attempts (id, delivery_id, previous_attempt_id, started_at, duration_ms, url, user_agent, signature, status_code, error, response_body, response_headers, cycle_attempt)
   SELECT i.attempt_id, i.delivery_id, i.previous_attempt_id, i.started_at, i.duration_ms, i.url, i.user_agent, i.signature, i.status_code, i.error,
          i.response_body, i.response_headers, i.cycle_attempt
     FROM input i JOIN finished f ON f.id = i.delivery_id ORDER BY i.attempt_id`,
);

/** One attempt to record: its log row, and where it leaves its delivery. */
export type AttemptRecord = { log: AttemptLogRow; outcome: DeliveryOutcome };

/**
 * Records `records` in the caller's transaction, in their order: each attempt logged and its
 * delivery moved on, pointing at it; a delivery deleted meanwhile (its subscription was) gets no
 * log row. SQLite runs two statements per attempt in-process; PostgreSQL one statement per batch
 * (a delivery twice in one batch — its lease ran out and it was claimed and sent again — splits
 * it: both attempts count, and the delivery points at the later one).
 */
async function recordAttempts(db: Db, records: readonly AttemptRecord[], now: number): Promise<void> {
  if (isPostgres()) {
    for (let from = 0; from < records.length; ) {
      const seen = new Set<number>();
      let to = from;
      while (to < records.length && !seen.has(records[to]!.log.deliveryId)) seen.add(records[to++]!.log.deliveryId);
      const batch = records.slice(from, to).map(({ log: a, outcome: o }) => ({
        delivery_id: a.deliveryId, previous_attempt_id: a.previousAttemptId, started_at: a.startedAt, duration_ms: a.durationMs, url: a.url,
        user_agent: a.userAgent, signature: a.signature, status_code: a.statusCode, error: a.error, response_body: a.responseBody,
        response_headers: a.responseHeaders, cycle_attempt: a.cycleAttempt,
        status: o.status, next_attempt_at: o.nextAttemptAt, last_status_code: o.statusCode, last_error: o.error, finished_at: o.finishedAt,
      }));
      await recordAttemptsOnPostgres.run(db, JSON.stringify(batch), now);
      from = to;
    }
    return;
  }
  for (const { log: a, outcome: o } of records) {
    const attemptId = (await logAttempt.get(db, a.deliveryId, a.previousAttemptId, a.startedAt, a.durationMs, a.url, a.userAgent, a.signature, a.statusCode, a.error, a.responseBody, a.responseHeaders, a.cycleAttempt))!.id;
    if ((await finishDelivery.run(db, a.deliveryId, o.status, o.nextAttemptAt, o.statusCode, o.error, now, o.finishedAt, attemptId)).changes === 0) await unlogAttempt.run(db, attemptId);
  }
}

const releaseDeliveries = perEngine(() =>
  preparedQuery<unknown, [string, number]>(`UPDATE webhook_deliveries SET locked_until = NULL, updated_at = ?2 WHERE ${inListText("id", "?1")} AND status = 'pending'`),
);
// `last_success_at` is kept to the second: under load a subscription succeeds in every tick,
// and rewriting its row each time would add a page to every commit. (The arithmetic is on the
// column, so PostgreSQL types ?2 as the column's bigint, not as an integer that overflows.)
const subscriptionSucceeded = preparedQuery<unknown, [number, number]>(
  `UPDATE webhook_subscriptions SET failing_since = NULL, last_success_at = ?2
    WHERE id = ?1 AND (failing_since IS NOT NULL OR last_success_at IS NULL OR last_success_at + 1000 <= ?2)`,
);
const subscriptionFailing = preparedQuery<{ failing_since: number }, [number, number]>(
  "UPDATE webhook_subscriptions SET failing_since = coalesce(failing_since, ?2) WHERE id = ?1 RETURNING failing_since",
);
const disableSubscription = preparedQuery<unknown, [number, string, number]>("UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?2, updated_at = ?3 WHERE id = ?1 AND enabled = 1");

/**
 * PostgreSQL's claim, one statement: the due rows are locked as they are read, rows another
 * node's tick holds right now are skipped rather than waited for (`SKIP LOCKED`), and a row whose
 * lease another node committed meanwhile is read again and dropped (READ COMMITTED re-checks the
 * WHERE of a locked row's newest version). Two nodes claiming at once therefore never lease the
 * same delivery, and neither waits for the other. `RETURNING` has no order: `claimDue` sorts.
 */
const claimDueOnPostgres = preparedQuery<DueDeliveryRow & { next_attempt_at: number }, [number, number, number, number]>(
  `WITH due AS (
     SELECT id FROM webhook_deliveries
      WHERE subscription_id = ?1 AND status = 'pending' AND next_attempt_at <= ?2
        AND (locked_until IS NULL OR locked_until <= ?2)
      ORDER BY next_attempt_at LIMIT ?3
      FOR UPDATE SKIP LOCKED)
   UPDATE webhook_deliveries d SET locked_until = ?4, updated_at = ?2
     FROM due, webhook_events e
    WHERE d.id = due.id AND e.id = d.event_id
   RETURNING d.id, d.attempts, d.last_attempt_id, d.next_attempt_at, e.uid, e.name, e.payload, e.created_at, e.workspace_id, e.project_code`,
);

/**
 * Claims up to `limit` deliveries of the subscription due at `now` and not leased, oldest due
 * first: leases them until `leaseUntil` and answers them. On SQLite the tick's transaction holds
 * the one writer, so reading then leasing cannot race; on PostgreSQL several nodes claim from one
 * queue at once, with row locks that skip what another holds (`claimDueOnPostgres`).
 */
async function claimDue(db: Db, subscriptionId: number, now: number, limit: number, leaseUntil: number): Promise<DueDeliveryRow[]> {
  if (isPostgres()) {
    const claimed = await claimDueOnPostgres.all(db, subscriptionId, now, limit, leaseUntil);
    claimed.sort((a, b) => a.next_attempt_at - b.next_attempt_at || a.id - b.id);
    return claimed.map(({ next_attempt_at: _, ...row }) => row);
  }
  const rows = await dueDeliveries.all(db, subscriptionId, now, limit);
  if (rows.length > 0) await leaseDeliveries().run(db, listParam(rows.map((r) => r.id)), leaseUntil, now);
  return rows;
}

// The outbox's write: the event's row and a delivery per subscription, each delivery's id in its
// subscription's range (webhooks/tables.ts `deliveryId`: `subscription * span + low half`).
// SQLite: the low half is the subscription's running count, bumped under the one writer.
const insertEventRow = preparedQuery<{ id: number }, [string, string, string | null, string, number, number | null]>(
  "INSERT INTO webhook_events (uid, name, project_code, payload, created_at, workspace_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id",
);
const nextDeliverySeq = preparedQuery<{ delivery_seq: number }, [number]>("UPDATE webhook_subscriptions SET delivery_seq = delivery_seq + 1 WHERE id = ?1 RETURNING delivery_seq");
const insertDelivery = preparedQuery<unknown, [number, number, number, number]>(
  `INSERT INTO webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
   VALUES (?1, ?2, ?3, 'pending', 0, ?4, ?4, ?4)`,
);
/**
 * PostgreSQL's outbox write, one statement: the event's row and a delivery per subscription whose
 * low half is the event's id — unique in the subscription's range (one delivery per subscription
 * per event), growing with publish order, never reused (an identity), and taken without a lock.
 * A running count on the subscription's row would lock that row until COMMIT, so every producer
 * of a subscription's events — every create, in every project — would commit one after another,
 * one WAL flush each (measured: producers capped at ~370 events/s on an idle machine, 94–153/s
 * loaded). The subscriptions' rows are only `FOR KEY SHARE`-locked, as the deliveries' foreign key
 * would lock them anyway: producers share that lock, ticks' updates of the rows do not conflict
 * with it, and a subscription deleted meanwhile is skipped (READ COMMITTED re-reads the row once
 * the delete commits) rather than failing the producer on its foreign key. One row per delivery
 * (a single row with no delivery id when none).
 */
const insertEventOnPostgres = preparedQuery<{ event_id: number; delivery_id: number | null }, [string, string, string | null, string, number, number | null, string, number]>(
  `WITH event AS (INSERT INTO webhook_events (uid, name, project_code, payload, created_at, workspace_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id),
        target AS (SELECT id FROM webhook_subscriptions WHERE id = ANY(?7) ORDER BY id FOR KEY SHARE),
        delivery AS (INSERT INTO webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
                     SELECT target.id * ?8 + event.id, event.id, target.id, 'pending', 0, ?5, ?5, ?5 FROM target, event
                     RETURNING id)
   SELECT event.id AS event_id, delivery.id AS delivery_id FROM event LEFT JOIN delivery ON true`,
);

/**
 * The outbox's write when the subscriptions it goes to are those whose filter takes it (every
 * producer's `publish`): on PostgreSQL the filter is part of the same one statement — the enabled
 * subscriptions whose event names hold the event's (or `*`), whose project, if any, is the
 * event's (compared upper-case) and whose workspace, if any, is the event's; each taken
 * `FOR KEY SHARE` in id order as above, and re-checked by READ COMMITTED if another transaction
 * changes it meanwhile. One statement and one round trip instead of a read of every subscription
 * first (docs/benchmarks/postgres.md, "Fewer round trips per create"). `subscriptionMatches`
 * (src/webhooks/publish.ts) is the same rule, which SQLite applies to the rows read.
 */
const insertMatchedEventOnPostgres = preparedQuery<{ event_id: number; delivery_id: number | null }, [string, string, string | null, string, number, number | null, number]>(
  `WITH event AS (INSERT INTO webhook_events (uid, name, project_code, payload, created_at, workspace_id) VALUES (?1, ?2, ?3, ?4, ?5, ?6) RETURNING id),
        target AS (SELECT id FROM webhook_subscriptions
                    WHERE enabled = 1
                      AND (events::jsonb @> jsonb_build_array(?2::text) OR events::jsonb @> '["*"]'::jsonb)
                      AND (project_code IS NULL OR upper(project_code) = upper(?3::text))
                      AND (workspace_id IS NULL OR workspace_id = ?6::bigint)
                    ORDER BY id FOR KEY SHARE),
        delivery AS (INSERT INTO webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at)
                     SELECT target.id * ?7 + event.id, event.id, target.id, 'pending', 0, ?5, ?5, ?5 FROM target, event
                     RETURNING id)
   SELECT event.id AS event_id, delivery.id AS delivery_id FROM event LEFT JOIN delivery ON true`,
);

/** An enabled subscription's filter as stored (`events`: a JSON array of event names or `*`). */
export type SubscriptionFilterRow = { id: number; events: string; project_code: string | null; workspace_id: number | null };

// In id order, the order every producer and every delivery tick takes subscription rows in.
const enabledSubscriptionFilters = preparedQuery<SubscriptionFilterRow, []>(
  "SELECT id, events, project_code, workspace_id FROM webhook_subscriptions WHERE enabled = 1 ORDER BY id",
);

/**
 * Writes event `e` and a pending delivery of it for every enabled subscription whose filter takes
 * it (`takes`, the rule PostgreSQL's statement above writes in SQL), as `insertEvent` does.
 */
export async function insertMatchedEvent(db: Db, e: OutboxEvent, span: number, takes: (s: SubscriptionFilterRow) => boolean): Promise<{ eventId: number; deliveryIds: number[] }> {
  if (isPostgres()) {
    const { uid, name, projectCode, payload, createdAt, workspaceId } = e;
    return deliveriesOf(await insertMatchedEventOnPostgres.all(db, uid, name, projectCode, payload, createdAt, workspaceId, span));
  }
  return insertEvent(db, e, (await enabledSubscriptionFilters.all(db)).filter(takes).map((s) => s.id), span);
}

const deliveriesOf = (rows: { event_id: number; delivery_id: number | null }[]) => ({
  eventId: rows[0]!.event_id,
  deliveryIds: rows.flatMap((r) => (r.delivery_id === null ? [] : [r.delivery_id])).sort((a, b) => a - b),
});

/** An event as the outbox stores it. */
export type OutboxEvent = { uid: string; name: string; projectCode: string | null; payload: string; createdAt: number; workspaceId: number | null };

/**
 * Writes event `e` and a pending delivery of it for each subscription (in the caller's
 * transaction), due at its `createdAt`; answers the event's id and the deliveries' ids in
 * subscription order. `span`: webhooks/tables.ts's id layout. A subscription deleted meanwhile
 * gets none.
 */
export async function insertEvent(db: Db, e: OutboxEvent, subscriptionIds: readonly number[], span: number): Promise<{ eventId: number; deliveryIds: number[] }> {
  const { uid, name, projectCode, payload, createdAt, workspaceId } = e;
  if (isPostgres()) {
    return deliveriesOf(await insertEventOnPostgres.all(db, uid, name, projectCode, payload, createdAt, workspaceId, listParam([...subscriptionIds]), span));
  }
  const eventId = (await insertEventRow.get(db, uid, name, projectCode, payload, createdAt, workspaceId))!.id;
  const deliveryIds: number[] = [];
  for (const subscriptionId of subscriptionIds) {
    const counted = await nextDeliverySeq.get(db, subscriptionId);
    if (!counted) continue;
    const id = subscriptionId * span + counted.delivery_seq;
    await insertDelivery.run(db, id, eventId, subscriptionId, createdAt);
    deliveryIds.push(id);
  }
  return { eventId, deliveryIds };
}

/** The queue's steps, each run on what `db` routes to (inside `transaction`'s body: the tick's transaction). */
export function deliveryQueue(db: Db) {
  return {
    /**
     * `body` as one write transaction (a tick): all of it commits, or none. It never waits for the
     * write lock (another process may hold it for seconds): on busy it fails at once (`isLockBusy`)
     * and the loop tries again at its next tick.
     */
    transaction: <T>(body: () => Promise<T>): Promise<T> => writeTransaction(db, body, { waitForLock: false }),
    enabledSubscriptions: (): Promise<QueuedSubscriptionRow[]> => enabledSubscriptions.all(db),
    /** Leases up to `limit` deliveries of the subscription due at `now` until `leaseUntil`, oldest due first (`claimDue`). */
    claimDue: (subscriptionId: number, now: number, limit: number, leaseUntil: number): Promise<DueDeliveryRow[]> => claimDue(db, subscriptionId, now, limit, leaseUntil),
    /** Logs each attempt and moves its delivery on, in order (`recordAttempts`). */
    recordAttempts: (records: readonly AttemptRecord[], now: number): Promise<void> => recordAttempts(db, records, now),
    /** Gives leases back without counting an attempt (a delivery no longer pending is left alone). */
    release: async (deliveryIds: readonly number[], now: number): Promise<void> => {
      if (deliveryIds.length > 0) await releaseDeliveries().run(db, listParam(deliveryIds), now);
    },
    markSubscriptionSucceeded: async (subscriptionId: number, now: number): Promise<void> => void (await subscriptionSucceeded.run(db, subscriptionId, now)),
    /** Notes a failure; since when the subscription fails (null: it no longer exists). */
    markSubscriptionFailing: async (subscriptionId: number, now: number): Promise<number | null> => (await subscriptionFailing.get(db, subscriptionId, now))?.failing_since ?? null,
    /** Disables an enabled subscription; false when it was not (any more). */
    disableSubscription: async (subscriptionId: number, reason: string, now: number): Promise<boolean> => (await disableSubscription.run(db, subscriptionId, reason, now)).changes > 0,
  };
}

export type DeliveryQueue = ReturnType<typeof deliveryQueue>;

const nextDeliveryAfter = preparedQuery<{ id: number; created_at: number }, [number, number]>(
  "SELECT id, created_at FROM webhook_deliveries WHERE id > ?1 AND id < ?2 ORDER BY id LIMIT 1",
);
const subscriptionIds = preparedQuery<{ id: number }, []>("SELECT id FROM webhook_subscriptions ORDER BY id");
const deleteDeliveredSpan = preparedQuery<unknown, [number, number, number]>(
  "DELETE FROM webhook_deliveries WHERE id >= ?1 AND id < ?2 AND status = 'delivered' AND finished_at < ?3",
);
/** The batched deletes, by batch size (written once per size). */
const retentionBatches = new Map<number, { attempts: PreparedQuery<unknown, [number]>; events: PreparedQuery<unknown, [number]> }>();

/**
 * Retention's reads and deletes. Each delete is its own short transaction that never waits for the
 * write lock (it throws busy instead, and retention tries again on its next run), and answers the
 * rows it deleted; at most `batch` rows for the batched ones.
 */
export function deliveryRetention(db: Db, batch: number) {
  let batched = retentionBatches.get(batch);
  if (!batched) {
    batched = {
      attempts: preparedQuery<unknown, [number]>(`DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE started_at < ?1 ORDER BY id LIMIT ${batch})`),
      events: preparedQuery<unknown, [number]>(
        `DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e WHERE e.created_at < ?1
           AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) LIMIT ${batch})`,
      ),
    };
    retentionBatches.set(batch, batched);
  }
  const { attempts, events } = batched;
  const write = (run: () => Promise<{ changes: number }>): Promise<number> => writeTransaction(db, async () => (await run()).changes, { waitForLock: false });
  return {
    subscriptionIds: async (): Promise<number[]> => (await subscriptionIds.all(db)).map((s) => s.id),
    /** The first delivery with an id in (after, before), or null. */
    nextDelivery: async (after: number, before: number): Promise<{ id: number; createdAt: number } | null> => {
      const row = await nextDeliveryAfter.get(db, after, before);
      return row ? { id: row.id, createdAt: row.created_at } : null;
    },
    /** Deletes the delivered deliveries with ids in [from, to) finished before `cutoff`. */
    deleteDeliveredSpan: (from: number, to: number, cutoff: number): Promise<number> => write(() => deleteDeliveredSpan.run(db, from, to, cutoff)),
    /** Deletes up to `batch` attempts started before `cutoff`, oldest first. */
    deleteAttemptsBefore: (cutoff: number): Promise<number> => write(() => attempts.run(db, cutoff)),
    /** Deletes up to `batch` events created before `cutoff` that no delivery points at. */
    deleteOrphanEventsBefore: (cutoff: number): Promise<number> => write(() => events.run(db, cutoff)),
  };
}
