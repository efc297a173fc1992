import { and, count, eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { badRequest, conflict } from "../../http/errors";
import { fastInserter } from "../../db/fast-insert";
import { publish } from "../../webhooks/publish";
import { cases } from "../cases/tables";
import { milestones } from "../milestones/tables";
import { requireProject, type ProjectRow } from "../projects/service";
import { results, runs } from "../runs/tables";
import type { Caller } from "../shared/auth";
import { attachmentIds } from "../shared/envelope";
import { enumName, SEVERITY } from "../shared/enums";
import { requireInProject, type Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { DefectCreateBody } from "./model";
import { defects } from "./tables";

type Row = typeof defects.$inferSelect;
export type DefectInput = {
  title: string; actualResult: string; severity: (typeof SEVERITY.names)[number]; caseId: number;
  /** Position of the failing step; 0 when not known. */
  step: number;
  runId?: number | null; resultHash?: string | null; milestoneId?: number | null; attachments: number[]; tags?: string[];
};

export const defectView = (d: Row) => ({
  id: d.id, title: d.title, actual_result: d.actualResult, severity: d.severity, status: d.status, case_id: d.caseId, step: d.step,
  milestone_id: d.milestoneId, attachments: d.attachments, runs: d.runId ? [d.runId] : [], results: d.resultHash ? [d.resultHash] : [],
  tags: d.tags.map((title) => ({ title })), resolved_at: d.resolvedAt, author_id: d.authorId,
  created: d.created, updated: d.updated, created_at: d.created, updated_at: d.updated,
});

// Reporters file one defect per failed result: up to a row budget's worth in one request.
const insertDefectRow = fastInserter(defects);

/** Inserts a defect and publishes defect.created, inside the caller's transaction. */
export function insertDefect(tx: Tx, p: ProjectRow, caller: Caller, v: DefectInput): Row {
  const now = isoMicro();
  const d = insertDefectRow(tx, {
    projectId: p.id, title: v.title, actualResult: v.actualResult, severity: v.severity, caseId: v.caseId, step: v.step,
    runId: v.runId ?? null, resultHash: v.resultHash ?? null, milestoneId: v.milestoneId ?? null, attachments: v.attachments,
    tags: v.tags ?? [], authorId: caller.userId, created: now, updated: now,
  });
  publish(tx, "defect.created", { id: d.id, title: d.title, case_id: d.caseId, step: d.step, actual_result: d.actualResult, attachments: d.attachments }, { projectCode: p.code });
  return d;
}

export function createDefect(db: Db, caller: Caller, code: string, body: DefectCreateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    let caseId = body.case_id ?? null;
    let step = body.step ?? 0;
    let runId: number | null = null;
    if (body.result_hash != null) {
      const r = tx.select({ r: results }).from(results).innerJoin(runs, eq(runs.id, results.runId)).where(and(eq(results.hash, body.result_hash), eq(runs.projectId, p.id))).get()?.r;
      if (!r) throw badRequest(`Result ${body.result_hash} does not exist in this project`, "result_hash");
      if (r.status !== "failed" && r.status !== "invalid") throw badRequest(`Result ${body.result_hash} is ${r.status}; a defect is filed from a failed result`, "result_hash");
      if (caseId != null && caseId !== r.caseId) throw badRequest(`Result ${body.result_hash} is for case ${r.caseId}, not ${caseId}`, "case_id");
      caseId = r.caseId;
      runId = r.runId;
      if (body.step == null) step = r.steps.find((s) => s.status === "failed" || s.status === "invalid")?.position ?? 0;
    }
    // Every defect names the case it was seen in (defect.created carries case_id).
    if (caseId == null) throw badRequest("A defect needs `case_id` (or `result_hash` of a failed result)", "case_id");
    {
      const c = tx.select({ steps: cases.steps }).from(cases).where(and(eq(cases.id, caseId), eq(cases.projectId, p.id))).get();
      if (!c) throw badRequest(`Test case ${caseId} does not exist in this project`, "case_id");
      if (body.step != null && c.steps.length && !c.steps.some((s) => s.position === body.step)) throw badRequest(`Test case ${caseId} has no step ${body.step}`, "step");
    }
    if (body.milestone_id != null && !tx.select({ id: milestones.id }).from(milestones).where(and(eq(milestones.id, body.milestone_id), eq(milestones.projectId, p.id))).get())
      throw badRequest(`Milestone ${body.milestone_id} does not exist in this project`, "milestone_id");
    const d = insertDefect(tx, p, caller, {
      title: body.title, actualResult: body.actual_result, severity: body.severity != null ? enumName(SEVERITY, body.severity) : "normal",
      caseId, step, runId, resultHash: body.result_hash ?? null, milestoneId: body.milestone_id ?? null, attachments: attachmentIds(body.attachments), tags: body.tags ?? [],
    });
    return { id: d.id };
  }, { behavior: "immediate" });
}

const requireDefect = (db: Reader, projectId: number, id: number) => requireInProject(db, defects, projectId, id, "Defect");

/** open → resolved (defect.resolved); resolving a resolved defect is a 409. */
export function resolveDefect(db: Db, code: string, id: number) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const d = requireDefect(tx, p.id, id);
    if (d.status === "resolved") throw conflict(`Defect ${id} is already resolved`);
    const now = isoMicro();
    tx.update(defects).set({ status: "resolved", resolvedAt: now, updated: now }).where(eq(defects.id, id)).run();
    publish(tx, "defect.resolved", { id }, { projectCode: p.code });
    return { id };
  }, { behavior: "immediate" });
}

export function deleteDefect(db: Db, code: string, id: number) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requireDefect(tx, p.id, id);
    tx.delete(defects).where(eq(defects.id, id)).run();
    publish(tx, "defect.deleted", { id }, { projectCode: p.code });
    return { id };
  }, { behavior: "immediate" });
}

export function getDefect(db: Db, code: string, id: number) {
  const p = requireProject(db, code);
  return defectView(requireDefect(db, p.id, id));
}

export function listDefects(db: Db, code: string, q: { limit: number; offset: number; status?: "open" | "resolved" }) {
  const p = requireProject(db, code);
  const base = eq(defects.projectId, p.id);
  const where = q.status ? and(base, eq(defects.status, q.status)) : base;
  const total = db.select({ n: count() }).from(defects).where(base).get()!.n;
  const filtered = db.select({ n: count() }).from(defects).where(where).get()!.n;
  const rows = db.select().from(defects).where(where).orderBy(defects.id).limit(q.limit).offset(q.offset).all();
  return { total, filtered, entities: rows.map(defectView) };
}
