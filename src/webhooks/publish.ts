import { eq } from "drizzle-orm";
import { randomBytes } from "node:crypto";
import type { Tx } from "../db/connection";
import { assertValidPayload, type EventName, type EventPayload } from "./catalog";
import { webhookDeliveries, webhookEvents, webhookSubscriptions } from "./tables";
import { wakeAfterCommit } from "./wake";

export type PublishOptions = {
  /** Code of the project the entity belongs to (e.g. "DEMO"); subscriptions scoped to another project do not receive it. */
  projectCode?: string | null;
};

/** A `webhook-id`: `msg_` + 16 random bytes (base64url). Stable for the event across retries and redeliveries. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/** Does a subscription's filter (event names or "*", optional project) take this event? */
export function subscriptionMatches(sub: { events: string[]; projectCode: string | null }, event: string, projectCode: string | null): boolean {
  if (sub.projectCode !== null && sub.projectCode.toUpperCase() !== (projectCode ?? "").toUpperCase()) return false;
  return sub.events.includes("*") || sub.events.includes(event);
}

/**
 * Transactional outbox: records `event` with `payload` in the caller's transaction, plus one
 * delivery per matching enabled subscription, so the entity change and its events commit together
 * or not at all; then wakes the delivery loop after commit.
 * Call it inside `db.transaction((tx) => { ...change...; publish(tx, "case.created", payload, { projectCode }) }, { behavior: "immediate" })`.
 *
 * Throws `InvalidEventError` for an unknown event or a payload that does not match the catalog:
 * that is a programming error, and throwing rolls the caller's transaction back.
 */
export function publish<E extends EventName>(tx: Tx, event: E, payload: EventPayload<E>, opts?: PublishOptions): void;
export function publish(tx: Tx, event: string, payload: unknown, opts?: PublishOptions): void;
export function publish(tx: Tx, event: string, payload: unknown, opts: PublishOptions = {}): void {
  assertValidPayload(event, payload);
  const projectCode = opts.projectCode ?? null;
  const subs = tx
    .select({ id: webhookSubscriptions.id, events: webhookSubscriptions.events, projectCode: webhookSubscriptions.projectCode })
    .from(webhookSubscriptions)
    .where(eq(webhookSubscriptions.enabled, true))
    .all()
    .filter((s) => subscriptionMatches(s, event, projectCode));
  recordEvent(tx, event, payload, projectCode, subs.map((s) => s.id));
}

/** Writes the event row and its deliveries (also used by the admin `/test` endpoint). Returns the event id and delivery ids. */
export function recordEvent(tx: Tx, event: EventName, payload: unknown, projectCode: string | null, subscriptionIds: number[], now = Date.now()) {
  const { id: eventId } = tx
    .insert(webhookEvents)
    .values({ uid: newMessageId(), name: event, projectCode, payload: JSON.stringify(payload), createdAt: now })
    .returning({ id: webhookEvents.id })
    .get();
  const deliveryIds: number[] = [];
  for (const subscriptionId of subscriptionIds) {
    const d = tx
      .insert(webhookDeliveries)
      .values({ eventId, subscriptionId, status: "pending", attempts: 0, nextAttemptAt: now, createdAt: now, updatedAt: now })
      .returning({ id: webhookDeliveries.id })
      .get();
    deliveryIds.push(d.id);
  }
  if (deliveryIds.length > 0) wakeAfterCommit();
  return { eventId, deliveryIds };
}
