import { and, count, eq } from "drizzle-orm";
import { containsText } from "../../db/contains";
import type { Db } from "../../db/connection";
import { publish } from "../../webhooks/publish";
import type { Caller } from "../shared/auth";
import { nextNumber, requireNumbered } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { requireProject } from "../projects/service";
import type { MilestoneCreateBody, MilestoneUpdateBody } from "./model";
import { milestones } from "./tables";

type Row = typeof milestones.$inferSelect;
const dueIso = (s: number | null | undefined) => (s == null ? null : isoMicro(new Date(s * 1000)));

export const milestoneView = (m: Row) => ({
  id: m.number, title: m.title, description: m.description, status: m.status, due_date: m.dueDate,
  author_id: m.authorId, created: m.created, updated: m.updated, created_at: m.created, updated_at: m.updated,
});

export function createMilestone(db: Db, caller: Caller, code: string, body: MilestoneCreateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const now = isoMicro();
    const m = tx.insert(milestones).values({
      projectId: p.id, number: nextNumber(tx, p.id, "milestone"), title: body.title, description: body.description ?? null, status: body.status ?? "active",
      dueDate: dueIso(body.due_date), authorId: caller.userId, created: now, updated: now,
    }).returning().get();
    publish(tx, "milestone.created", { id: m.number, title: m.title, description: m.description ?? "" }, { projectCode: p.code });
    return { id: m.number };
  }, { behavior: "immediate" });
}

export function updateMilestone(db: Db, code: string, number: number, body: MilestoneUpdateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const m = requireNumbered(tx, "milestone", p.id, number);
    tx.update(milestones).set({
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.status != null ? { status: body.status } : {}),
      ...(body.due_date !== undefined ? { dueDate: dueIso(body.due_date) } : {}),
      updated: isoMicro(),
    }).where(eq(milestones.id, m.id)).run();
    publish(tx, "milestone.updated", { id: number }, { projectCode: p.code });
    return { id: number };
  }, { behavior: "immediate" });
}

/** Cases and runs that pointed at the milestone keep existing with `milestone_id` null. */
export function deleteMilestone(db: Db, code: string, number: number) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const m = requireNumbered(tx, "milestone", p.id, number);
    tx.delete(milestones).where(eq(milestones.id, m.id)).run();
    publish(tx, "milestone.deleted", { id: number }, { projectCode: p.code });
    return { id: number };
  }, { behavior: "immediate" });
}

export function getMilestone(db: Db, code: string, number: number) {
  const p = requireProject(db, code);
  return milestoneView(requireNumbered(db, "milestone", p.id, number));
}

export function listMilestones(db: Db, code: string, q: { limit: number; offset: number; search?: string }) {
  const p = requireProject(db, code);
  const base = eq(milestones.projectId, p.id);
  const where = q.search ? and(base, containsText(milestones.title, q.search)) : base;
  const total = db.select({ n: count() }).from(milestones).where(base).get()!.n;
  const filtered = q.search ? db.select({ n: count() }).from(milestones).where(where).get()!.n : total;
  const rows = db.select().from(milestones).where(where).orderBy(milestones.number).limit(q.limit).offset(q.offset).all();
  return { total, filtered, entities: rows.map(milestoneView) };
}
