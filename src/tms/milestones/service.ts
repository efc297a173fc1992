import { and, count, eq } from "drizzle-orm";
import { containsText } from "../../db/contains";
import type { Db } from "../../db/connection";
import { first } from "../../db/transaction";
import type { ProjectRow } from "../projects/service";
import type { Caller } from "../shared/auth";
import { nextNumber, requireNumbered } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { inProject } from "../shared/write";
import type { MilestoneCreateBody, MilestoneUpdateBody } from "./model";
import { milestones } from "./tables";

type Row = typeof milestones.$inferSelect;
const dueIso = (s: number | null | undefined) => (s == null ? null : isoMicro(new Date(s * 1000)));

export const milestoneView = (m: Row) => ({
  id: m.number, title: m.title, description: m.description, status: m.status, due_date: m.dueDate,
  author_id: m.authorId, created: m.created, updated: m.updated, created_at: m.created, updated_at: m.updated,
});

export function createMilestone(db: Db, caller: Caller, project: ProjectRow, body: MilestoneCreateBody) {
  return inProject(db, project, async ({ tx, emit }) => {
    const now = isoMicro();
    const dueDate = dueIso(body.due_date);
    const [m] = await tx.insert(milestones).values({
      projectId: project.id, number: await nextNumber(tx, project.id, "milestone"), title: body.title, description: body.description ?? null, status: body.status ?? "active",
      dueDate, authorId: caller.userId, created: now, updated: now,
    }).returning();
    await emit("milestone.created", { id: m!.number, title: m!.title, description: m!.description ?? "" });
    return { id: m!.number };
  });
}

export function updateMilestone(db: Db, project: ProjectRow, number: number, body: MilestoneUpdateBody) {
  return inProject(db, project, async ({ tx, emit }) => {
    const m = await requireNumbered(tx, "milestone", project.id, number);
    await tx.update(milestones).set({
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.status != null ? { status: body.status } : {}),
      ...(body.due_date !== undefined ? { dueDate: dueIso(body.due_date) } : {}),
      updated: isoMicro(),
    }).where(eq(milestones.id, m.id));
    await emit("milestone.updated", { id: number });
    return { id: number };
  });
}

export async function getMilestone(db: Db, p: ProjectRow, number: number) {
  return milestoneView(await requireNumbered(db, "milestone", p.id, number));
}

export async function listMilestones(db: Db, p: ProjectRow, q: { limit: number; offset: number; search?: string }) {
  const base = eq(milestones.projectId, p.id);
  const where = q.search ? and(base, containsText(milestones.title, q.search)) : base;
  const total = (await first(db.select({ n: count() }).from(milestones).where(base)))!.n;
  const filtered = q.search ? (await first(db.select({ n: count() }).from(milestones).where(where)))!.n : total;
  const rows = await db.select().from(milestones).where(where).orderBy(milestones.number).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: rows.map(milestoneView) };
}
