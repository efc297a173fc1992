import { t } from "elysia";
import { AuthorId, EntityNumber, EntityNumbers, Nullable, Opt, Timestamp } from "../shared/envelope";

const CaseIds = EntityNumbers("test cases", 10000);

/** Qase `PlanCreate`. */
export const PlanCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  cases: CaseIds,
  description: Opt(t.String({ maxLength: 100000 })),
}, { examples: [{"title": "Smoke", "cases": [1, 2, 3], "description": "Before every deploy"}] });
/** Qase `PlanUpdate`: `cases` replaces the list; cases new to the plan join its runs still in progress. */
export const PlanUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  description: Opt(t.String({ maxLength: 100000 })),
  cases: Opt(CaseIds),
}, { examples: [{"cases": [1, 2, 3, 4]}] });
export type PlanCreateBody = typeof PlanCreate.static;
export type PlanUpdateBody = typeof PlanUpdate.static;

const planFields = {
  id: EntityNumber("test plan"),
  title: t.String(),
  description: Nullable(t.String()),
  cases_count: t.Integer(),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
};
/** A plan in a list (without its cases). */
export const PlanSummary = t.Object(planFields);
/** One plan with its cases in order. */
export const PlanView = t.Object({ ...planFields, cases: t.Array(t.Object({ case_id: EntityNumber("test case"), assignee_id: t.Null() })) });
