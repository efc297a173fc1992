import { and, count, eq, isNull, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import { cases } from "../cases/tables";
import { defects } from "../defects/tables";
import { milestones } from "../milestones/tables";
import { runs } from "../runs/tables";
import { suites } from "../suites/tables";
import type { Db, Tx } from "../../db/connection";
import { ApiError, notFound } from "../../http/errors";
import { isoMicro } from "../shared/time";
import type { Caller } from "../shared/auth";
import { projects } from "./tables";
import type { ProjectCreateBody } from "./model";

type Reader = Db | Tx;
export type ProjectRow = typeof projects.$inferSelect;

/** Project codes are case-insensitive on the way in and stored upper-case, as Qase shows them. */
export const normaliseCode = (code: string) => code.trim().toUpperCase();

/** The project with this code, or 404. */
export function requireProject(db: Reader, code: string): ProjectRow {
  const row = db.select().from(projects).where(eq(projects.code, normaliseCode(code))).get();
  if (!row) throw notFound(`Project "${code}"`);
  return row;
}

export function createProject(db: Db, caller: Caller, body: ProjectCreateBody): { code: string } {
  const code = normaliseCode(body.code);
  const now = isoMicro();
  return db.transaction((tx) => {
    if (tx.select({ id: projects.id }).from(projects).where(eq(projects.code, code)).get())
      throw new ApiError(409, "conflict", `Project code "${code}" is already taken`, "code");
    tx.insert(projects).values({
      code, title: body.title, description: body.description ?? null, access: body.access ?? "all",
      authorId: caller.userId, workspaceId: caller.workspaceId, created: now, updated: now,
    }).run();
    return { code };
  }, { behavior: "immediate" });
}

/** The projects of the caller's workspace. */
export function listProjects(db: Db, workspaceId: number, limit: number, offset: number) {
  const inWorkspace = eq(projects.workspaceId, workspaceId);
  const total = db.select({ n: count() }).from(projects).where(inWorkspace).get()!.n;
  const rows = db.select().from(projects).where(inWorkspace).orderBy(projects.id).limit(limit).offset(offset).all();
  return { total, rows: rows.map((p) => projectView(db, p)) };
}

/** The Qase project shape with its entity counts. */
export function projectView(db: Reader, p: ProjectRow) {
  const n = (table: SQLiteTable & { projectId: SQLiteColumn }, extra?: SQL) =>
    db.select({ n: count() }).from(table).where(and(eq(table.projectId, p.id), extra)).get()!.n;
  return {
    title: p.title,
    code: p.code,
    description: p.description,
    access: p.access,
    author_id: p.authorId,
    created: p.created,
    updated: p.updated,
    counts: {
      cases: n(cases, isNull(cases.deleted)),
      suites: n(suites),
      milestones: n(milestones),
      runs: {
        total: n(runs),
        active: n(runs, eq(runs.status, "active")),
      },
      defects: {
        total: n(defects),
        open: n(defects, eq(defects.status, "open")),
      },
    },
  };
}
