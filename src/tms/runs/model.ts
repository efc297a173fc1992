import { t } from "elysia";
import { NumericIdBounds } from "../../http/paging";
import { CustomFieldValues } from "../custom-fields/model";
import { FilterText } from "../shared/list-filters";
import { Limit, Offset } from "../shared/envelope";
import { AttachmentIds, AuthorId, EntityNumber, EntityNumbers, Nullable, Opt, Tags, Timestamp } from "../shared/envelope";
import { EnumSlug, EnumNumber } from "../shared/enum-schemas";
import { enumLegend, RESULT_STATUS, RUN_STATUS } from "../../qase/enums";

const CaseIds = EntityNumbers("test cases", 10000);

/** Qase `RunCreate`. Cases come from `plan_id`, `cases` and/or `include_all_cases` (union). */
export const RunCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 100000 })),
  include_all_cases: Opt(t.Boolean()),
  cases: Opt(CaseIds),
  is_autotest: Opt(t.Boolean()),
  environment_id: Opt(t.Integer({ minimum: 1, description: "An environment of the project" })),
  environment_slug: Opt(t.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$", description: "Environment slug, e.g. \"staging\" (links the environment with that slug, if any)" })),
  milestone_id: Opt(EntityNumber("milestone")),
  plan_id: Opt(EntityNumber("test plan")),
  author_id: Opt(t.Integer()),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  configurations: Opt(t.Array(t.Integer({ minimum: 1 }), { maxItems: 100, description: "Configuration ids of the project" })),
  custom_field: Opt(t.Record(t.String(), t.String())),
  start_time: Opt(t.String()),
  end_time: Opt(t.String()),
  is_cloud: Opt(t.Boolean()),
  cloud_run_config: Opt(t.Any()),
}, { examples: [{"title": "Nightly", "plan_id": 1, "environment_slug": "staging", "is_autotest": true}] });
export type RunCreateBody = typeof RunCreate.static;

/** Qase `Runupdate`: what a run's PATCH may change (a field absent or `null` is left as it is). */
export const RunUpdate = t.Object({
  title: Opt(t.String({ minLength: 1, maxLength: 255 })),
  description: Opt(t.String({ maxLength: 100000 })),
  environment_id: RunCreate.properties.environment_id,
  environment_slug: RunCreate.properties.environment_slug,
  milestone_id: Opt(EntityNumber("milestone")),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  configurations: RunCreate.properties.configurations,
  custom_field: Opt(t.Record(t.String(), t.String())),
}, { examples: [{ title: "Nightly (rerun)", tags: ["nightly"] }] });
export type RunUpdateBody = typeof RunUpdate.static;


/** Qase `RunExternalIssues`: link runs to issues in Jira (an empty `external_issue` unlinks). */
export const RunExternalIssues = t.Object({
  type: t.Union([t.Literal("jira-cloud"), t.Literal("jira-server")]),
  links: t.Array(t.Object({ run_id: EntityNumber("test run"), external_issue: Opt(t.String({ maxLength: 2000 })) }), { minItems: 1, maxItems: 100 }),
}, { examples: [{ type: "jira-cloud", links: [{ run_id: 1, external_issue: "https://example.atlassian.net/browse/SHOP-42" }] }] });
export type RunExternalIssuesBody = typeof RunExternalIssues.static;

/** Qase `RunPublic`. */
export const RunPublic = t.Object({ status: t.Boolean({ description: "true makes the public report available" }) }, { examples: [{"status": true}] });

export const RunListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  search: FilterText("Part of the title (case-insensitive)"),
  status: t.Optional(t.String({ maxLength: 200, description: `Comma-separated: Qase's words \`in_progress\`, \`passed\`, \`failed\` (completed runs by outcome), \`aborted\`; or a status name or number: ${enumLegend(RUN_STATUS)}` })),
  milestone: FilterText("Number of a milestone within the project"),
  environment: FilterText("Id of an environment of the project"),
  from_start_time: FilterText("Runs started at or after: Unix seconds (or YYYY-MM-DD HH:MM:SS, UTC)"),
  to_start_time: FilterText("Runs started at or before: Unix seconds (or YYYY-MM-DD HH:MM:SS, UTC)"),
  include: FilterText("`cases` (always answered)"),
});
/** `GET /run/{code}/{id}?include=cases`: the cases are always answered. */
export const RunGetQuery = t.Object({ include: FilterText("`cases` (always answered)") });
export type RunListFilters = Omit<typeof RunListQuery.static, "limit" | "offset">;

/** `GET /result/{code}` filters as qase-api-client's ResultsApi.getResults sends them. */
export const ResultListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  status: FilterText(`Comma-separated result statuses: ${enumLegend(RESULT_STATUS)}`),
  run: FilterText("Comma-separated numbers of test runs within the project"),
  case_id: FilterText("Comma-separated numbers of test cases within the project"),
  member: FilterText("Comma-separated ids of the users who recorded the results"),
  api: FilterText("true: results recorded through the API (all of them here); false: none"),
  from_end_time: FilterText("Results recorded at or after: YYYY-MM-DD HH:MM:SS (UTC) or Unix seconds"),
  to_end_time: FilterText("Results recorded at or before: YYYY-MM-DD HH:MM:SS (UTC) or Unix seconds"),
});
export type ResultListFilters = Omit<typeof ResultListQuery.static, "limit" | "offset">;

const StatusInput = t.String({ minLength: 1, maxLength: 32, description: `${RESULT_STATUS.names.join(", ")} (any case)` });

const StepResult = t.Object({
  position: Opt(t.Integer({ minimum: 1 })),
  status: t.Union([StatusInput, t.Integer()], { description: `The name or Qase's number: ${enumLegend(RESULT_STATUS)}` }),
  comment: Opt(t.String({ maxLength: 100000 })),
  action: Opt(t.String()),
  expected_result: Opt(t.String()),
  data: Opt(t.String()),
  attachments: AttachmentIds,
  steps: Opt(t.Any()),
});

/** Qase v1 `ResultCreate`. `case` (a title) instead of `case_id` finds or creates the case. */
export const ResultCreate = t.Object({
  status: StatusInput,
  case_id: Opt(EntityNumber("test case")),
  case: Opt(t.Object({ title: Opt(t.String({ minLength: 1, maxLength: 255 })), suite_title: Opt(t.String()), description: Opt(t.String()), preconditions: Opt(t.String()), postconditions: Opt(t.String()), layer: Opt(t.String()), severity: Opt(t.String()), priority: Opt(t.String()) })),
  start_time: Opt(t.Number()),
  time: Opt(t.Number({ minimum: 0 })),
  time_ms: Opt(t.Number({ minimum: 0 })),
  defect: Opt(t.Boolean({ description: "With a failed status, also create a defect from this result" })),
  attachments: AttachmentIds,
  stacktrace: Opt(t.String({ maxLength: 1000000 })),
  comment: Opt(t.String({ maxLength: 100000 })),
  param: Opt(t.Record(t.String(), t.String())),
  param_groups: Opt(t.Any()),
  steps: Opt(t.Array(StepResult, { maxItems: 500 })),
  author_id: Opt(t.Integer()),
}, { examples: [{"case_id": 1, "status": "failed", "time_ms": 1830, "comment": "Total stayed 40.00", "defect": true}] });
export const ResultCreateBulk = t.Object({ results: t.Array(ResultCreate, { minItems: 1, maxItems: 2000 }) }, { examples: [{"results": [{"case_id": 1, "status": "failed", "time_ms": 1830, "comment": "Total stayed 40.00", "defect": true}, {"case_id": 2, "status": "passed", "time_ms": 920}]}] });
export type ResultCreateBody = typeof ResultCreate.static;

/**
 * Qase v2 `ResultStep`. Sub-steps (`steps`) have this same shape; they are checked one level at a
 * time when the result is read (src/tms/runs/reporter.ts), so the schema stays non-recursive.
 */
export const V2Step = t.Object({
  data: Opt(t.Object({ action: Opt(t.String({ maxLength: 10000 })), expected_result: Opt(t.String({ maxLength: 10000 })), input_data: Opt(t.String({ maxLength: 10000 })), attachments: AttachmentIds })),
  execution: Opt(t.Object({ status: Opt(StatusInput), start_time: Opt(t.Number()), end_time: Opt(t.Number()), duration: Opt(t.Number()), comment: Opt(t.String({ maxLength: 100000 })), attachments: AttachmentIds })),
  steps: Opt(t.Array(t.Any(), { maxItems: 500 })),
});
export type V2StepBody = typeof V2Step.static;
export const V2ResultCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  execution: t.Object({
    status: StatusInput,
    start_time: Opt(t.Number()),
    end_time: Opt(t.Number()),
    duration: Opt(t.Number({ minimum: 0, description: "milliseconds" })),
    stacktrace: Opt(t.String({ maxLength: 1000000 })),
    error_context: Opt(t.String()),
    thread: Opt(t.String()),
  }),
  id: Opt(t.String({ maxLength: 128, description: "Idempotency key: a result already stored under this id in the run is not stored again" })),
  signature: Opt(t.String({ maxLength: 2000, description: "What an unlinked result is matched to its case by (suite path + title + parameters)" })),
  testops_id: Opt(EntityNumber("test case")),
  testops_ids: Opt(EntityNumbers("test cases", 100)),
  fields: Opt(t.Record(t.String(), t.Any(), { description: "Case fields (severity, priority, description, preconditions…) for a case this result creates" })),
  attachments: AttachmentIds,
  steps: Opt(t.Array(V2Step, { maxItems: 500 })),
  steps_type: Opt(t.String()),
  params: Opt(t.Record(t.String(), t.String())),
  param_groups: Opt(t.Any()),
  relations: Opt(t.Any()),
  message: Opt(t.String({ maxLength: 100000 })),
  defect: Opt(t.Boolean()),
}, { examples: [{"title": "Apply a coupon at checkout", "testops_id": 1, "execution": {"status": "passed", "start_time": 1764072000, "end_time": 1764072002, "duration": 1830}, "steps": []}] });
export type V2ResultCreateBody = typeof V2ResultCreate.static;
/**
 * Bulk v2 results. Each item has the `V2ResultCreate` shape and is checked on its own: a bad item
 * is reported in the answer and the others are stored (a reporter does not retry a 400, so
 * rejecting the batch would lose it).
 */
export const V2ResultsCreate = t.Object({
  results: t.Array(t.Unknown({ description: "A V2ResultCreate (see POST /v2/{code}/run/{id}/result)" }), { minItems: 1, maxItems: 2000 }),
}, { examples: [{ results: [{ title: "Apply a coupon at checkout", testops_id: 1, execution: { status: "passed", start_time: 1764072000, end_time: 1764072002, duration: 1830 }, steps: [] }] }] });
const StoredResultView = t.Object({ case_id: EntityNumber("test case"), hash: t.String(), unlinked_reason: t.Union([t.String(), t.Null()]), duplicate: t.Boolean() });
const ItemProblem = t.Object({ index: t.Integer(), field: t.Optional(t.String()), message: t.String() });
export const V2ResultCreated = t.Object({
  status: t.Boolean(),
  result: t.Object({ case_id: EntityNumber("test case"), hash: t.String(), unlinked_reason: t.Union([t.String(), t.Null()]), duplicate: t.Boolean(), warnings: t.Array(ItemProblem) }),
});
export const V2ResultsCreated = t.Object({
  status: t.Boolean(),
  result: t.Object({
    stored: t.Integer({ description: "Results stored by this request (a duplicate of a stored `id` is not counted)" }),
    results: t.Array(t.Composite([t.Object({ index: t.Integer({ description: "The item's position in the request" }) }), StoredResultView]), { description: "Each stored result (a duplicate of a stored `id` too), in request order; an item naming several cases (`testops_ids`) has one per case, under the same `index`" }),
    errors: t.Array(ItemProblem, { description: "Items not stored, and why" }),
    warnings: t.Array(ItemProblem, { description: "Stored items with something ignored (an unknown case field…)" }),
  }),
});
export const RunIdParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), id: t.Integer({ ...NumericIdBounds, description: "Number of the test run within the project" }) });
export const V2RunParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), runId: t.Integer({ ...NumericIdBounds, description: "Number of the test run within the project" }) });

const per = t.Integer({ minimum: 0 });
export const RunView = t.Object({
  id: EntityNumber("test run"),
  run_id: EntityNumber("test run"),
  title: t.String(),
  description: t.String(),
  status: EnumNumber(RUN_STATUS),
  status_text: t.UnionEnum(["in_progress", "passed", "failed", "aborted"], { description: "Qase's run status: in_progress while active; a completed run is passed, or failed when any case's latest result is failed, blocked or invalid; aborted" }),
  start_time: Timestamp,
  end_time: Nullable(Timestamp),
  public: t.Boolean(),
  public_url: Nullable(t.String()),
  stats: t.Object({
    total: per, statuses: t.Object({}), untested: per, passed: per, failed: per, blocked: per,
    skipped: per, retest: per, in_progress: per, invalid: per,
  }),
  time_spent: t.Integer({ description: "Milliseconds, the sum of the results' times" }),
  elapsed_time: t.Integer({ description: "Seconds from start to end (or now)" }),
  environment: Nullable(t.Object({
    id: Nullable(t.Integer({ description: "null for a free-form slug" })), slug: t.String(), title: t.String(), description: t.String(), host: t.String(),
  })),
  configurations: t.Array(t.Integer(), { description: "Configuration ids" }),
  external_issue: Nullable(t.Object({ id: t.String(), type: t.String(), link: t.String() })),
  milestone: Nullable(t.Object({ id: EntityNumber("milestone"), title: t.String(), description: Nullable(t.String()) }, { description: "Qase's RunMilestone (title, description), with the milestone's number" })),
  milestone_id: Nullable(EntityNumber("milestone")),
  plan_id: Nullable(EntityNumber("test plan")),
  cases: t.Array(EntityNumber("test case")),
  tags: Tags,
  is_autotest: t.Boolean(),
  author_id: AuthorId,
  custom_fields: CustomFieldValues,
});

export const ResultView = t.Object({
  hash: t.String(),
  run_id: EntityNumber("test run"),
  case_id: EntityNumber("test case"),
  status: EnumSlug(RESULT_STATUS),
  time_spent_ms: Nullable(t.Integer()),
  comment: Nullable(t.String()),
  stacktrace: Nullable(t.String()),
  steps: t.Array(t.Object({
    position: t.Integer(), status: EnumNumber(RESULT_STATUS), comment: Nullable(t.String()), action: t.String(), expected_result: Nullable(t.String()),
    data: Nullable(t.String()), attachments: t.Array(t.Integer()), steps: t.Array(t.Unknown({ description: "Sub-steps, of this same shape" })),
  })),
  attachments: t.Array(t.Integer()),
  param: t.Record(t.String(), t.String()),
  author_id: AuthorId,
  end_time: Timestamp,
  id: Nullable(t.String({ description: "The reporter's own result id (the idempotency key), when it sent one" })),
  unlinked_reason: Nullable(t.String({ description: "Why the result is not linked to the case the reporter named, when it is not" })),
});

/** PATCH /run/{code}/{id}/public: the report URL when shown, nothing when hidden. */
export const RunPublicResult = t.Object({ url: t.Optional(t.String()) });

/** Qase `ResultUpdate`: what a result's PATCH may change. */
export const ResultUpdate = t.Object({
  status: Opt(t.Union([t.String({ minLength: 1, maxLength: 32 }), t.Integer()], { description: "A result status name or Qase's number" })),
  time_ms: Opt(t.Integer({ minimum: 0, maximum: 31536000000 })),
  defect: Opt(t.Boolean()),
  attachments: AttachmentIds,
  stacktrace: Opt(t.String({ maxLength: 1000000 })),
  comment: Opt(t.String({ maxLength: 100000 })),
  steps: Opt(t.Array(StepResult, { maxItems: 1000 })),
}, { examples: [{ status: "passed", comment: "Passed on retry" }] });
export type ResultUpdateBody = typeof ResultUpdate.static;
/** `{code}/{id}/{hash}`: a result of a run. */
export const RunResultParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), id: t.Integer({ ...NumericIdBounds, description: "The test run's number within the project" }), hash: t.String({ minLength: 1, maxLength: 128 }) });
