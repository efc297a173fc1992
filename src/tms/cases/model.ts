import { t } from "elysia";
import { Limit, Offset } from "../shared/envelope";
import { AttachmentIds, Opt } from "../shared/envelope";
import { BEHAVIORS, CASE_STATUSES, EnumInput, LAYERS, PRIORITIES, SEVERITIES, TYPES } from "../shared/enums";
import { AuthorId, Nullable, Tags, Timestamp } from "../shared/envelope";

type Named<T> = readonly [Exclude<T, null>, ...Exclude<T, null>[]];
const CASE_TYPES = TYPES.filter((x) => x !== null) as unknown as Named<(typeof TYPES)[number]>;
const CASE_BEHAVIORS = BEHAVIORS.filter((x) => x !== null) as unknown as Named<(typeof BEHAVIORS)[number]>;

/** Qase `TestStepCreate`: either an `action` or `shared` (a shared step hash). */
export const StepInput = t.Object({
  action: Opt(t.String({ maxLength: 10000 })),
  shared: Opt(t.String({ maxLength: 128, description: "Hash of a shared step of the same project" })),
  expected_result: Opt(t.String({ maxLength: 10000 })),
  data: Opt(t.String({ maxLength: 10000 })),
  position: Opt(t.Integer({ minimum: 1 })),
  attachments: AttachmentIds,
});

const caseFields = {
  description: Opt(t.String({ maxLength: 100000 })),
  preconditions: Opt(t.String({ maxLength: 100000 })),
  postconditions: Opt(t.String({ maxLength: 100000 })),
  severity: Opt(EnumInput),
  priority: Opt(EnumInput),
  behavior: Opt(EnumInput),
  type: Opt(EnumInput),
  layer: Opt(EnumInput),
  is_flaky: Opt(t.Union([t.Integer({ minimum: 0, maximum: 1 }), t.Boolean()])),
  suite_id: Opt(t.Integer({ minimum: 1 })),
  milestone_id: Opt(t.Integer({ minimum: 1 })),
  automation: Opt(t.Integer({ minimum: 0, maximum: 2, description: "0 manual, 1 to be automated, 2 automated" })),
  isManual: Opt(t.Boolean()),
  isToBeAutomated: Opt(t.Boolean()),
  is_automated: Opt(t.Boolean()),
  is_deprecated: Opt(t.Boolean()),
  status: Opt(EnumInput),
  steps_type: Opt(t.Union([t.Literal("classic"), t.Literal("gherkin")])),
  attachments: AttachmentIds,
  steps: Opt(t.Array(StepInput, { maxItems: 500 })),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  params: Opt(t.Any()),
  parameters: Opt(t.Any()),
  custom_field: Opt(t.Record(t.String(), t.String({ maxLength: 10000 }), { description: "Custom field values keyed by field id" })),
  created_at: Opt(t.String()),
  updated_at: Opt(t.String()),
};

/** Qase `TestCaseCreate`. Enum fields take Qase's numbers or the §6.3 names. */
export const CaseCreate = t.Object({ title: t.String({ minLength: 1, maxLength: 255 }), ...caseFields }, { examples: [{"title": "Apply a coupon at checkout", "severity": "major", "priority": "high", "suite_id": 1, "steps": [{"action": "Add an item and enter coupon SAVE10", "expected_result": "The total drops by 10%"}], "tags": ["checkout"]}] });
export const CaseUpdate = t.Object({ title: t.Optional(t.String({ minLength: 1, maxLength: 255 })), ...caseFields }, { examples: [{"priority": "medium", "is_flaky": false}] });
export const CaseBulkCreate = t.Object({ cases: t.Array(CaseCreate, { minItems: 1, maxItems: 1000 }) }, { examples: [{"cases": [{"title": "Apply a coupon at checkout", "severity": "major", "priority": "high", "suite_id": 1, "steps": [{"action": "Add an item and enter coupon SAVE10", "expected_result": "The total drops by 10%"}], "tags": ["checkout"]}, {"title": "Remove a coupon"}]}] });
/** Gatehouse extension (Qase has no clone endpoint): copy a case, optionally into another suite / under a new title. */
export const CaseClone = t.Object({
  suite_id: Opt(t.Integer({ minimum: 1 })),
  title: Opt(t.String({ minLength: 1, maxLength: 255 })),
}, { examples: [{"suite_id": 2, "title": "Apply a coupon at checkout (mobile)"}] });
export const CaseListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  search: t.Optional(t.String({ maxLength: 255 })),
  suite_id: t.Optional(t.Numeric()),
  milestone_id: t.Optional(t.Numeric()),
  severity: t.Optional(t.String({ maxLength: 200, description: "Comma-separated names or Qase numbers" })),
  priority: t.Optional(t.String({ maxLength: 200, description: "Comma-separated names or Qase numbers" })),
  type: t.Optional(t.String({ maxLength: 200, description: "Comma-separated names or Qase numbers" })),
  behavior: t.Optional(t.String({ maxLength: 200, description: "Comma-separated names or Qase numbers" })),
  automation: t.Optional(t.String({ maxLength: 200, description: "is-not-automated, automated, to-be-automated (comma-separated)" })),
  status: t.Optional(t.String({ maxLength: 200, description: "actual, draft, deprecated (comma-separated)" })),
});
export type CaseCreateBody = typeof CaseCreate.static;
export type CaseUpdateBody = typeof CaseUpdate.static;
export type CaseCloneBody = typeof CaseClone.static;

const CaseAuthor = t.Object({ id: t.Integer(), name: t.String(), email: t.String(), active: t.Boolean() });

/** The API view of a case (`caseView`): the case.created payload fields plus what Qase clients read. */
export const CaseView = t.Object({
  id: t.Integer(),
  position: t.Integer(),
  title: t.String(),
  description: t.String(),
  preconditions: t.String(),
  postconditions: t.String(),
  severity: t.UnionEnum(SEVERITIES),
  priority: t.UnionEnum(PRIORITIES),
  type: t.UnionEnum(CASE_TYPES),
  behavior: t.UnionEnum(CASE_BEHAVIORS),
  suite_id: Nullable(t.Integer()),
  milestone_id: Nullable(t.Integer()),
  is_automated: t.Boolean(),
  is_deprecated: t.Boolean(),
  revision: t.Integer(),
  steps: t.Array(t.Object({
    position: t.Integer(), action: t.String(), expected_result: t.String(), data: t.String(),
    shared_hash: Nullable(t.String()), shared_step_hash: Nullable(t.String()), attachments: t.Array(t.Integer()),
  })),
  attachments: t.Array(t.Integer()),
  custom_fields: t.Array(t.Object({ id: t.Integer(), value: t.String() })),
  created: Timestamp,
  updated: Timestamp,
  layer: t.UnionEnum(LAYERS),
  is_flaky: t.Boolean(),
  status: t.UnionEnum(CASE_STATUSES),
  tags: Tags,
  params: t.Record(t.String(), t.Array(t.String()), { description: "Parameter names and the values seen (Qase params)" }),
  author_id: AuthorId,
  author: Nullable(CaseAuthor),
  created_at: Timestamp,
  updated_at: Timestamp,
});
