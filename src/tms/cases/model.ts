import { t } from "elysia";
import { CustomFieldValues } from "../custom-fields/model";
import { FilterText } from "../shared/list-filters";
import { Limit, Offset } from "../shared/envelope";
import { AttachmentIds, Opt } from "../shared/envelope";
import { AUTOMATION, BEHAVIOR, CASE_STATUS, CASE_TYPE, enumLegend, IS_FLAKY, LAYER, PRIORITY, SEVERITY } from "../../qase/enums";
import { EnumInput, EnumNumber } from "../shared/enum-schemas";
import { AuthorId, EntityNumber, Nullable, Tags, Timestamp } from "../shared/envelope";
import { ParameterValues, SHARED_PARAMETER_LIMITS, UUID_PATTERN } from "../shared-parameters/model";

/**
 * Qase `TestCaseParameterCreate`, one of three forms: `{shared_id}` (a shared parameter usable in
 * the project), `{items}` (a group) or `{title, values}` (a single parameter). One object with
 * the forms' fields rather than a union, so that a bad value is named where it is
 * (`parameters.2.values.0`), not as "no variant matched"; src/tms/cases/parameters.ts picks the
 * form and checks the rest.
 */
const CaseParameterInput = t.Object({
  shared_id: t.Optional(t.String({ pattern: UUID_PATTERN, description: "UUID of a shared parameter usable in the project" })),
  items: t.Optional(t.Array(ParameterValues, { minItems: 2, maxItems: SHARED_PARAMETER_LIMITS.parametersInGroup, description: "A group: two or more parameters whose values go together by position" })),
  title: t.Optional(ParameterValues.properties.title),
  values: t.Optional(ParameterValues.properties.values),
}, { description: "One of: {shared_id}, {items}, {title, values}" });
/** Qase `TestCaseParameter`: `shared_id` is null for a parameter kept in the case. */
const ParameterValuesView = t.Object({ title: t.String(), values: t.Array(t.String()) });
const SharedId = Nullable(t.String({ format: "uuid" }));
export const CaseParameterView = t.Union([
  t.Object({ shared_id: SharedId, type: t.Literal("single"), item: ParameterValuesView }),
  t.Object({ shared_id: SharedId, type: t.Literal("group"), items: t.Array(ParameterValuesView) }),
]);

/** Qase `TestStepCreate`: either an `action` or `shared` (a shared step hash). */
export const StepInput = t.Object({
  action: Opt(t.String({ maxLength: 10000 })),
  shared: Opt(t.String({ maxLength: 128, description: "Hash of a shared step of the same project" })),
  expected_result: Opt(t.String({ maxLength: 10000 })),
  data: Opt(t.String({ maxLength: 10000 })),
  position: Opt(t.Integer({ minimum: 1 })),
  attachments: AttachmentIds,
  // Declared so a nested list reaches the service and is refused (400) instead of being stripped.
  steps: Opt(t.Array(t.Unknown(), { description: "Nested steps (Qase's TestStepCreate.steps): not supported, a non-empty list is answered 400" })),
});

/** A flag Qase's clients send as a boolean or as 0/1 (@qase/mcp-server's automation mapping sends numbers). */
const ZeroOrOne = (description: string) => t.Union([t.Boolean(), t.Integer({ minimum: 0, maximum: 1 })], { description });

const caseFields = {
  description: Opt(t.String({ maxLength: 100000 })),
  preconditions: Opt(t.String({ maxLength: 100000 })),
  postconditions: Opt(t.String({ maxLength: 100000 })),
  severity: Opt(EnumInput(SEVERITY)),
  priority: Opt(EnumInput(PRIORITY)),
  behavior: Opt(EnumInput(BEHAVIOR)),
  type: Opt(EnumInput(CASE_TYPE)),
  layer: Opt(EnumInput(LAYER)),
  is_flaky: Opt(ZeroOrOne("0 or 1 (Qase), or a boolean")),
  suite_id: Opt(EntityNumber("suite")),
  milestone_id: Opt(EntityNumber("milestone")),
  automation: Opt(EnumInput(AUTOMATION)),
  isManual: Opt(ZeroOrOne("A boolean, or 0/1 as @qase/mcp-server sends it")),
  isToBeAutomated: Opt(ZeroOrOne("A boolean, or 0/1 as @qase/mcp-server sends it")),
  is_automated: Opt(t.Boolean()),
  is_deprecated: Opt(t.Boolean()),
  status: Opt(EnumInput(CASE_STATUS)),
  steps_type: Opt(t.Union([t.Literal("classic"), t.Literal("gherkin")])),
  attachments: AttachmentIds,
  steps: Opt(t.Array(StepInput, { maxItems: 500 })),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  params: Opt(t.Any()),
  parameters: Opt(t.Array(CaseParameterInput, { maxItems: 20, description: "Replaces the case's parameters (an empty array removes them)" })),
  custom_field: Opt(t.Record(t.String(), t.String({ maxLength: 10000 }), { description: "Custom field values keyed by field id" })),
  created_at: Opt(t.String()),
  updated_at: Opt(t.String()),
};

/** Qase `TestCaseCreate`. Enum fields take Qase's numbers (what the Qase clients send) or the names. */
export const CaseCreate = t.Object({ title: t.String({ minLength: 1, maxLength: 255 }), ...caseFields }, { examples: [{"title": "Apply a coupon at checkout", "severity": 3, "priority": 1, "type": 8, "suite_id": 1, "steps": [{"action": "Add an item and enter coupon SAVE10", "expected_result": "The total drops by 10%"}], "tags": ["checkout"]}] });
export const CaseUpdate = t.Object({ title: t.Optional(t.String({ minLength: 1, maxLength: 255 })), ...caseFields }, { examples: [{"priority": 2, "is_flaky": 0}] });
export const CaseBulkCreate = t.Object({ cases: t.Array(CaseCreate, { minItems: 1, maxItems: 1000 }) }, { examples: [{"cases": [{"title": "Apply a coupon at checkout", "severity": 3, "priority": 1, "suite_id": 1, "steps": [{"action": "Add an item and enter coupon SAVE10", "expected_result": "The total drops by 10%"}], "tags": ["checkout"]}, {"title": "Remove a coupon"}]}] });
/** Gatehouse extension (Qase has no clone endpoint): copy a case, optionally into another suite / under a new title. */
export const CaseClone = t.Object({
  suite_id: Opt(EntityNumber("suite")),
  title: Opt(t.String({ minLength: 1, maxLength: 255 })),
}, { examples: [{"suite_id": 2, "title": "Apply a coupon at checkout (mobile)"}] });
/** The trackers Qase's case list filters by (`external_issues[type]`). */
export const EXTERNAL_ISSUE_TYPES = ["asana", "azure-devops", "clickup-app", "github-app", "gitlab-app", "jira-cloud", "jira-server", "linear", "monday", "redmine-app", "trello-app", "youtrack-app"] as const;

export const CaseListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  search: t.Optional(t.String({ maxLength: 255 })),
  suite_id: t.Optional(t.Integer({ description: "Number of a suite within the project" })),
  milestone_id: t.Optional(t.Integer({ description: "Number of a milestone within the project" })),
  severity: t.Optional(t.String({ maxLength: 200, description: `Comma-separated names or numbers: ${enumLegend(SEVERITY)}` })),
  priority: t.Optional(t.String({ maxLength: 200, description: `Comma-separated names or numbers: ${enumLegend(PRIORITY)}` })),
  type: t.Optional(t.String({ maxLength: 200, description: `Comma-separated names or numbers: ${enumLegend(CASE_TYPE)}` })),
  behavior: t.Optional(t.String({ maxLength: 200, description: `Comma-separated names or numbers: ${enumLegend(BEHAVIOR)}` })),
  automation: t.Optional(t.String({ maxLength: 200, description: `Comma-separated: is-not-automated, to-be-automated, automated (Qase's words), or ${enumLegend(AUTOMATION)}` })),
  status: t.Optional(t.String({ maxLength: 200, description: `Comma-separated names or numbers: ${enumLegend(CASE_STATUS)}` })),
  "external_issues[type]": FilterText(`Cases linked to an issue of this tracker: ${EXTERNAL_ISSUE_TYPES.join(", ")}`),
  "external_issues[ids][]": t.Optional(t.Union([t.String({ maxLength: 2000 }), t.Array(t.String({ maxLength: 2000 }), { maxItems: 100 })], {
    description: "Cases linked to one of these issue ids (repeated, or comma-separated); with `external_issues[type]`, of that tracker",
  })),
  include: FilterText("external_issues: each case's linked external issues"),
});
/** `GET /case/{code}/{id}?include=`: Qase's only part is `external_issues`. */
export const CaseGetQuery = t.Object({ include: FilterText("external_issues: the case's linked external issues") });

/** Qase `TestCaseExternalIssues`: link (attach) or unlink (detach) cases and issues of a Jira integration. */
export const CaseExternalIssues = t.Object({
  type: t.Union([t.Literal("jira-cloud"), t.Literal("jira-server")]),
  links: t.Array(t.Object({
    case_id: EntityNumber("test case"),
    external_issues: t.Array(t.String({ minLength: 1, maxLength: 255, description: "An issue id in the tracker, e.g. SHOP-42" }), { maxItems: 100 }),
  }), { minItems: 1, maxItems: 100 }),
}, { examples: [{ type: "jira-cloud", links: [{ case_id: 1, external_issues: ["SHOP-42", "SHOP-43"] }] }] });
export type CaseExternalIssuesBody = typeof CaseExternalIssues.static;

/** Qase `ExternalIssue`: a tracker and the case's issues in it (`link` only when the id is itself an address). */
export const ExternalIssueView = t.Object({
  type: t.String(),
  issues: t.Array(t.Object({ id: t.String(), link: t.Optional(t.String()) })),
});
export type CaseCreateBody = typeof CaseCreate.static;
export type CaseUpdateBody = typeof CaseUpdate.static;
export type CaseCloneBody = typeof CaseClone.static;

const CaseAuthor = t.Object({ id: t.Integer(), name: t.String(), email: t.String(), active: t.Boolean() });

/**
 * The API view of a case (`caseView`): the case.created payload fields plus what Qase clients
 * read, with the enums as the numbers `qase-api-client`'s TestCase declares (the webhook payload
 * keeps the names).
 */
export const CaseView = t.Object({
  id: EntityNumber("test case"),
  position: t.Integer(),
  title: t.String(),
  description: t.String(),
  preconditions: t.String(),
  postconditions: t.String(),
  severity: EnumNumber(SEVERITY),
  priority: EnumNumber(PRIORITY),
  type: EnumNumber(CASE_TYPE),
  behavior: EnumNumber(BEHAVIOR),
  suite_id: Nullable(EntityNumber("suite")),
  milestone_id: Nullable(EntityNumber("milestone")),
  automation: EnumNumber(AUTOMATION),
  isManual: t.Boolean({ description: "automation 0 or 1" }),
  isToBeAutomated: t.Boolean({ description: "automation 1" }),
  is_automated: t.Boolean({ description: "automation 2 (the webhook payload's field)" }),
  is_deprecated: t.Boolean({ description: "status 2 (the webhook payload's field)" }),
  revision: t.Integer(),
  steps: t.Array(t.Object({
    position: t.Integer(), action: t.String(), expected_result: t.String(), data: t.String(),
    shared_hash: Nullable(t.String()), shared_step_hash: Nullable(t.String()), attachments: t.Array(t.Integer()),
  })),
  attachments: t.Array(t.Integer()),
  custom_fields: CustomFieldValues,
  created: Timestamp,
  updated: Timestamp,
  layer: EnumNumber(LAYER),
  is_flaky: EnumNumber(IS_FLAKY),
  status: EnumNumber(CASE_STATUS),
  tags: Tags,
  params: t.Record(t.String(), t.Array(t.String()), { description: "Parameter names and the values seen (Qase params)" }),
  parameters: t.Array(CaseParameterView),
  author_id: AuthorId,
  author: Nullable(CaseAuthor),
  created_at: Timestamp,
  updated_at: Timestamp,
  external_issues: t.Optional(t.Array(ExternalIssueView, { description: "With include=external_issues" })),
});
