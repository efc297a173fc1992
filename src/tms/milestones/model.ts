import { t } from "elysia";
import { AuthorId, EntityNumber, Nullable, Opt, Timestamp } from "../shared/envelope";

const Status = t.Union([t.Literal("active"), t.Literal("completed")]);
/** Unix seconds up to 9999-12-31T23:59:59Z: later ones have no ISO date to store (a 400, not a failed write). */
const DueDate = t.Integer({ minimum: 0, maximum: 253402300799 });

/** Qase `MilestoneCreate`; `due_date` is Unix seconds. */
export const MilestoneCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 10000 })),
  status: Opt(Status),
  due_date: Opt(DueDate),
}, { examples: [{"title": "Release 2.4", "status": "active", "due_date": 1767225600}] });
export const MilestoneUpdate = t.Partial(t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  description: Opt(t.String({ maxLength: 10000 })),
  status: Opt(Status),
  due_date: Opt(DueDate),
}), { examples: [{"status": "completed"}] });
export type MilestoneCreateBody = typeof MilestoneCreate.static;
export type MilestoneUpdateBody = typeof MilestoneUpdate.static;

export const MilestoneView = t.Object({
  id: EntityNumber("milestone"),
  title: t.String(),
  description: Nullable(t.String()),
  status: t.UnionEnum(["active", "completed"]),
  due_date: Nullable(Timestamp),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});
