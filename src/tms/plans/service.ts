import { and, count, eq, inArray, isNull } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { first } from "../../db/transaction";
import { cases } from "../cases/tables";
import type { ProjectRow } from "../projects/service";
import { addCasesToRun } from "../runs/run-cases";
import { runs } from "../runs/tables";
import type { Caller } from "../shared/auth";
import type { Reader } from "../shared/lookup";
import { nextNumber, refIds, requireNumbered } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { inProject } from "../shared/write";
import type { PlanCreateBody, PlanUpdateBody } from "./model";
import { planCases, plans } from "./tables";

type Row = typeof plans.$inferSelect;
type CaseRef = { id: number; number: number };

/** The plan's live cases in plan order, with their numbers. */
export function casesOfPlan(db: Reader, planId: number): Promise<CaseRef[]> {
  return db.select({ id: planCases.caseId, number: cases.number }).from(planCases).innerJoin(cases, eq(cases.id, planCases.caseId))
    .where(and(eq(planCases.planId, planId), isNull(cases.deleted))).orderBy(planCases.position);
}

/** A plan as lists show it (no case list); `caseCount` comes from `planCaseCounts`. */
export function planSummaryView(p: Row, caseCount: number) {
  return {
    id: p.number, title: p.title, description: p.description, cases_count: caseCount,
    author_id: p.authorId, created: p.created, updated: p.updated, created_at: p.created, updated_at: p.updated,
  };
}

/** One plan with its cases (their numbers) in order. */
export function planView(p: Row, caseNumbers: number[]) {
  return { ...planSummaryView(p, caseNumbers.length), cases: caseNumbers.map((case_id) => ({ case_id, assignee_id: null })) };
}

/** Case counts of many plans in one query. */
async function planCaseCounts(db: Reader, planIds: number[]): Promise<Map<number, number>> {
  if (planIds.length === 0) return new Map();
  const rows = await db.select({ planId: planCases.planId, n: count() }).from(planCases).where(inArray(planCases.planId, planIds)).groupBy(planCases.planId);
  return new Map(rows.map((r) => [r.planId, r.n]));
}

export const requirePlan = (db: Reader, projectId: number, number: number) => requireNumbered(db, "plan", projectId, number);

/** The live cases of the project a body's `cases` numbers name (400 otherwise), de-duplicated in order. */
const requireCases = (tx: Reader, projectId: number, numbers: number[]) => refIds(tx, "case", projectId, numbers, "cases", isNull(cases.deleted));

async function setPlanCases(tx: Tx, planId: number, ids: number[]) {
  await tx.delete(planCases).where(eq(planCases.planId, planId));
  for (let i = 0; i < ids.length; i += 500)
    await tx.insert(planCases).values(ids.slice(i, i + 500).map((caseId, k) => ({ planId, caseId, position: i + k + 1 })));
}

export function createPlan(db: Db, caller: Caller, p: ProjectRow, body: PlanCreateBody) {
  return inProject(db, p, async ({ tx, emit }) => {
    const refs = await requireCases(tx, p.id, body.cases);
    const now = isoMicro();
    const [plan] = await tx.insert(plans).values({
      projectId: p.id, number: await nextNumber(tx, p.id, "plan"), title: body.title, description: body.description ?? null, authorId: caller.userId, created: now, updated: now,
    }).returning();
    await setPlanCases(tx, plan!.id, refs.ids);
    await emit("plan.created", { id: plan!.number, title: plan!.title, description: plan!.description ?? "", cases: refs.numbers });
    return { id: plan!.number };
  });
}

/**
 * Updates the plan. With `cases`, the list is replaced; cases that are new to the plan are added
 * to every run of this plan still in progress, each such run announcing `run.updated` with the
 * number of cases it gained.
 */
export function updatePlan(db: Db, p: ProjectRow, number: number, body: PlanUpdateBody) {
  return inProject(db, p, async ({ tx, emit }) => {
    const plan = await requirePlan(tx, p.id, number);
    const before = await casesOfPlan(tx, plan.id);
    let after = { ids: before.map((c) => c.id), numbers: before.map((c) => c.number) };
    if (body.cases != null) {
      after = await requireCases(tx, p.id, body.cases);
      await setPlanCases(tx, plan.id, after.ids);
    }
    await tx.update(plans).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      updated: isoMicro(),
    }).where(eq(plans.id, plan.id));
    await emit("plan.updated", { id: number, cases: after.numbers });
    const had = new Set(before.map((c) => c.id));
    const added = after.ids.filter((c) => !had.has(c));
    if (added.length) {
      for (const run of await tx.select({ id: runs.id, number: runs.number }).from(runs).where(and(eq(runs.planId, plan.id), eq(runs.status, "active")))) {
        const n = await addCasesToRun(tx, run.id, added);
        if (n > 0) await emit("run.updated", { id: run.number, cases_added: n });
      }
    }
    return { id: number };
  });
}

/** Runs created from the plan keep their cases and results; their `plan_id` becomes null. */
export function deletePlan(db: Db, p: ProjectRow, number: number) {
  return inProject(db, p, async ({ tx, emit }) => {
    const plan = await requirePlan(tx, p.id, number);
    const caseNumbers = (await casesOfPlan(tx, plan.id)).map((c) => c.number);
    await tx.delete(plans).where(eq(plans.id, plan.id));
    await emit("plan.deleted", { id: number, cases: caseNumbers });
    return { id: number };
  });
}

export async function getPlan(db: Db, p: ProjectRow, number: number) {
  const plan = await requirePlan(db, p.id, number);
  return planView(plan, (await casesOfPlan(db, plan.id)).map((c) => c.number));
}

export async function listPlans(db: Db, p: ProjectRow, limit: number, offset: number) {
  const total = (await first(db.select({ n: count() }).from(plans).where(eq(plans.projectId, p.id))))!.n;
  const rows = await db.select().from(plans).where(eq(plans.projectId, p.id)).orderBy(plans.number).limit(limit).offset(offset);
  const counts = await planCaseCounts(db, rows.map((r) => r.id));
  return { total, entities: rows.map((r) => planSummaryView(r, counts.get(r.id) ?? 0)) };
}
