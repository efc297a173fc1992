import { t } from "elysia";
import { Opt } from "../shared/envelope";

const Status = t.Union([t.Literal("active"), t.Literal("completed")]);

/** Qase `MilestoneCreate`; `due_date` is Unix seconds. */
export const MilestoneCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 10000 })),
  status: Opt(Status),
  due_date: Opt(t.Integer({ minimum: 0 })),
});
export const MilestoneUpdate = t.Partial(t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 10000 })),
  status: Opt(Status),
  due_date: Opt(t.Integer({ minimum: 0 })),
}));
export type MilestoneCreateBody = typeof MilestoneCreate.static;
export type MilestoneUpdateBody = typeof MilestoneUpdate.static;
