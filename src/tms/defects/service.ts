import { and, count, eq, ne } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { first } from "../../db/transaction";
import { badRequest, conflict } from "../../http/errors";
import { fastInserter } from "../../db/fast-insert";
import { cases } from "../cases/tables";
import type { ProjectRow } from "../projects/service";
import { results, runs } from "../runs/tables";
import type { Caller } from "../shared/auth";
import { attachmentIds } from "../shared/envelope";
import { enumName, enumSlug, SEVERITY } from "../../qase/enums";
import type { Reader } from "../shared/lookup";
import { nextNumber, Numbers, optRefId, requireNumbered } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { customFieldValues, customFieldViews, fieldsFor, liveFieldIds } from "../custom-fields/service";
import type { StoredCustomFieldValue } from "../custom-fields/tables";
import { inProject, type ProjectWrite } from "../shared/write";
import type { DefectCreateBody, DefectUpdateBody } from "./model";
import { defects, type DefectStatus } from "./tables";

type Row = typeof defects.$inferSelect;
/** A defect to insert; `caseId`, `runId` and `milestoneId` are row keys. */
export type DefectInput = {
  title: string; actualResult: string; severity: (typeof SEVERITY.names)[number];
  /** The case it was seen in; null when the defect names none (Qase's DefectCreate has no case). */
  caseId: number | null;
  /** Position of the failing step; 0 when not known. */
  step: number;
  runId?: number | null; resultHash?: string | null; milestoneId?: number | null; attachments: number[]; tags?: string[]; customFields?: StoredCustomFieldValue[];
};

/** The API view of a defect; `numbers` gives its case's, run's and milestone's, `liveFields` the custom fields that still exist. Pure. */
export const defectView = (d: Row, numbers: Numbers, liveFields?: ReadonlySet<number>) => ({
  id: d.number, title: d.title, actual_result: d.actualResult, severity: enumSlug(SEVERITY, d.severity), status: d.status, case_id: numbers.of("case", d.caseId), step: d.step,
  milestone_id: numbers.of("milestone", d.milestoneId), attachments: d.attachments, runs: d.runId ? [numbers.of("run", d.runId)] : [], results: d.resultHash ? [d.resultHash] : [],
  tags: d.tags.map((title) => ({ title })), custom_fields: customFieldViews(d.customFields, liveFields), resolved_at: d.resolvedAt, author_id: d.authorId,
  created: d.created, updated: d.updated, created_at: d.created, updated_at: d.updated,
});

/** Views of many defects: their cases', runs' and milestones' numbers in one query each, and which of their custom fields exist in one. */
export async function defectViews(db: Reader, rows: Row[]) {
  const numbers = await Numbers.load(db, { case: rows.map((d) => d.caseId), run: rows.map((d) => d.runId), milestone: rows.map((d) => d.milestoneId) });
  const live = await liveFieldIds(db, rows.flatMap((d) => d.customFields));
  return rows.map((d) => defectView(d, numbers, live));
}

// Reporters file one defect per failed result: up to a row budget's worth in one request.
const insertDefectRow = fastInserter(defects);

/** Inserts a defect and publishes defect.created, inside the caller's transaction. */
export async function insertDefect({ tx, project: p, emit, numbers }: ProjectWrite, caller: Caller, v: DefectInput): Promise<Row> {
  const now = isoMicro();
  const d = await insertDefectRow(tx, {
    projectId: p.id, number: await nextNumber(tx, p.id, "defect"), title: v.title, actualResult: v.actualResult, severity: v.severity, caseId: v.caseId, step: v.step,
    runId: v.runId ?? null, resultHash: v.resultHash ?? null, milestoneId: v.milestoneId ?? null, attachments: v.attachments,
    tags: v.tags ?? [], customFields: v.customFields ?? [], authorId: caller.userId, created: now, updated: now,
  });
  // `case_id` 0 = no case, as `step` 0 = no step: the payload keeps the integer spec §6 types it as.
  const caseNumber = v.caseId != null ? (await numbers.lookUp("case", v.caseId)) ?? 0 : 0;
  await emit("defect.created", { id: d.number, title: d.title, case_id: caseNumber, step: v.step, actual_result: d.actualResult, attachments: d.attachments });
  return d;
}

export function createDefect(db: Db, caller: Caller, p: ProjectRow, body: DefectCreateBody) {
  return inProject(db, p, async (w) => {
    const { tx } = w;
    const customFields = customFieldValues(await fieldsFor(tx, p, "defect"), body.custom_field, null, "defect");
    // The case by the number the body names (a deleted case too: its defects stay filed).
    let c = body.case_id != null ? await first(tx.select().from(cases).where(and(eq(cases.projectId, p.id), eq(cases.number, body.case_id)))) : undefined;
    if (body.case_id != null && !c) throw badRequest(`Test case ${body.case_id} does not exist in this project`, "case_id");
    let step = body.step ?? 0;
    let runId: number | null = null;
    if (body.result_hash != null) {
      const r = (await first(tx.select({ r: results }).from(results).innerJoin(runs, eq(runs.id, results.runId)).where(and(eq(results.hash, body.result_hash), eq(runs.projectId, p.id)))))?.r;
      if (!r) throw badRequest(`Result ${body.result_hash} does not exist in this project`, "result_hash");
      if (r.status !== "failed" && r.status !== "invalid") throw badRequest(`Result ${body.result_hash} is ${r.status}; a defect is filed from a failed result`, "result_hash");
      const ofResult = (await first(tx.select().from(cases).where(eq(cases.id, r.caseId))))!;
      if (c && c.id !== ofResult.id) throw badRequest(`Result ${body.result_hash} is for case ${ofResult.number}, not ${c.number}`, "case_id");
      c = ofResult;
      runId = r.runId;
      if (body.step == null) step = r.steps.find((s) => s.status === "failed" || s.status === "invalid")?.position ?? 0;
    }
    // Qase's DefectCreate names no case: a defect may stand alone (`step` then means nothing).
    if (!c && body.step != null) throw badRequest("`step` needs the case it belongs to (`case_id` or `result_hash`)", "step");
    if (c && body.step != null && c.steps.length && !c.steps.some((s) => s.position === body.step)) throw badRequest(`Test case ${c.number} has no step ${body.step}`, "step");
    const milestoneId = (await optRefId(tx, "milestone", p.id, body.milestone_id, "milestone_id")) ?? null;
    const d = await insertDefect(w, caller, {
      title: body.title, actualResult: body.actual_result, severity: body.severity != null ? enumName(SEVERITY, body.severity) : "normal",
      caseId: c?.id ?? null, step, runId, resultHash: body.result_hash ?? null, milestoneId, attachments: attachmentIds(body.attachments), tags: body.tags ?? [], customFields,
    });
    return { id: d.number };
  });
}

const requireDefect = (db: Reader, projectId: number, number: number) => requireNumbered(db, "defect", projectId, number);

/** Qase's `PATCH /defect/{code}/{id}`: its texts, severity, milestone, attachments, tags. No event (the catalog has none for it). */
export function updateDefect(db: Db, p: ProjectRow, number: number, body: DefectUpdateBody) {
  return inProject(db, p, async ({ tx }) => {
    const d = await requireDefect(tx, p.id, number);
    const set: Partial<Row> = {};
    if (body.custom_field != null) set.customFields = customFieldValues(await fieldsFor(tx, p, "defect"), body.custom_field, d.customFields, "defect");
    if (body.title != null) set.title = body.title;
    if (body.actual_result != null) set.actualResult = body.actual_result;
    if (body.severity != null) set.severity = enumName(SEVERITY, body.severity);
    if (body.milestone_id != null) set.milestoneId = (await optRefId(tx, "milestone", p.id, body.milestone_id, "milestone_id")) ?? null;
    if (body.attachments != null) set.attachments = attachmentIds(body.attachments);
    if (body.tags != null) set.tags = body.tags;
    if (Object.keys(set).length) await tx.update(defects).set({ ...set, updated: isoMicro() }).where(eq(defects.id, d.id));
    return { id: number };
  });
}

/**
 * Qase's `PATCH /defect/{code}/status/{id}`: open, in_progress, resolved or invalid. Becoming
 * resolved sends defect.resolved (as the resolve route does); leaving resolved clears
 * `resolved_at`; the status it already has changes nothing.
 */
export function setDefectStatus(db: Db, p: ProjectRow, number: number, status: DefectStatus) {
  return inProject(db, p, async ({ tx, emit }) => {
    const d = await requireDefect(tx, p.id, number);
    const now = isoMicro();
    // The transition is the row update itself (only from another status): of two concurrent
    // requests one changes the row and sends the event, the other finds nothing to change.
    const changed = await tx.update(defects).set({ status, resolvedAt: status === "resolved" ? now : null, updated: now })
      .where(and(eq(defects.id, d.id), ne(defects.status, status))).returning({ id: defects.id });
    if (changed.length && status === "resolved") await emit("defect.resolved", { id: number });
    return {};
  });
}

/** open → resolved (defect.resolved); resolving a resolved defect is a 409. */
export function resolveDefect(db: Db, p: ProjectRow, number: number) {
  return inProject(db, p, async ({ tx, emit }) => {
    const d = await requireDefect(tx, p.id, number);
    const now = isoMicro();
    // Only an unresolved row changes (the update is the check, so it holds under concurrent resolves).
    const changed = await tx.update(defects).set({ status: "resolved", resolvedAt: now, updated: now })
      .where(and(eq(defects.id, d.id), ne(defects.status, "resolved"))).returning({ id: defects.id });
    if (!changed.length) throw conflict(`Defect ${number} is already resolved`);
    await emit("defect.resolved", { id: number });
    return { id: number };
  });
}

export async function getDefect(db: Db, p: ProjectRow, number: number) {
  return (await defectViews(db, [await requireDefect(db, p.id, number)]))[0]!;
}

export async function listDefects(db: Db, p: ProjectRow, q: { limit: number; offset: number; status?: DefectStatus }) {
  const base = eq(defects.projectId, p.id);
  const where = q.status ? and(base, eq(defects.status, q.status)) : base;
  const total = (await first(db.select({ n: count() }).from(defects).where(base)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(defects).where(where)))!.n;
  const rows = await db.select().from(defects).where(where).orderBy(defects.number).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: await defectViews(db, rows) };
}
