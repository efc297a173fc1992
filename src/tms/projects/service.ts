import { and, asc, count, eq, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { cases } from "../cases/tables";
import { defects } from "../defects/tables";
import { milestones } from "../milestones/tables";
import { plans } from "../plans/tables";
import { runs } from "../runs/tables";
import { suites } from "../suites/tables";
import type { Db, Tx } from "../../db/connection";
import { first, writeTransaction } from "../../db/transaction";
import { ApiError, badRequest } from "../../http/errors";
import { isoMicro } from "../shared/time";
import type { Caller } from "../shared/auth";
import { customFields } from "../custom-fields/tables";
import { disableSubscriptionsOfDeletedProject } from "../../webhooks/project-scope";
import { inProject } from "../shared/write";
import { projects } from "./tables";
import type { ProjectCreateBody } from "./model";

type Reader = Db | Tx;
export type { ProjectRow } from "./tables";
import type { ProjectRow } from "./tables";

/** Project codes are case-insensitive on the way in and stored upper-case, as Qase shows them. */
export const normaliseCode = (code: string) => code.trim().toUpperCase();

/**
 * `codes` as stored: upper-case, each once, each a project of the workspace. A project of another
 * workspace is as unknown as a missing one (400 naming `field`).
 */
export async function workspaceProjectCodes(db: Reader, workspaceId: number, codes: string[], field: string): Promise<string[]> {
  const wanted = [...new Set(codes.map(normaliseCode))];
  if (wanted.length === 0) return [];
  const known = new Set((await db.select({ code: projects.code }).from(projects)
    .where(and(eq(projects.workspaceId, workspaceId), inArray(projects.code, wanted)))).map((r) => r.code));
  const unknown = wanted.filter((c) => !known.has(c));
  if (unknown.length) throw badRequest(`Unknown project code${unknown.length > 1 ? "s" : ""} ${unknown.map((c) => `"${c}"`).join(", ")} in this workspace`, field);
  return wanted;
}

/** Every project's code, title and workspace, by code (the admin console's project picker). */
export function projectSummaries(db: Db, workspaceId?: number): Promise<{ code: string; title: string; workspaceId: number }[]> {
  return db
    .select({ code: projects.code, title: projects.title, workspaceId: projects.workspaceId })
    .from(projects)
    .where(workspaceId === undefined ? undefined : eq(projects.workspaceId, workspaceId))
    .orderBy(asc(projects.code));
}

export function createProject(db: Db, caller: Caller, body: ProjectCreateBody): Promise<{ code: string }> {
  const code = normaliseCode(body.code);
  const now = isoMicro();
  // The code is unique (a constraint); the check before the insert answers 409 rather than a
  // constraint failure, and serializing on the code keeps that answer true under concurrent creates.
  return writeTransaction(db, async (tx) => {
    if (await first(tx.select({ id: projects.id }).from(projects).where(eq(projects.code, code))))
      throw new ApiError(409, "conflict", `Project code "${code}" is already taken`, "code");
    await tx.insert(projects).values({
      code, title: body.title, description: body.description ?? null, access: body.access ?? "all",
      authorId: caller.userId, workspaceId: caller.workspaceId, created: now, updated: now,
    });
    return { code };
  }, { serializeOn: [`project-code:${code}`] });
}

/** The projects of the caller's workspace. */
export async function listProjects(db: Db, workspaceId: number, limit: number, offset: number) {
  const inWorkspace = eq(projects.workspaceId, workspaceId);
  const total = (await first(db.select({ n: count() }).from(projects).where(inWorkspace)))!.n;
  const rows = await db.select().from(projects).where(inWorkspace).orderBy(projects.id).limit(limit).offset(offset);
  return { total, rows: await projectViews(db, rows) };
}

type ProjectCounts = { cases: number; suites: number; milestones: number; runs: number; activeRuns: number; defects: number; openDefects: number };

/**
 * Entity counts of many projects: one grouped query per counted table, not one per project.
 * `part` counts the rows that also match it (active runs, open defects).
 */
async function countsOf(db: Reader, ids: number[]): Promise<Map<number, ProjectCounts>> {
  const out = new Map(ids.map((id) => [id, { cases: 0, suites: 0, milestones: 0, runs: 0, activeRuns: 0, defects: 0, openDefects: 0 }]));
  if (ids.length === 0) return out;
  const grouped = (table: SQLiteTable & { projectId: SQLiteColumn }, extra?: SQL, part?: SQL) =>
    db.select({ id: sql<number>`${table.projectId}`, n: count(), part: part ? sql<number>`sum(case when ${part} then 1 else 0 end)` : sql<number>`0` })
      .from(table).where(and(inArray(table.projectId, ids), extra)).groupBy(table.projectId);
  for (const r of await grouped(cases, isNull(cases.deleted))) out.get(r.id)!.cases = r.n;
  for (const r of await grouped(suites)) out.get(r.id)!.suites = r.n;
  for (const r of await grouped(milestones)) out.get(r.id)!.milestones = r.n;
  for (const r of await grouped(runs, undefined, eq(runs.status, "active"))) Object.assign(out.get(r.id)!, { runs: r.n, activeRuns: Number(r.part) });
  for (const r of await grouped(defects, undefined, eq(defects.status, "open"))) Object.assign(out.get(r.id)!, { defects: r.n, openDefects: Number(r.part) });
  return out;
}

/** Views of many projects: their counts loaded in batches. */
export async function projectViews(db: Reader, rows: ProjectRow[]) {
  const counts = await countsOf(db, rows.map((p) => p.id));
  return rows.map((p) => projectView(p, counts.get(p.id)!));
}

/** The Qase project shape with its entity counts. Pure. */
export function projectView(p: ProjectRow, n: ProjectCounts) {
  return {
    title: p.title,
    code: p.code,
    description: p.description,
    access: p.access,
    author_id: p.authorId,
    created: p.created,
    updated: p.updated,
    counts: {
      cases: n.cases,
      suites: n.suites,
      milestones: n.milestones,
      runs: {
        total: n.runs,
        active: n.activeRuns,
      },
      defects: {
        total: n.defects,
        open: n.openDefects,
      },
    },
  };
}

/**
 * Qase's `DELETE /project/{code}`: the project and everything in it (cases, suites, runs and their
 * results, plans, defects, milestones, shared steps, environments, configurations, attachments) go
 * with it in one transaction; its code leaves the workspace's custom fields' `projects_codes`, so
 * a later project with the same code inherits nothing; for the same reason the webhook
 * subscriptions limited to it are disabled (docs/webhooks.md). No event: the catalog has no
 * project events.
 */
export function deleteProject(db: Db, p: ProjectRow) {
  return inProject(db, p, async ({ tx }) => {
    for (const f of await tx.select({ id: customFields.id, codes: customFields.projectCodes }).from(customFields).where(eq(customFields.workspaceId, p.workspaceId))) {
      if (f.codes.includes(p.code)) await tx.update(customFields).set({ projectCodes: f.codes.filter((c) => c !== p.code) }).where(eq(customFields.id, f.id));
    }
    await disableSubscriptionsOfDeletedProject(tx, p.code, p.workspaceId);
    // The rows that name the project's cases without a cascade of their own go first (runs take
    // their results and case lists with them): PostgreSQL checks those references as each
    // cascade runs, not once the whole delete is done as SQLite does.
    await tx.delete(defects).where(eq(defects.projectId, p.id));
    await tx.delete(runs).where(eq(runs.projectId, p.id));
    await tx.delete(plans).where(eq(plans.projectId, p.id));
    await tx.delete(projects).where(eq(projects.id, p.id));
    return {};
  });
}
