import { t } from "elysia";
import { PageLimit, PageOffset } from "../http/paging";

/** Schemas of the webhook admin API: validation, types and the OpenAPI document share them. */

const IsoTime = t.String({ format: "date-time" });
const NullableIso = t.Union([IsoTime, t.Null()]);

/** A subscription's writable fields, without defaults: a PATCH changes only what it names. */
const subscriptionFields = {
  url: t.String({ maxLength: 2048, description: "http(s) URL without credentials", examples: ["https://hooks.example.com/gatehouse"] }),
  events: t.Array(t.String({ minLength: 1 }), { minItems: 1, maxItems: 64, description: 'Event names, or ["*"] for all', examples: [["case.created", "run.completed"]] }),
  project: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 64 }), t.Null()], { description: "Code of an existing project of the subscription's workspace (any workspace's when workspace is null); only that project's events are sent. Omit or null for all projects. Deleting the project disables the subscription." })),
  workspace: t.Optional(t.Union([t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER }), t.Null()], { description: "Workspace id; only events of that workspace's projects are sent. Omit or null for every workspace." })),
  description: t.Optional(t.String({ maxLength: 1000 })),
  enabled: t.Optional(t.Boolean()),
};

export const SubscriptionCreate = t.Object(
  { ...subscriptionFields, enabled: t.Optional(t.Boolean({ default: true })) },
  { additionalProperties: false, examples: [{"url": "https://hooks.example.com/gatehouse", "events": ["case.created", "run.completed"], "project": "DEMO", "description": "QA dashboard"}] });
export type SubscriptionCreate = typeof SubscriptionCreate.static;

// Built from the fields, not from SubscriptionCreate: a Partial keeps `default: true`, and Elysia
// would fill it in, re-enabling a disabled subscription on any PATCH without `enabled`.
export const SubscriptionPatch = t.Partial(t.Object(subscriptionFields), { additionalProperties: false, examples: [{ description: "QA dashboard (paused)", enabled: false }] });
export type SubscriptionPatch = typeof SubscriptionPatch.static;

export const Subscription = t.Object({
  id: t.Integer(),
  url: t.String(),
  events: t.Array(t.String()),
  project: t.Union([t.String(), t.Null()]),
  workspace: t.Union([t.Integer(), t.Null()]),
  description: t.String(),
  enabled: t.Boolean(),
  disabledReason: t.Union([t.String(), t.Null()], { description: "Why the engine disabled it (410 Gone, 5 days failing); cleared when re-enabled" }),
  failingSince: NullableIso,
  lastSuccessAt: t.Union([IsoTime, t.Null()], { description: "Last successful delivery, to the second (under load it is not rewritten more often)" }),
  previousSecretExpiresAt: t.Union([IsoTime, t.Null()], { description: "During a rotation: until when the old secret still signs" }),
  createdAt: IsoTime,
  updatedAt: IsoTime,
});
export type Subscription = typeof Subscription.static;

export const SubscriptionWithSecret = t.Composite([Subscription, t.Object({ secret: t.String({ description: "whsec_… — shown only here; store it now" }) })]);

export const SubscriptionList = t.Object({ total: t.Integer(), items: t.Array(Subscription) });

export const RotatedSecret = t.Object({
  secret: t.String(),
  previousSecretExpiresAt: IsoTime,
});

export const TestRequest = t.Object(
  {
    event: t.String({ description: "Event name from the catalog", examples: ["case.created"] }),
    count: t.Optional(t.Integer({ minimum: 1, maximum: 1000, default: 1, description: "Enqueue this many copies (each its own event and webhook-id); for load and crash tests" })),
  },
  { additionalProperties: false, examples: [{"event": "case.created"}] });

export const TestResult = t.Object({ deliveryIds: t.Array(t.Integer()), webhookIds: t.Array(t.String()) });

export const DeliveryStatus = t.Union([t.Literal("pending"), t.Literal("delivered"), t.Literal("failed")]);

export const DeliveryListQuery = t.Object({
  status: t.Optional(DeliveryStatus),
  event: t.Optional(t.String()),
  limit: PageLimit,
  offset: PageOffset,
});

export const DeliverySummary = t.Object({
  id: t.Integer(),
  subscriptionId: t.Integer(),
  webhookId: t.String({ description: "The webhook-id header: stable across retries and redeliveries" }),
  event: t.String(),
  status: DeliveryStatus,
  attemptCount: t.Integer({ description: "Attempts in the current cycle (a redelivery starts a new one)" }),
  nextAttemptAt: NullableIso,
  inFlight: t.Boolean(),
  lastStatusCode: t.Union([t.Integer(), t.Null()]),
  lastError: t.Union([t.String(), t.Null()]),
  createdAt: IsoTime,
  finishedAt: NullableIso,
});

export const DeliveryPage = t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer(), items: t.Array(DeliverySummary) });

export const Attempt = t.Object({
  startedAt: IsoTime,
  durationMs: t.Integer(),
  url: t.String(),
  requestHeaders: t.Union([t.Record(t.String(), t.String()), t.Null()], { description: "The request headers sent; null when nothing was sent (the SSRF guard refused the target or its name did not resolve)" }),
  statusCode: t.Union([t.Integer(), t.Null()]),
  error: t.Union([t.String(), t.Null()]),
  responseHeaders: t.Union([t.Record(t.String(), t.String()), t.Null()], { description: "Response headers (first 8 KB); null without a response, or for attempts logged before they were kept" }),
  responseBody: t.Union([t.String({ description: "First 16 KB" }), t.Null()]),
  cycleAttempt: t.Union([t.Integer({ minimum: 1 }), t.Null()], { description: "Number of this attempt in its cycle (1 = first; a redelivery or recovery starts a new cycle); null for attempts logged before it was kept" }),
  redelivery: t.Boolean({ description: "True for the first attempt after a manual redelivery or recovery" }),
});

export const DeliveryDetail = t.Composite([
  DeliverySummary,
  t.Object({
    timestamp: t.Integer({ description: "Envelope timestamp (event time, Unix seconds)" }),
    payload: t.Unknown(),
    attempts: t.Array(Attempt),
  }),
]);

export const RecoverRequest = t.Object(
  { since: t.Union([IsoTime, t.Integer({ minimum: 0, description: "Unix seconds" })], { description: "Re-queue failed deliveries created at or after this time" }) },
  { additionalProperties: false, examples: [{"since": "2026-11-24T00:00:00Z"}] });
export const RecoverResult = t.Object({ requeued: t.Integer() });
export const Requeued = t.Object({ id: t.Integer(), status: DeliveryStatus });
export type DeliverySummary = typeof DeliverySummary.static;
export type DeliveryDetail = typeof DeliveryDetail.static;

export const SubscriptionHealth = t.Object({
  enabled: t.Boolean(),
  disabledReason: t.Union([t.String(), t.Null()]),
  failingSince: t.Union([IsoTime, t.Null()], { description: "First failed attempt since the last success; null while healthy" }),
  lastSuccessAt: NullableIso,
  lastError: t.Union(
    [t.Object({ at: IsoTime, deliveryId: t.Integer(), statusCode: t.Union([t.Integer(), t.Null()]), error: t.String() }), t.Null()],
    { description: "The latest failed attempt while failing" },
  ),
  pending: t.Integer({ description: "Deliveries not yet delivered or dead-lettered" }),
  waitingRetries: t.Integer({ description: "Pending deliveries that failed at least once and wait for their next attempt" }),
  nextRetryAt: t.Union([IsoTime, t.Null()]),
  lastDay: t.Object({
    attempts: t.Integer(),
    succeeded: t.Integer(),
    successRate: t.Union([t.Number({ minimum: 0, maximum: 1 }), t.Null()], { description: "succeeded / attempts over the last 24 h; null without attempts" }),
  }),
});
export type SubscriptionHealth = typeof SubscriptionHealth.static;

export const EventCatalog = t.Object({
  items: t.Array(t.Object({ name: t.String({ examples: ["case.created"] }), trigger: t.String({ description: "When it is sent" }) })),
});
