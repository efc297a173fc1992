// Plain TypeBox, not Elysia's `t`: Elysia's Integer/Boolean also accept numeric/boolean *strings*
// (for query coercion), which would let `{"id": "7"}` onto the wire.
import { Type as t, type Static, type TLiteral, type TSchema } from "@sinclair/typebox";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import { BEHAVIOR, CASE_TYPE, CUSTOM_FIELD_TYPE, PRIORITY, SEVERITY } from "../qase/enums";

/**
 * The outbound event catalog: every event of spec §6.2 with its payload schema (one `t` schema
 * per event), used for validation in `publish`, for the OpenAPI document (`webhooks` section),
 * for the admin `/test` endpoint's example payloads and for the README's event table.
 *
 * Where the spec is ambiguous we chose (and docs/webhooks.md says so):
 * - `shared_step.*` carry `hash` (the examples), not `id`.
 * - `run.started` uses `plan_id` (the field list), not `plan` (the example key); nullable.
 * - `run.updated.cases_added` is an integer count (the example), not an array.
 * - `plan.deleted` is `id` plus an optional `cases` array (one example carries it).
 * - `custom_field.created.value` is an object of selectbox option id → title, `null` for other types.
 * - Strings the spec lists as `string` are never null: absent text is sent as "" (only the
 *   fields the spec marks nullable accept null). Payloads are closed objects: an unknown key is
 *   a programming error, so the wire contract cannot drift silently.
 */

const Id = t.Integer({ minimum: 1 });
const Count = t.Integer({ minimum: 0 });
const Nullable = <T extends TSchema>(s: T) => t.Union([s, t.Null()]);
const closed = { additionalProperties: false } as const;

/** ISO 8601 with microseconds and a Z suffix, as in the spec's example payload. */
const IsoMicros = t.String({ pattern: "^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{6}Z$", examples: ["2026-11-22T03:04:05.123456Z"] });

/** A union of string literals that keeps its literal types (so `Static` is `"a" | "b"`). */
const oneOf = <const V extends readonly string[]>(values: V) =>
  t.Union(values.map((v) => t.Literal(v)) as unknown as { -readonly [K in keyof V]: TLiteral<V[K]> });

// Payloads carry the enum names (§6.3), from the same tables the API's numbers come from.
export const CaseSeverity = oneOf(SEVERITY.names);
export const CasePriority = oneOf(PRIORITY.names);
export const CaseType = oneOf(CASE_TYPE.names);
export const CaseBehavior = oneOf(BEHAVIOR.names);
export const CustomFieldType = oneOf(CUSTOM_FIELD_TYPE.names);

export const CaseStep = t.Object(
  {
    position: t.Integer({ minimum: 1 }),
    action: t.String({ description: "Required unless the step is a shared step; then it repeats the shared step's action." }),
    expected_result: t.String(),
    shared_hash: Nullable(t.String({ description: "Hash of the shared step, null for an own step" })),
    attachments: t.Array(Id),
  },
  closed,
);

export const CaseCustomFieldValue = t.Object({ field_id: t.String(), value: t.String() }, closed);

/** Spec §6.3. */
export const CasePayload = t.Object(
  {
    id: Id,
    position: t.Integer({ minimum: 0 }),
    title: t.String(),
    description: t.String(),
    preconditions: t.String(),
    postconditions: t.String(),
    severity: CaseSeverity,
    priority: CasePriority,
    type: CaseType,
    behavior: CaseBehavior,
    suite_id: Nullable(Id),
    milestone_id: Nullable(Id),
    is_automated: t.Boolean(),
    is_deprecated: t.Boolean(),
    revision: t.Integer({ minimum: 1 }),
    steps: t.Array(CaseStep),
    attachments: t.Array(Id),
    custom_fields: t.Array(CaseCustomFieldValue),
    created: IsoMicros,
    updated: IsoMicros,
  },
  closed,
);

const IdOnly = t.Object({ id: Id }, closed);
const Cloned = t.Object({ id: t.Integer({ minimum: 1, description: "The clone" }), from_id: t.Integer({ minimum: 1, description: "The original" }) }, closed);
const HashOnly = t.Object({ hash: t.String({ minLength: 1 }) }, closed);

type CatalogEntry = { schema: TSchema; trigger: string; example: unknown };

const entry = <S extends TSchema>(trigger: string, schema: S, example: Static<S>) => ({ schema, trigger, example });

const NOW = "2026-11-22T09:15:42.123456Z";

/** Every event: trigger (for docs), payload schema, and a realistic example payload. */
export const EVENTS = {
  "case.created": entry("A test case is created", CasePayload, {
    id: 1042,
    position: 3,
    title: "Login with an expired password asks for a new one",
    description: "Covers the forced password change flow.",
    preconditions: "User alice@example.com exists with a password older than 90 days.",
    postconditions: "",
    severity: "major",
    priority: "high",
    type: "functional",
    behavior: "positive",
    suite_id: 17,
    milestone_id: null,
    is_automated: false,
    is_deprecated: false,
    revision: 1,
    steps: [
      { position: 1, action: "Open the login page", expected_result: "The login form is shown", shared_hash: null, attachments: [] },
      { position: 2, action: "Sign in as alice@example.com", expected_result: "The 'choose a new password' page is shown", shared_hash: null, attachments: [311] },
      { position: 3, action: "Log out", expected_result: "The login page is shown", shared_hash: "5e2b0f8c3a1d4e6f", attachments: [] },
    ],
    attachments: [],
    custom_fields: [{ field_id: "4", value: "Authentication" }],
    created: NOW,
    updated: NOW,
  }),
  "case.updated": entry("A test case is updated (only the id is sent)", IdOnly, { id: 1042 }),
  "case.deleted": entry("A test case is deleted", IdOnly, { id: 1042 }),
  "case.cloned": entry("A test case is cloned", Cloned, { id: 1043, from_id: 1042 }),

  "suite.created": entry(
    "A test suite is created",
    t.Object({ id: Id, title: t.String(), description: t.String(), preconditions: t.String(), parent_id: Nullable(Id) }, closed),
    { id: 17, title: "Authentication", description: "Sign-in, sign-out and password flows", preconditions: "", parent_id: null },
  ),
  "suite.updated": entry("A test suite is updated (only the id is sent)", IdOnly, { id: 17 }),
  "suite.deleted": entry("A test suite is deleted", IdOnly, { id: 17 }),
  "suite.cloned": entry("A test suite is cloned", Cloned, { id: 18, from_id: 17 }),

  "milestone.created": entry(
    "A milestone is created",
    t.Object({ id: Id, title: t.String(), description: t.String() }, closed),
    { id: 5, title: "Release 4.2", description: "Regression pass before the 4.2 release" },
  ),
  "milestone.updated": entry("A milestone is updated", IdOnly, { id: 5 }),
  "milestone.deleted": entry("A milestone is deleted", IdOnly, { id: 5 }),

  "shared_step.created": entry(
    "A shared step is created",
    t.Object({ hash: t.String({ minLength: 1 }), title: t.String(), action: t.String(), expected_result: t.String() }, closed),
    { hash: "5e2b0f8c3a1d4e6f", title: "Log out", action: "Click the avatar, then 'Log out'", expected_result: "The login page is shown" },
  ),
  "shared_step.updated": entry("A shared step is updated", HashOnly, { hash: "5e2b0f8c3a1d4e6f" }),
  "shared_step.deleted": entry("A shared step is deleted", HashOnly, { hash: "5e2b0f8c3a1d4e6f" }),

  "plan.created": entry(
    "A test plan is created",
    t.Object({ id: Id, title: t.String(), description: t.String(), cases: t.Array(Id) }, closed),
    { id: 9, title: "Smoke before deploy", description: "The cases every deploy must pass", cases: [1042, 1043, 1050] },
  ),
  "plan.updated": entry("A test plan is updated", t.Object({ id: Id, cases: t.Array(Id) }, closed), { id: 9, cases: [1042, 1043, 1050, 1051] }),
  "plan.deleted": entry("A test plan is deleted", t.Object({ id: Id, cases: t.Optional(t.Array(Id)) }, closed), { id: 9, cases: [1042, 1043, 1050, 1051] }),

  "run.started": entry(
    "A test run is started",
    t.Object(
      {
        id: Id,
        title: t.String(),
        description: t.String(),
        plan_id: Nullable(Id),
        cases_count: Count,
        environment: Nullable(t.String({ description: "Environment slug" })),
      },
      closed,
    ),
    { id: 301, title: "Nightly regression 2026-11-22", description: "", plan_id: 9, cases_count: 4, environment: "staging" },
  ),
  "run.updated": entry(
    "A test plan is updated and new cases are added to a run",
    t.Object({ id: Id, cases_added: t.Integer({ minimum: 0, description: "Number of cases added" }) }, closed),
    { id: 301, cases_added: 1 },
  ),
  "run.aborted": entry(
    "A test run is aborted",
    t.Object({ id: Id, cases: Count, passed: Count, failed: Count, untested: Count, blocked: Count, duration: t.Integer({ minimum: 0, description: "Seconds" }) }, closed),
    { id: 301, cases: 4, passed: 1, failed: 1, untested: 2, blocked: 0, duration: 754 },
  ),
  "run.completed": entry(
    "A test run is completed",
    t.Object({ id: Id, cases: Count, passed: Count, failed: Count, blocked: Count, duration: t.Integer({ minimum: 0, description: "Seconds" }) }, closed),
    { id: 301, cases: 4, passed: 3, failed: 1, blocked: 0, duration: 1920 },
  ),
  "run.deleted": entry("A test run is deleted", IdOnly, { id: 301 }),
  "run.report_changed": entry(
    "The public report of a run is shown or hidden",
    t.Object({ id: Id, visible: t.Boolean({ description: "True when the public report is available" }) }, closed),
    { id: 301, visible: true },
  ),

  "defect.created": entry(
    "A defect is created",
    t.Object(
      {
        id: Id,
        title: t.String(),
        case_id: t.Integer({ minimum: 0, description: "Case where the error occurred; 0 when the defect names none" }),
        step: t.Integer({ minimum: 0, description: "Step position where it occurred" }),
        actual_result: t.String(),
        attachments: t.Array(Id),
      },
      closed,
    ),
    { id: 77, title: "Password change page does not load", case_id: 1042, step: 2, actual_result: "A blank page with HTTP 500", attachments: [312] },
  ),
  "defect.resolved": entry("A defect is resolved", IdOnly, { id: 77 }),
  "defect.deleted": entry("A defect is deleted", IdOnly, { id: 77 }),

  "custom_field.created": entry(
    "A custom field is created",
    t.Object(
      {
        id: Id,
        title: t.String(),
        isRequired: t.Boolean(),
        isFilterable: t.Boolean(),
        isVisible: t.Boolean(),
        default_value: t.String(),
        value: Nullable(t.Record(t.String(), t.String(), { description: "Selectbox options (option id → title); null for other field types" })),
        type: CustomFieldType,
      },
      closed,
    ),
    { id: 4, title: "Component", isRequired: false, isFilterable: true, isVisible: true, default_value: "", value: { "1": "Authentication", "2": "Billing", "3": "Reports" }, type: "selectbox" },
  ),
  "custom_field.updated": entry("A custom field is updated", IdOnly, { id: 4 }),
  "custom_field.deleted": entry("A custom field is deleted", IdOnly, { id: 4 }),
} satisfies Record<string, CatalogEntry>;

export type EventName = keyof typeof EVENTS;
export const EVENT_NAMES = Object.keys(EVENTS) as EventName[];
/** Payload type of one event, e.g. `EventPayload<"case.created">`. */
export type EventPayload<E extends EventName> = Static<(typeof EVENTS)[E]["schema"]>;

/** Schema per event (the map the issue asks for). */
export const EVENT_SCHEMAS = Object.fromEntries(EVENT_NAMES.map((n) => [n, EVENTS[n].schema])) as { [E in EventName]: (typeof EVENTS)[E]["schema"] };

export function isEventName(name: string): name is EventName {
  return Object.hasOwn(EVENTS, name);
}

const checkers = new Map<EventName, TypeCheck<TSchema>>();
function checker(name: EventName): TypeCheck<TSchema> {
  let c = checkers.get(name);
  if (!c) checkers.set(name, (c = TypeCompiler.Compile(EVENTS[name].schema)));
  return c;
}

/** Thrown by `publish` for an unknown event or a payload that does not match its schema: a programming error. */
export class InvalidEventError extends Error {}

/** Validates a payload against its event schema; throws `InvalidEventError` naming the first problem. */
export function assertValidPayload(event: string, payload: unknown): asserts event is EventName {
  if (!isEventName(event)) throw new InvalidEventError(`unknown webhook event "${event}"`);
  const c = checker(event);
  if (!c.Check(payload)) {
    const first = c.Errors(payload).First();
    throw new InvalidEventError(`invalid payload for ${event}: ${first ? `${first.path || "/"} ${first.message}` : "does not match the schema"}`);
  }
}

/** The envelope every subscriber receives, exactly (spec §6.1 + PRODUCT.md). */
export const Envelope = t.Object(
  {
    event: t.String({ description: "Event name" }),
    timestamp: t.Integer({ description: "When the event was committed, Unix seconds" }),
    payload: t.Object({}, { additionalProperties: true }),
  },
  closed,
);

/** `2026-11-22T09:15:42.123456Z`: the spec's ISO 8601 with microseconds, for case `created`/`updated`. */
export function isoMicros(d: Date | number): string {
  const iso = new Date(d).toISOString(); // millisecond precision
  return iso.replace(/\.(\d{3})Z$/, ".$1000Z");
}

/**
 * The OpenAPI 3.1 `webhooks` section: one POST per event with its envelope, so integrators see the
 * outbound contract next to the inbound API. Merged into the document by the OpenAPI plugin setup.
 */
export function openApiWebhooks(): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of EVENT_NAMES) {
    const e = EVENTS[name];
    out[name] = {
      post: {
        summary: e.trigger,
        operationId: `event:${name}`,
        tags: ["Webhook events"],
        // subscribers authenticate Gatehouse by the signature headers, not by a credential
        security: [],
        parameters: [
          { name: "webhook-id", in: "header", required: true, schema: { type: "string" }, description: "Stable across retries; dedupe on it" },
          { name: "webhook-timestamp", in: "header", required: true, schema: { type: "integer" }, description: "Unix seconds of this attempt" },
          { name: "webhook-signature", in: "header", required: true, schema: { type: "string" }, description: "Space-separated `v1,<base64 HMAC-SHA256>` (two during a secret rotation)" },
        ],
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: {
                type: "object",
                additionalProperties: false,
                required: ["event", "timestamp", "payload"],
                properties: { event: { type: "string", const: name }, timestamp: { type: "integer" }, payload: e.schema },
              },
              example: { event: name, timestamp: 1795338942, payload: e.example },
            },
          },
        },
        responses: { "2XX": { description: "Delivered. Anything else (including 3xx) is retried; 410 disables the subscription." } },
      },
    };
  }
  return out;
}
