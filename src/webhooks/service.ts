import { and, count, desc, eq, gte, isNull, lte, or } from "drizzle-orm";
import type { AppContext } from "../context";
import { preparedQuery } from "../db/statement";
import { ApiError, badRequest, conflict, notFound } from "../http/errors";
import { EVENTS, isEventName } from "./catalog";
import type { DeliveryDetail, DeliverySummary, Subscription, SubscriptionCreate, SubscriptionPatch } from "./model";
import { checkProject, projectCodeOf } from "./project-scope";
import { recordEvent } from "./publish";
import { deliveryHeaders, generateSecret } from "./signer";
import { validateTargetUrl } from "./ssrf";
import { MAX_SUBSCRIPTION_ID, webhookDeliveries, webhookEvents, webhookSubscriptions } from "./tables";
import { workspaces } from "../directory/tables";
import { wakeAfterCommit } from "./wake";
import { first, readSnapshot, writeTransaction } from "../db/transaction";

/** Subscriptions, delivery log and replay: plain functions over the tables (no HTTP here). */

/** During a rotation the old secret keeps signing for this long, so receivers can switch without losing requests. */
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

type SubRow = typeof webhookSubscriptions.$inferSelect;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

function toSubscription(r: SubRow, now = Date.now()): Subscription {
  return {
    id: r.id,
    url: r.url,
    events: r.events,
    project: r.projectCode,
    workspace: r.workspaceId,
    description: r.description,
    enabled: r.enabled,
    disabledReason: r.disabledReason,
    failingSince: iso(r.failingSince),
    lastSuccessAt: iso(r.lastSuccessAt),
    previousSecretExpiresAt: r.previousSecret && (r.previousSecretExpiresAt ?? 0) > now ? iso(r.previousSecretExpiresAt) : null,
    createdAt: iso(r.createdAt)!,
    updatedAt: iso(r.updatedAt)!,
  };
}

function checkEvents(events: string[]): string[] {
  const unique = [...new Set(events)];
  if (unique.includes("*") && unique.length > 1) throw badRequest('events: use ["*"] alone, or a list of event names', "events");
  for (const e of unique) if (e !== "*" && !isEventName(e)) throw badRequest(`events: unknown event "${e}"`, "events");
  return unique;
}

function checkUrl(ctx: AppContext, url: string): string {
  const problem = validateTargetUrl(url, ctx.config.webhookAllowPrivateTargets);
  if (problem) throw badRequest(problem, "url");
  return new URL(url).toString();
}

/** A subscription's workspace must exist (archived ones may keep their subscriptions). */
async function checkWorkspace(ctx: AppContext, workspace: number | null | undefined): Promise<number | null> {
  if (workspace === undefined || workspace === null) return null;
  if (!(await first(ctx.db.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.id, workspace))))) throw badRequest(`No workspace ${workspace}`, "workspace");
  return workspace;
}

async function getRow(ctx: AppContext, id: number): Promise<SubRow> {
  const row = await first(ctx.db.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)));
  if (!row) throw notFound(`Webhook subscription ${id}`);
  return row;
}

export async function createSubscription(ctx: AppContext, input: SubscriptionCreate): Promise<Subscription & { secret: string }> {
  const url = checkUrl(ctx, input.url);
  const events = checkEvents(input.events);
  const workspaceId = await checkWorkspace(ctx, input.workspace);
  const now = Date.now();
  const secret = generateSecret();
  const row = await writeTransaction(ctx.db,
    async (tx) => {
      await checkProject(tx, projectCodeOf(input.project), workspaceId);
      const [created] = await tx
        .insert(webhookSubscriptions)
        .values({ url, events, projectCode: projectCodeOf(input.project), workspaceId, description: input.description ?? "", enabled: input.enabled ?? true, secret: ctx.secrets.seal(secret), createdAt: now, updatedAt: now })
        .returning();
      if (!created) throw new Error("the subscription insert returned no row");
      // Delivery ids carry the subscription id in their high bits (tables.ts `deliveryId`).
      if (created.id > MAX_SUBSCRIPTION_ID) throw conflict(`No more webhook subscriptions can be created in this database (ids are used up to ${MAX_SUBSCRIPTION_ID})`);
      return created;
    },
  );
  return { ...toSubscription(row, now), secret };
}

export async function listSubscriptions(ctx: AppContext): Promise<Subscription[]> {
  const now = Date.now();
  return (await ctx.db.select().from(webhookSubscriptions).orderBy(webhookSubscriptions.id)).map((r) => toSubscription(r, now));
}

export async function getSubscription(ctx: AppContext, id: number): Promise<Subscription> {
  return toSubscription(await getRow(ctx, id));
}

export async function updateSubscription(ctx: AppContext, id: number, patch: SubscriptionPatch): Promise<Subscription> {
  const changes: Partial<SubRow> = { updatedAt: Date.now() };
  if (patch.url !== undefined) changes.url = checkUrl(ctx, patch.url);
  if (patch.events !== undefined) changes.events = checkEvents(patch.events);
  if (patch.project !== undefined) changes.projectCode = projectCodeOf(patch.project);
  if (patch.workspace !== undefined) changes.workspaceId = await checkWorkspace(ctx, patch.workspace);
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.enabled !== undefined) {
    changes.enabled = patch.enabled;
    // Re-enabling starts a clean slate: the old reason and failure streak no longer apply.
    changes.disabledReason = null;
    if (patch.enabled) changes.failingSince = null;
  }
  const row = await writeTransaction(ctx.db,
    async (tx) => {
      const r = await first(tx.update(webhookSubscriptions).set(changes).where(eq(webhookSubscriptions.id, id)).returning());
      if (!r) throw notFound(`Webhook subscription ${id}`);
      // Re-enabling is held to the rule too: a subscription disabled because its project was deleted stays so until it names one.
      if (patch.project !== undefined || patch.workspace !== undefined || patch.enabled === true) await checkProject(tx, projectCodeOf(r.projectCode), r.workspaceId);
      return r;
    },
  );
  if (row.enabled) wakeAfterCommit(ctx.db); // pending deliveries of a re-enabled subscription go out now
  return toSubscription(row);
}

export async function deleteSubscription(ctx: AppContext, id: number): Promise<void> {
  const r = await writeTransaction(ctx.db, (tx) => first(tx.delete(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)).returning({ id: webhookSubscriptions.id })));
  if (!r) throw notFound(`Webhook subscription ${id}`);
}

export async function rotateSecret(ctx: AppContext, id: number): Promise<{ secret: string; previousSecretExpiresAt: string }> {
  const now = Date.now();
  const secret = generateSecret();
  const expires = now + ROTATION_OVERLAP_MS;
  await writeTransaction(ctx.db,
    async (tx) => {
      const row = await first(tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)));
      if (!row) throw notFound(`Webhook subscription ${id}`);
      await tx
        .update(webhookSubscriptions)
        .set({ secret: ctx.secrets.seal(secret), previousSecret: row.secret, previousSecretExpiresAt: expires, updatedAt: now })
        .where(eq(webhookSubscriptions.id, id));
    },
  );
  return { secret, previousSecretExpiresAt: iso(expires)! };
}

/** Enqueues `count` copies of the catalog's example of `event` to this subscription only (its filter is ignored). */
export async function enqueueTest(ctx: AppContext, id: number, event: string, copies = 1): Promise<{ deliveryIds: number[]; webhookIds: string[] }> {
  if (!isEventName(event)) throw badRequest(`unknown event "${event}"`, "event");
  return writeTransaction(ctx.db,
    async (tx) => {
      const sub = await first(tx.select().from(webhookSubscriptions).where(eq(webhookSubscriptions.id, id)));
      if (!sub) throw notFound(`Webhook subscription ${id}`);
      if (!sub.enabled) throw subscriptionDisabled(id);
      const deliveryIds: number[] = [];
      const webhookIds: string[] = [];
      for (let i = 0; i < copies; i++) {
        const r = await recordEvent(tx, event, EVENTS[event].example, projectCodeOf(sub.projectCode), [id], Date.now(), sub.workspaceId);
        deliveryIds.push(...r.deliveryIds);
        webhookIds.push(r.uid);
      }
      return { deliveryIds, webhookIds };
    },
  );
}

const summaryColumns = {
  id: webhookDeliveries.id,
  subscriptionId: webhookDeliveries.subscriptionId,
  webhookId: webhookEvents.uid,
  event: webhookEvents.name,
  status: webhookDeliveries.status,
  attemptCount: webhookDeliveries.attempts,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  lockedUntil: webhookDeliveries.lockedUntil,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastError: webhookDeliveries.lastError,
  createdAt: webhookDeliveries.createdAt,
  finishedAt: webhookDeliveries.finishedAt,
};
type SummaryRow = { [K in keyof typeof summaryColumns]: (typeof summaryColumns)[K]["_"]["data"] | ((typeof summaryColumns)[K]["_"]["notNull"] extends true ? never : null) };

function toSummary(r: SummaryRow, now = Date.now()): DeliverySummary {
  const inFlight = r.status === "pending" && r.lockedUntil !== null && r.lockedUntil > now;
  return {
    id: r.id,
    subscriptionId: r.subscriptionId,
    webhookId: r.webhookId,
    event: r.event,
    status: r.status,
    attemptCount: r.attemptCount,
    nextAttemptAt: r.status === "pending" && !inFlight ? iso(r.nextAttemptAt) : null,
    inFlight,
    lastStatusCode: r.lastStatusCode,
    lastError: r.lastError,
    createdAt: iso(r.createdAt)!,
    finishedAt: iso(r.finishedAt),
  };
}

export async function listDeliveries(
  ctx: AppContext,
  subscriptionId: number,
  q: { status?: "pending" | "delivered" | "failed"; event?: string; limit?: number; offset?: number },
) {
  await getRow(ctx, subscriptionId);
  const limit = q.limit ?? 50;
  const offset = q.offset ?? 0;
  const where = and(
    eq(webhookDeliveries.subscriptionId, subscriptionId),
    q.status ? eq(webhookDeliveries.status, q.status) : undefined,
    q.event ? eq(webhookEvents.name, q.event) : undefined,
  );
  // The page and its total from one snapshot: deliveries change state while an admin watches.
  return readSnapshot(ctx.db, async () => {
    const base = ctx.db.select(summaryColumns).from(webhookDeliveries).innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId));
    const rows = await base.where(where).orderBy(desc(webhookDeliveries.id)).limit(limit).offset(offset);
    const total = (await first(ctx.db.select({ n: count() }).from(webhookDeliveries).innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId)).where(where)))!.n;
    const now = Date.now();
    return { total, limit, offset, items: rows.map((r) => toSummary(r, now)) };
  });
}

export async function getDelivery(ctx: AppContext, id: number): Promise<DeliveryDetail> {
  const row = await first(
    ctx.db
      .select({ ...summaryColumns, payload: webhookEvents.payload, eventCreatedAt: webhookEvents.createdAt, workspaceId: webhookEvents.workspaceId, projectCode: webhookEvents.projectCode })
      .from(webhookDeliveries)
      .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
      .where(eq(webhookDeliveries.id, id)),
  );
  if (!row) throw notFound(`Delivery ${id}`);
  const attempts = await attemptsOf(ctx, id);
  return {
    ...toSummary(row),
    timestamp: Math.floor(row.eventCreatedAt / 1000),
    payload: JSON.parse(row.payload),
    attempts: attempts.map((a, i) => ({
      startedAt: iso(a.started_at)!,
      durationMs: a.duration_ms,
      url: a.url,
      // Attempts logged before migration 0002 kept the headers JSON; newer ones are rebuilt from their parts.
      requestHeaders: a.request_headers
        ? (JSON.parse(a.request_headers) as Record<string, string>)
        : a.signature === null && a.user_agent === null
          ? null // refused before sending: nothing was sent
          : deliveryHeaders({
            userAgent: a.user_agent ?? "",
            webhookId: row.webhookId,
            timestampSeconds: Math.floor(a.started_at / 1000),
            signature: a.signature ?? "",
            host: hostOf(a.url),
            workspaceId: row.workspaceId,
            projectCode: row.projectCode,
          }),
      statusCode: a.status_code,
      error: a.error,
      responseHeaders: a.response_headers === null ? null : (JSON.parse(a.response_headers) as Record<string, string>),
      responseBody: a.response_body,
      cycleAttempt: a.cycle_attempt,
      redelivery: i > 0 && a.cycle_attempt === 1,
    })),
  };
}

type AttemptRow = {
  started_at: number;
  duration_ms: number;
  url: string;
  request_headers: string | null;
  user_agent: string | null;
  signature: string | null;
  status_code: number | null;
  error: string | null;
  response_body: string | null;
  response_headers: string | null;
  cycle_attempt: number | null;
};

/**
 * A delivery's attempts, oldest first, by following its chain from `last_attempt_id` (the log has
 * no delivery index; see tables.ts). Each step must stay within the delivery and go to a smaller
 * id, so a pointer left dangling by retention (or an id reused after it) ends the chain.
 */
const attemptChain = preparedQuery<AttemptRow, [number]>(
  `WITH RECURSIVE chain(id) AS (
     SELECT last_attempt_id FROM webhook_deliveries WHERE id = ?1
     UNION ALL
     SELECT a.previous_attempt_id FROM webhook_attempts a JOIN chain c ON a.id = c.id
      WHERE a.delivery_id = ?1 AND a.previous_attempt_id < a.id
   )
   SELECT a.started_at, a.duration_ms, a.url, a.request_headers, a.user_agent, a.signature, a.status_code, a.error, a.response_body, a.response_headers, a.cycle_attempt
     FROM chain c JOIN webhook_attempts a ON a.id = c.id
    WHERE a.delivery_id = ?1
    ORDER BY a.id`,
);

function attemptsOf(ctx: AppContext, deliveryId: number): Promise<AttemptRow[]> {
  return attemptChain.all(ctx.db, deliveryId);
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return "";
  }
}

/** A disabled subscription sends nothing: queuing for it (test, redeliver, recover) is refused, not accepted and never sent. */
const subscriptionDisabled = (id: number) => new ApiError(409, "subscription_disabled", `Webhook subscription ${id} is disabled; enable it first`);

/** Sends one delivery again with a fresh retry cycle (same webhook-id, so receivers can dedupe). */
export async function redeliver(ctx: AppContext, id: number): Promise<{ id: number; status: "pending" }> {
  const now = Date.now();
  await writeTransaction(ctx.db,
    async (tx) => {
      const d = await first(tx.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, id)));
      if (!d) throw notFound(`Delivery ${id}`);
      const sub = await first(tx.select({ enabled: webhookSubscriptions.enabled }).from(webhookSubscriptions).where(eq(webhookSubscriptions.id, d.subscriptionId)));
      if (!sub?.enabled) throw subscriptionDisabled(d.subscriptionId);
      const inFlight = () => new ApiError(409, "delivery_in_flight", `Delivery ${id} is being attempted right now; try again when the attempt has finished`);
      if (d.status === "pending" && d.lockedUntil !== null && d.lockedUntil > now) throw inFlight();
      // The lease is checked again by the update itself: on PostgreSQL another node may have
      // claimed the row since it was read, and clearing its lease would let a third send it too.
      const moved = await tx
        .update(webhookDeliveries)
        .set({ status: "pending", attempts: 0, nextAttemptAt: now, lockedUntil: null, finishedAt: null, updatedAt: now })
        .where(and(eq(webhookDeliveries.id, id), or(isNull(webhookDeliveries.lockedUntil), lte(webhookDeliveries.lockedUntil, now))))
        .returning({ id: webhookDeliveries.id });
      if (moved.length === 0) throw inFlight();
    },
  );
  wakeAfterCommit(ctx.db);
  return { id, status: "pending" };
}

/** Re-queues every failed delivery of the subscription created at or after `since`. */
export async function recover(ctx: AppContext, subscriptionId: number, since: string | number): Promise<{ requeued: number }> {
  const sinceMs = typeof since === "number" ? since * 1000 : Date.parse(since);
  if (Number.isNaN(sinceMs)) throw badRequest("since must be an ISO 8601 date-time or Unix seconds", "since");
  const now = Date.now();
  const requeued = await writeTransaction(ctx.db,
    async (tx) => {
      const sub = await first(tx.select({ enabled: webhookSubscriptions.enabled }).from(webhookSubscriptions).where(eq(webhookSubscriptions.id, subscriptionId)));
      if (!sub) throw notFound(`Webhook subscription ${subscriptionId}`);
      if (!sub.enabled) throw subscriptionDisabled(subscriptionId);
      const rows = await tx
        .update(webhookDeliveries)
        .set({ status: "pending", attempts: 0, nextAttemptAt: now, lockedUntil: null, finishedAt: null, updatedAt: now })
        .where(and(eq(webhookDeliveries.subscriptionId, subscriptionId), eq(webhookDeliveries.status, "failed"), gte(webhookDeliveries.createdAt, sinceMs)))
        .returning({ id: webhookDeliveries.id });
      return rows.length;
    },
  );
  if (requeued > 0) wakeAfterCommit(ctx.db);
  return { requeued };
}

