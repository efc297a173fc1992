import { and, count, eq, inArray, isNull } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { publish } from "../../webhooks/publish";
import { cases } from "../cases/tables";
import { requireProject } from "../projects/service";
import { addCasesToRun } from "../runs/service";
import { runs } from "../runs/tables";
import type { Caller } from "../shared/auth";
import { requireCaseIds } from "../shared/cases";
import { requireInProject, type Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { PlanCreateBody, PlanUpdateBody } from "./model";
import { planCases, plans } from "./tables";

type Row = typeof plans.$inferSelect;

/** The plan's live case ids in plan order. */
export function planCaseIds(db: Reader, planId: number): number[] {
  return db.select({ id: planCases.caseId }).from(planCases).innerJoin(cases, eq(cases.id, planCases.caseId))
    .where(and(eq(planCases.planId, planId), isNull(cases.deleted))).orderBy(planCases.position).all().map((r) => r.id);
}

/** A plan as lists show it (no case list); `caseCount` comes from `planCaseCounts`. */
export function planSummaryView(p: Row, caseCount: number) {
  return {
    id: p.id, title: p.title, description: p.description, cases_count: caseCount,
    author_id: p.authorId, created: p.created, updated: p.updated, created_at: p.created, updated_at: p.updated,
  };
}

/** One plan with its cases in order. */
export function planView(p: Row, caseIds: number[]) {
  return { ...planSummaryView(p, caseIds.length), cases: caseIds.map((case_id) => ({ case_id, assignee_id: null })) };
}

/** Case counts of many plans in one query. */
function planCaseCounts(db: Reader, planIds: number[]): Map<number, number> {
  if (planIds.length === 0) return new Map();
  const rows = db.select({ planId: planCases.planId, n: count() }).from(planCases).where(inArray(planCases.planId, planIds)).groupBy(planCases.planId).all();
  return new Map(rows.map((r) => [r.planId, r.n]));
}

export const requirePlan = (db: Reader, projectId: number, id: number) => requireInProject(db, plans, projectId, id, "Plan");

function setPlanCases(tx: Tx, planId: number, ids: number[]) {
  tx.delete(planCases).where(eq(planCases.planId, planId)).run();
  for (let i = 0; i < ids.length; i += 500)
    tx.insert(planCases).values(ids.slice(i, i + 500).map((caseId, k) => ({ planId, caseId, position: i + k + 1 }))).run();
}

export function createPlan(db: Db, caller: Caller, code: string, body: PlanCreateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const ids = requireCaseIds(tx, p.id, body.cases);
    const now = isoMicro();
    const plan = tx.insert(plans).values({ projectId: p.id, title: body.title, description: body.description ?? null, authorId: caller.userId, created: now, updated: now }).returning().get();
    setPlanCases(tx, plan.id, ids);
    publish(tx, "plan.created", { id: plan.id, title: plan.title, description: plan.description ?? "", cases: ids }, { projectCode: p.code });
    return { id: plan.id };
  }, { behavior: "immediate" });
}

/**
 * Updates the plan. With `cases`, the list is replaced; cases that are new to the plan are added
 * to every run of this plan still in progress, each such run announcing `run.updated` with the
 * number of cases it gained.
 */
export function updatePlan(db: Db, code: string, id: number, body: PlanUpdateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requirePlan(tx, p.id, id);
    const before = planCaseIds(tx, id);
    let ids = before;
    if (body.cases != null) {
      ids = requireCaseIds(tx, p.id, body.cases);
      setPlanCases(tx, id, ids);
    }
    tx.update(plans).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      updated: isoMicro(),
    }).where(eq(plans.id, id)).run();
    publish(tx, "plan.updated", { id, cases: ids }, { projectCode: p.code });
    const added = ids.filter((c) => !before.includes(c));
    if (added.length) {
      for (const run of tx.select({ id: runs.id }).from(runs).where(and(eq(runs.planId, id), eq(runs.status, "active"))).all()) {
        const n = addCasesToRun(tx, run.id, added);
        if (n > 0) publish(tx, "run.updated", { id: run.id, cases_added: n }, { projectCode: p.code });
      }
    }
    return { id };
  }, { behavior: "immediate" });
}

/** Runs created from the plan keep their cases and results; their `plan_id` becomes null. */
export function deletePlan(db: Db, code: string, id: number) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requirePlan(tx, p.id, id);
    const ids = planCaseIds(tx, id);
    tx.delete(plans).where(eq(plans.id, id)).run();
    publish(tx, "plan.deleted", { id, cases: ids }, { projectCode: p.code });
    return { id };
  }, { behavior: "immediate" });
}

export function getPlan(db: Db, code: string, id: number) {
  const p = requireProject(db, code);
  const plan = requirePlan(db, p.id, id);
  return planView(plan, planCaseIds(db, plan.id));
}

export function listPlans(db: Db, code: string, limit: number, offset: number) {
  const p = requireProject(db, code);
  const total = db.select({ n: count() }).from(plans).where(eq(plans.projectId, p.id)).get()!.n;
  const rows = db.select().from(plans).where(eq(plans.projectId, p.id)).orderBy(plans.id).limit(limit).offset(offset).all();
  const counts = planCaseCounts(db, rows.map((r) => r.id));
  return { total, entities: rows.map((r) => planSummaryView(r, counts.get(r.id) ?? 0)) };
}
