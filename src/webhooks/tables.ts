import { sql } from "drizzle-orm";
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Webhook subscriptions. The signing secret must be usable to compute HMACs, so unlike bearer
 * tokens it cannot be hashed (Standard Webhooks requires the shared secret on both sides): it is
 * stored encrypted with a key outside the database (secret-box.ts), returned only on create and
 * rotate, never listed, never logged. All times are Unix milliseconds.
 */
export const webhookSubscriptions = sqliteTable("webhook_subscriptions", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  url: text("url").notNull(),
  /** JSON array of event names, or ["*"]. */
  events: text("events", { mode: "json" }).$type<string[]>().notNull(),
  /** Project code the subscription is scoped to; null receives every project. */
  projectCode: text("project_code"),
  /** Workspace the subscription is limited to; null receives every workspace. */
  workspaceId: integer("workspace_id"),
  description: text("description").notNull().default(""),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  disabledReason: text("disabled_reason"),
  secret: text("secret").notNull(),
  /** The secret before the last rotation; still signed with until `previousSecretExpiresAt`. */
  previousSecret: text("previous_secret"),
  previousSecretExpiresAt: integer("previous_secret_expires_at"),
  /** First failure since the last success; drives the "disable after 5 days failing" rule. */
  failingSince: integer("failing_since"),
  lastSuccessAt: integer("last_success_at"),
  /** Deliveries made for this subscription so far: the low half of the next delivery's id on SQLite (`deliveryId`; unused on PostgreSQL). */
  deliverySeq: integer("delivery_seq").notNull().default(0),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/** The outbox: one row per published event, written in the producer's transaction. */
export const webhookEvents = sqliteTable(
  "webhook_events",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** The `webhook-id` header: random, stable across retries and redeliveries. */
    uid: text("uid").notNull(),
    name: text("name").notNull(),
    projectCode: text("project_code"),
    /** The workspace of the event's project (sent as the `gatehouse-workspace` header); null for events of no project. */
    workspaceId: integer("workspace_id"),
    /** The payload as JSON text, spliced verbatim into the envelope. */
    payload: text("payload").notNull(),
    createdAt: integer("created_at").notNull(),
  },
  (t) => [uniqueIndex("webhook_events_uid").on(t.uid), index("webhook_events_created").on(t.createdAt)],
);

export type DeliveryStatus = "pending" | "delivered" | "failed";

/**
 * A delivery's id: its subscription's id in the high bits and a number that grows with publish
 * order in the low 32, so each subscription's deliveries are stored together in id (= rowid) order,
 * oldest first. The delivery loop works one subscription at a time; with ids in publish order, the
 * deliveries of several subscriptions interleave and every tick wrote pages spread over all of
 * them (measured with 10 subscriptions: 16.6 WAL pages per tick instead of 11.0). Deliveries made
 * before migration 0004 keep their smaller ids. Stays a safe JavaScript integer up to 2^21
 * subscriptions (`MAX_SUBSCRIPTION_ID`). The low half (src/db/delivery-queue.ts `insertEvent`):
 * on SQLite the subscription's running count (`delivery_seq`, never reused), bumped under the one
 * writer; on PostgreSQL the event's id (an identity, never reused; one delivery per subscription
 * per event), since a count would lock the subscription's row until each producer's COMMIT. It is
 * larger than every count an existing delivery holds (a subscription's k-th delivery belongs to an
 * event whose id is at least k), so a database moved from SQLite goes on without a clash. Either
 * way the low half has room for 2^32 — deliveries to one subscription, or events in all.
 */
export const DELIVERY_ID_SPAN = 2 ** 32;
export const MAX_SUBSCRIPTION_ID = 2 ** 21 - 1;
export function deliveryId(subscriptionId: number, seq: number): number {
  return subscriptionId * DELIVERY_ID_SPAN + seq;
}

/** One row per (event, subscription). A small state machine: pending → delivered | failed. */
export const webhookDeliveries = sqliteTable(
  "webhook_deliveries",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    eventId: integer("event_id").notNull().references(() => webhookEvents.id, { onDelete: "cascade" }),
    subscriptionId: integer("subscription_id").notNull().references(() => webhookSubscriptions.id, { onDelete: "cascade" }),
    status: text("status").$type<DeliveryStatus>().notNull().default("pending"),
    /** Attempts in the current cycle (a redelivery starts a new cycle at 0); picks the retry delay. */
    attempts: integer("attempts").notNull().default(0),
    /** When the delivery is next due (and not leased). */
    nextAttemptAt: integer("next_attempt_at").notNull(),
    /** Lease: set while an attempt is claimed or in flight; the row is not due before it passes, so after a kill -9 it comes back by itself. */
    lockedUntil: integer("locked_until"),
    lastStatusCode: integer("last_status_code"),
    lastError: text("last_error"),
    /**
     * The latest attempt in `webhook_attempts` (each attempt points at the one before it): the
     * delivery log is read by following the chain, so the attempts table needs no index. No
     * foreign key: retention purges old attempts of deliveries that stay (failed ones), and the
     * chain then just ends. Null until the first attempt.
     */
    lastAttemptId: integer("last_attempt_id"),
    createdAt: integer("created_at").notNull(),
    updatedAt: integer("updated_at").notNull(),
    finishedAt: integer("finished_at"),
  },
  (t) => [
    // The claim query: due pending deliveries of one subscription, oldest first.
    index("webhook_deliveries_due").on(t.subscriptionId, t.nextAttemptAt).where(sql`status = 'pending'`),
    // Delivery log pages and recover. Without status on purpose: finishing a delivery then does not move an index entry.
    index("webhook_deliveries_subscription_id").on(t.subscriptionId, t.id),
    index("webhook_deliveries_event").on(t.eventId),
    // No index for the retention purge: it walks old rows in id order (`purgeExpired`), so
    // finishing a delivery moves no index entry but the due index's (measured: ~2.5 µs and one
    // page per tick less on the delivery path).
  ],
);

/**
 * Every HTTP attempt, for the delivery log: an append-only table in rowid (= time) order with no
 * secondary index and no foreign key, so logging an attempt writes at the end of one B-tree
 * (measured: 4–10 µs less per delivery than a delivery_id index, or than keeping the latest
 * attempt on the delivery row, whose growth split pages). A delivery finds its attempts through
 * `webhook_deliveries.last_attempt_id` and `previous_attempt_id`. Attempts of a deleted delivery
 * stay until retention purges them by age.
 */
export const webhookAttempts = sqliteTable(
  "webhook_attempts",
  {
    /**
     * A plain rowid (no AUTOINCREMENT, whose sqlite_sequence row would be one more page per
     * commit). An id can be reused after the newest attempts are purged; readers of the chain
     * therefore check each attempt's delivery_id.
     */
    id: integer("id").primaryKey(),
    deliveryId: integer("delivery_id").notNull(),
    /** The delivery's attempt before this one; null for its first. */
    previousAttemptId: integer("previous_attempt_id"),
    startedAt: integer("started_at").notNull(),
    durationMs: integer("duration_ms").notNull(),
    url: text("url").notNull(),
    /**
     * Rows written before 0002: JSON object of the request headers sent. Newer rows store what
     * cannot be derived (user agent, signature) and the log rebuilds the rest (`requestHeaders`).
     */
    requestHeaders: text("request_headers", { mode: "json" }).$type<Record<string, string>>(),
    userAgent: text("user_agent"),
    /** The `webhook-signature` header sent (no secret: an HMAC of this one message). */
    signature: text("signature"),
    statusCode: integer("status_code"),
    error: text("error"),
    /** First 16 KB of the response body. */
    responseBody: text("response_body"),
    /** The response headers as a JSON object (at most 8 KB of them); null before migration 0005 or without a response. */
    responseHeaders: text("response_headers", { mode: "json" }).$type<Record<string, string>>(),
    /** 1 for the first attempt of a cycle (a delivery's first, or the first after a redelivery); null before migration 0005. */
    cycleAttempt: integer("cycle_attempt"),
  },
);
