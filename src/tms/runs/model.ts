import { t } from "elysia";
import { Limit, Offset } from "../shared/envelope";
import { AttachmentIds, Opt } from "../shared/envelope";

const CaseIds = t.Array(t.Integer({ minimum: 1 }), { maxItems: 10000 });

/** Qase `RunCreate`. Cases come from `plan_id`, `cases` and/or `include_all_cases` (union). */
export const RunCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 100000 })),
  include_all_cases: Opt(t.Boolean()),
  cases: Opt(CaseIds),
  is_autotest: Opt(t.Boolean()),
  environment_id: Opt(t.Integer()),
  environment_slug: Opt(t.String({ pattern: "^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$", description: "Environment slug, e.g. \"staging\"" })),
  milestone_id: Opt(t.Integer({ minimum: 1 })),
  plan_id: Opt(t.Integer({ minimum: 1 })),
  author_id: Opt(t.Integer()),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  configurations: Opt(t.Array(t.Integer())),
  custom_field: Opt(t.Record(t.String(), t.String())),
  start_time: Opt(t.String()),
  end_time: Opt(t.String()),
  is_cloud: Opt(t.Boolean()),
  cloud_run_config: Opt(t.Any()),
});
export type RunCreateBody = typeof RunCreate.static;

/** Qase `RunPublic`. */
export const RunPublic = t.Object({ status: t.Boolean({ description: "true makes the public report available" }) });

export const RunListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  status: t.Optional(t.Union([t.Literal("active"), t.Literal("completed"), t.Literal("aborted")])),
});

const StatusInput = t.String({ minLength: 1, maxLength: 32, description: "passed, failed, blocked, skipped, invalid, retest or in_progress" });

const StepResult = t.Object({
  position: Opt(t.Integer({ minimum: 1 })),
  status: t.Union([StatusInput, t.Integer()]),
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
  case_id: Opt(t.Integer({ minimum: 1 })),
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
});
export const ResultCreateBulk = t.Object({ results: t.Array(ResultCreate, { minItems: 1, maxItems: 2000 }) });
export type ResultCreateBody = typeof ResultCreate.static;

/** Qase v2 `ResultCreate` (what the Qase reporters send to /v2/{code}/run/{id}/results). */
// Nested `steps` (Qase allows sub-steps) are accepted as given and not validated further.
const V2Step = t.Object({
  data: Opt(t.Object({ action: t.String(), expected_result: Opt(t.String()), input_data: Opt(t.String()), attachments: Opt(t.Array(t.String())) })),
  execution: Opt(t.Object({ status: StatusInput, start_time: Opt(t.Number()), end_time: Opt(t.Number()), duration: Opt(t.Number()), comment: Opt(t.String()), attachments: Opt(t.Array(t.String())) })),
  steps: Opt(t.Array(t.Any())),
});
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
  id: Opt(t.String()),
  signature: Opt(t.String()),
  testops_id: Opt(t.Integer({ minimum: 1 })),
  testops_ids: Opt(t.Array(t.Integer({ minimum: 1 }), { maxItems: 100 })),
  fields: Opt(t.Record(t.String(), t.Any())),
  attachments: Opt(t.Array(t.String())),
  steps: Opt(t.Array(V2Step, { maxItems: 500 })),
  steps_type: Opt(t.String()),
  params: Opt(t.Record(t.String(), t.String())),
  param_groups: Opt(t.Any()),
  relations: Opt(t.Any()),
  message: Opt(t.String({ maxLength: 100000 })),
  defect: Opt(t.Boolean()),
});
export const V2ResultsCreate = t.Object({ results: t.Array(V2ResultCreate, { minItems: 1, maxItems: 2000 }) });
export type V2ResultCreateBody = typeof V2ResultCreate.static;
export const RunIdParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), id: t.Numeric() });
export const V2RunParams = t.Object({ code: t.String({ minLength: 1, maxLength: 32 }), runId: t.Numeric() });
