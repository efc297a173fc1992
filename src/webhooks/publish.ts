import { randomBytes } from "node:crypto";
import type { Tx } from "../db/connection";
import { insertEvent, insertMatchedEvent } from "../db/delivery-queue";
import { preparedQuery } from "../db/statement";
import { assertValidPayload, type EventName, type EventPayload } from "./catalog";
import { DELIVERY_ID_SPAN } from "./tables";
import { wakeAfterCommit } from "./wake";

export type PublishOptions = {
  /** Code of the project the entity belongs to (e.g. "DEMO"); subscriptions scoped to another project do not receive it. */
  projectCode?: string | null;
  /**
   * The event's workspace: an event of a project belongs to the project's workspace (looked up
   * when not given); an event of no project (e.g. a custom field's) to the one named here, if any.
   */
  workspaceId?: number | null;
};

/** A `webhook-id`: `msg_` + 16 random bytes (base64url). Stable for the event across retries and redeliveries. */
export function newMessageId(): string {
  return `msg_${randomBytes(16).toString("base64url")}`;
}

/**
 * Does a subscription's filter (event names or "*", optional project, optional workspace) take this
 * event? PostgreSQL's outbox statement writes the same rule in SQL (src/db/delivery-queue.ts
 * `insertMatchedEvent`); test/webhooks/publish.test.ts holds both to it.
 */
export function subscriptionMatches(sub: { events: string[]; projectCode: string | null; workspaceId?: number | null }, event: string, projectCode: string | null, workspaceId: number | null = null): boolean {
  if (sub.projectCode !== null && sub.projectCode.toUpperCase() !== (projectCode ?? "").toUpperCase()) return false;
  if (sub.workspaceId != null && sub.workspaceId !== workspaceId) return false;
  return sub.events.includes("*") || sub.events.includes(event);
}

/**
 * Transactional outbox: records `event` with `payload` in the caller's transaction, plus one
 * delivery per matching enabled subscription, so the entity change and its events commit together
 * or not at all; then wakes the delivery loop after commit.
 * Call it inside a write transaction (`writeTransaction`, src/db/transaction.ts); test-management
 * writes call it as `emit` of `inProject` (src/tms/shared/write.ts).
 *
 * Throws `InvalidEventError` for an unknown event or a payload that does not match the catalog:
 * that is a programming error, and throwing rolls the caller's transaction back.
 */
export function publish<E extends EventName>(tx: Tx, event: E, payload: EventPayload<E>, opts?: PublishOptions): Promise<void>;
export function publish(tx: Tx, event: string, payload: unknown, opts?: PublishOptions): Promise<void>;
export async function publish(tx: Tx, event: string, payload: unknown, opts: PublishOptions = {}): Promise<void> {
  assertValidPayload(event, payload);
  const projectCode = opts.projectCode ?? null;
  // the event's workspace is its project's; an event of no project belongs to the one it names, if any
  const workspaceId =
    opts.workspaceId != null || projectCode === null ? (opts.workspaceId ?? null) : ((await projectWorkspace.get(tx, projectCode.toUpperCase()))?.workspace_id ?? null);
  // The subscriptions are matched where the event is written (on PostgreSQL inside its one
  // statement: producers call this in hot write paths, and each statement is a round trip).
  const { deliveryIds } = await insertMatchedEvent(
    tx, { uid: newMessageId(), name: event, projectCode, payload: JSON.stringify(payload), createdAt: Date.now(), workspaceId }, DELIVERY_ID_SPAN,
    (s) => subscriptionMatches({ events: JSON.parse(s.events) as string[], projectCode: s.project_code, workspaceId: s.workspace_id }, event, projectCode, workspaceId),
  );
  if (deliveryIds.length > 0) wakeAfterCommit(tx);
}

// Producers call `publish` inside hot write paths: it runs statements written once, on the
// transaction's own connection, instead of building queries each time.
const projectWorkspace = preparedQuery<{ workspace_id: number }, [string]>("SELECT workspace_id FROM tms_projects WHERE code = ?1");

/** Writes the event row and its deliveries (also used by the admin `/test` endpoint). Returns the event id, its webhook-id and the delivery ids. */
export async function recordEvent(tx: Tx, event: EventName, payload: unknown, projectCode: string | null, subscriptionIds: number[], now = Date.now(), workspaceId: number | null = null) {
  const uid = newMessageId();
  // Ids keep each subscription's deliveries together (tables.ts `deliveryId`). On PostgreSQL one
  // statement, which takes no lock another producer waits for.
  const { eventId, deliveryIds } = await insertEvent(tx, { uid, name: event, projectCode, payload: JSON.stringify(payload), createdAt: now, workspaceId }, subscriptionIds, DELIVERY_ID_SPAN);
  if (deliveryIds.length > 0) wakeAfterCommit(tx);
  return { eventId, uid, deliveryIds };
}
