import { t } from "elysia";
import { Opt } from "../shared/envelope";

const CaseIds = t.Array(t.Integer({ minimum: 1 }), { maxItems: 10000, description: "Test case ids of the same project" });

/** Qase `PlanCreate`. */
export const PlanCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  cases: CaseIds,
  description: Opt(t.String({ maxLength: 100000 })),
});
/** Qase `PlanUpdate`: `cases` replaces the list; cases new to the plan join its runs still in progress. */
export const PlanUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  description: Opt(t.String({ maxLength: 100000 })),
  cases: Opt(CaseIds),
});
export type PlanCreateBody = typeof PlanCreate.static;
export type PlanUpdateBody = typeof PlanUpdate.static;
