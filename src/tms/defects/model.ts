import { t } from "elysia";
import { CustomFieldValues } from "../custom-fields/model";
import { Limit, Offset } from "../shared/envelope";
import { AttachmentIds, AuthorId, EntityNumber, Nullable, Opt, Tags, Timestamp } from "../shared/envelope";
import { EnumInput, EnumSlug } from "../shared/enum-schemas";
import { SEVERITY } from "../../qase/enums";
import { DEFECT_STATUSES } from "./tables";

/**
 * Qase `DefectCreate` (which names no case) plus, optionally, where the defect was seen: `case_id`
 * and `step` directly, or `result_hash` of a failed result (fills `case_id`, the run, and the
 * first failed step).
 */
export const DefectCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  actual_result: t.String({ minLength: 1, maxLength: 100000 }),
  severity: Opt(EnumInput(SEVERITY)),
  milestone_id: Opt(EntityNumber("milestone")),
  attachments: AttachmentIds,
  custom_field: Opt(t.Record(t.String(), t.String())),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
  case_id: Opt(EntityNumber("test case")),
  step: Opt(t.Integer({ minimum: 1, description: "Position of the step where the error occurred" })),
  result_hash: Opt(t.String({ minLength: 1, maxLength: 128 })),
}, { examples: [{"title": "Total ignores the coupon", "actual_result": "The total stays 40.00", "severity": 3, "case_id": 1}] });
export type DefectCreateBody = typeof DefectCreate.static;
/** Qase `DefectUpdate` (a field absent or `null` is left as it is). */
export const DefectUpdate = t.Object({
  title: Opt(t.String({ minLength: 1, maxLength: 255 })),
  actual_result: Opt(t.String({ minLength: 1, maxLength: 100000 })),
  severity: Opt(EnumInput(SEVERITY)),
  milestone_id: Opt(EntityNumber("milestone")),
  attachments: AttachmentIds,
  custom_field: Opt(t.Record(t.String(), t.String())),
  tags: Opt(t.Array(t.String({ maxLength: 255 }), { maxItems: 100 })),
}, { examples: [{ severity: 2, tags: ["checkout"] }] });
export type DefectUpdateBody = typeof DefectUpdate.static;
/** Qase `DefectStatus`. */
export const DefectStatusBody = t.Object({ status: t.UnionEnum(DEFECT_STATUSES) }, { examples: [{ status: "in_progress" }] });
export const DefectListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  // A union of literals, not t.UnionEnum: Elysia fills an absent optional UnionEnum query value
  // with the enum's first member, which listed only open defects when no status was asked for.
  status: t.Optional(t.Union(DEFECT_STATUSES.map((s) => t.Literal(s)))),
});

/** Qase's Defect declares `severity` and `status` as strings: Qase's spelling (`"blocker"`, `"critical"`…). */
export const DefectView = t.Object({
  id: EntityNumber("defect"),
  title: t.String(),
  actual_result: t.String(),
  severity: EnumSlug(SEVERITY),
  status: t.UnionEnum(DEFECT_STATUSES),
  case_id: Nullable(EntityNumber("test case")),
  step: Nullable(t.Integer()),
  milestone_id: Nullable(EntityNumber("milestone")),
  attachments: t.Array(t.Integer()),
  runs: t.Array(EntityNumber("test run")),
  results: t.Array(t.String()),
  tags: Tags,
  custom_fields: CustomFieldValues,
  resolved_at: Nullable(Timestamp),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});
