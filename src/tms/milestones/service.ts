import { and, count, eq } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { publish } from "../../webhooks/publish";
import type { Caller } from "../shared/auth";
import { requireInProject } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import { requireProject } from "../projects/service";
import type { MilestoneCreateBody, MilestoneUpdateBody } from "./model";
import { milestones } from "./tables";

type Row = typeof milestones.$inferSelect;
const dueIso = (s: number | null | undefined) => (s == null ? null : isoMicro(new Date(s * 1000)));

export const milestoneView = (m: Row) => ({
  id: m.id, title: m.title, description: m.description, status: m.status, due_date: m.dueDate,
  author_id: m.authorId, created: m.created, updated: m.updated, created_at: m.created, updated_at: m.updated,
});

export function createMilestone(db: Db, caller: Caller, code: string, body: MilestoneCreateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const now = isoMicro();
    const m = tx.insert(milestones).values({
      projectId: p.id, title: body.title, description: body.description ?? null, status: body.status ?? "active",
      dueDate: dueIso(body.due_date), authorId: caller.userId, created: now, updated: now,
    }).returning().get();
    publish(tx, "milestone.created", { id: m.id, title: m.title, description: m.description ?? "" }, { projectCode: p.code });
    return { id: m.id };
  }, { behavior: "immediate" });
}

export function updateMilestone(db: Db, code: string, id: number, body: MilestoneUpdateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requireInProject(tx, milestones, p.id, id, "Milestone");
    tx.update(milestones).set({
      ...(body.title !== undefined ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.status != null ? { status: body.status } : {}),
      ...(body.due_date !== undefined ? { dueDate: dueIso(body.due_date) } : {}),
      updated: isoMicro(),
    }).where(eq(milestones.id, id)).run();
    publish(tx, "milestone.updated", { id }, { projectCode: p.code });
    return { id };
  }, { behavior: "immediate" });
}

/** Cases and runs that pointed at the milestone keep existing with `milestone_id` null. */
export function deleteMilestone(db: Db, code: string, id: number) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requireInProject(tx, milestones, p.id, id, "Milestone");
    tx.delete(milestones).where(eq(milestones.id, id)).run();
    publish(tx, "milestone.deleted", { id }, { projectCode: p.code });
    return { id };
  }, { behavior: "immediate" });
}

export function getMilestone(db: Db, code: string, id: number) {
  const p = requireProject(db, code);
  return milestoneView(requireInProject(db, milestones, p.id, id, "Milestone"));
}

export function listMilestones(db: Db, code: string, limit: number, offset: number) {
  const p = requireProject(db, code);
  const where = and(eq(milestones.projectId, p.id));
  const total = db.select({ n: count() }).from(milestones).where(where).get()!.n;
  const rows = db.select().from(milestones).where(where).orderBy(milestones.id).limit(limit).offset(offset).all();
  return { total, entities: rows.map(milestoneView) };
}
