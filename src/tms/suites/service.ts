import { and, count, eq, inArray, isNull, max } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { badRequest } from "../../http/errors";
import { publish } from "../../webhooks/publish";
import { cases } from "../cases/tables";
import { copyCase, softDeleteCases } from "../cases/service";
import { requireProject, type ProjectRow } from "../projects/service";
import type { Caller } from "../shared/auth";
import { requireInProject, type Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { SuiteCreateBody, SuiteUpdateBody } from "./model";
import { suites } from "./tables";

type Row = typeof suites.$inferSelect;

/** The API view of a suite with its count of live cases. Pure. */
export function suiteView(s: Row, casesCount: number) {
  return {
    id: s.id, title: s.title, description: s.description, preconditions: s.preconditions, position: s.position, cases_count: casesCount,
    parent_id: s.parentId, author_id: s.authorId, created: s.created, updated: s.updated, created_at: s.created, updated_at: s.updated,
  };
}

/** Views of many suites: their live cases counted in one grouped query. */
function suiteViews(db: Reader, rows: Row[]) {
  const ids = rows.map((s) => s.id);
  const counts = new Map(ids.length === 0 ? [] : db.select({ id: cases.suiteId, n: count() }).from(cases)
    .where(and(inArray(cases.suiteId, ids), isNull(cases.deleted))).groupBy(cases.suiteId).all().map((r) => [r.id, r.n]));
  return rows.map((s) => suiteView(s, counts.get(s.id) ?? 0));
}

const requireSuite = (db: Reader, projectId: number, id: number) => requireInProject(db, suites, projectId, id, "Suite");

function requireParent(tx: Reader, projectId: number, id: number, field = "parent_id") {
  const row = tx.select({ id: suites.id }).from(suites).where(and(eq(suites.id, id), eq(suites.projectId, projectId))).get();
  if (!row) throw badRequest(`Suite ${id} does not exist in this project`, field);
}

/** The suite and all its descendants, parents before children. */
export function subtree(tx: Reader, rootId: number): Row[] {
  const out: Row[] = [];
  let frontier = tx.select().from(suites).where(eq(suites.id, rootId)).all();
  while (frontier.length) {
    out.push(...frontier);
    frontier = tx.select().from(suites).where(inArray(suites.parentId, frontier.map((s) => s.id))).orderBy(suites.position).all();
  }
  return out;
}

const nextPosition = (tx: Reader, projectId: number, parentId: number | null) =>
  (tx.select({ m: max(suites.position) }).from(suites).where(and(eq(suites.projectId, projectId), parentId == null ? isNull(suites.parentId) : eq(suites.parentId, parentId))).get()?.m ?? 0) + 1;

function insertSuite(tx: Tx, p: ProjectRow, caller: Caller, v: { title: string; description: string | null; preconditions: string | null; parentId: number | null }): Row {
  const now = isoMicro();
  return tx.insert(suites).values({ ...v, projectId: p.id, position: nextPosition(tx, p.id, v.parentId), authorId: caller.userId, created: now, updated: now }).returning().get();
}

/**
 * Finds or creates the chain of suites named by `titles` (root first), publishing suite.created
 * for each one created; returns the leaf's id. Used for results of reporters' unlinked tests,
 * which name their suite path (`relations.suite.data`) instead of an id.
 */
export function ensureSuitePath(tx: Tx, p: ProjectRow, caller: Caller, titles: string[], onCreated: () => void = () => {}): number | null {
  let parentId: number | null = null;
  for (const title of titles) {
    const existing: { id: number } | undefined = tx.select({ id: suites.id }).from(suites)
      .where(and(eq(suites.projectId, p.id), parentId == null ? isNull(suites.parentId) : eq(suites.parentId, parentId), eq(suites.title, title)))
      .orderBy(suites.id).get();
    if (existing) {
      parentId = existing.id;
      continue;
    }
    onCreated();
    const s = insertSuite(tx, p, caller, { title, description: null, preconditions: null, parentId });
    publish(tx, "suite.created", { id: s.id, title: s.title, description: "", preconditions: "", parent_id: s.parentId }, { projectCode: p.code });
    parentId = s.id;
  }
  return parentId;
}

export function createSuite(db: Db, caller: Caller, code: string, body: SuiteCreateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    if (body.parent_id != null) requireParent(tx, p.id, body.parent_id);
    const s = insertSuite(tx, p, caller, { title: body.title, description: body.description ?? null, preconditions: body.preconditions ?? null, parentId: body.parent_id ?? null });
    publish(tx, "suite.created", { id: s.id, title: s.title, description: s.description ?? "", preconditions: s.preconditions ?? "", parent_id: s.parentId }, { projectCode: p.code });
    return { id: s.id };
  }, { behavior: "immediate" });
}

export function updateSuite(db: Db, code: string, id: number, body: SuiteUpdateBody) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requireSuite(tx, p.id, id);
    if (body.parent_id != null) {
      requireParent(tx, p.id, body.parent_id);
      // Moving a suite under itself or one of its descendants would cut the subtree off the tree.
      if (subtree(tx, id).some((s) => s.id === body.parent_id)) throw badRequest("A suite cannot be moved under itself or one of its sub-suites", "parent_id");
    }
    tx.update(suites).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.preconditions !== undefined ? { preconditions: body.preconditions } : {}),
      ...(body.parent_id !== undefined ? { parentId: body.parent_id } : {}),
      updated: isoMicro(),
    }).where(eq(suites.id, id)).run();
    publish(tx, "suite.updated", { id }, { projectCode: p.code });
    return { id };
  }, { behavior: "immediate" });
}

/**
 * Deletes the suite and its sub-suites (suite.deleted for each). Their cases move to
 * `destinationId` when given (Qase's SuiteDelete), otherwise they are deleted (case.deleted each).
 */
export function deleteSuite(db: Db, code: string, id: number, destinationId: number | null | undefined) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    requireSuite(tx, p.id, id);
    const tree = subtree(tx, id);
    const ids = tree.map((s) => s.id);
    if (destinationId != null) {
      requireParent(tx, p.id, destinationId, "destination_id");
      if (ids.includes(destinationId)) throw badRequest("The destination suite is being deleted", "destination_id");
    }
    const affected = tx.select({ id: cases.id }).from(cases).where(and(inArray(cases.suiteId, ids), isNull(cases.deleted))).all().map((c) => c.id);
    if (destinationId != null) {
      if (affected.length) tx.update(cases).set({ suiteId: destinationId, updated: isoMicro() }).where(inArray(cases.id, affected)).run();
    } else softDeleteCases(tx, p, affected);
    // Soft-deleted cases keep their rows; detach them so the suite rows can go.
    tx.update(cases).set({ suiteId: null }).where(inArray(cases.suiteId, ids)).run();
    for (const s of [...tree].reverse()) {
      tx.delete(suites).where(eq(suites.id, s.id)).run();
      publish(tx, "suite.deleted", { id: s.id }, { projectCode: p.code });
    }
    return { id };
  }, { behavior: "immediate" });
}

/** Copies the subtree (suite.cloned per suite) and its live cases (case.cloned per case). */
export function cloneSuite(db: Db, caller: Caller, code: string, id: number, body: { parent_id?: number | null; title?: string | null }) {
  return db.transaction((tx) => {
    const p = requireProject(tx, code);
    const root = requireSuite(tx, p.id, id);
    const parentId = body.parent_id !== undefined ? body.parent_id : root.parentId;
    if (parentId != null) {
      requireParent(tx, p.id, parentId);
      if (subtree(tx, id).some((s) => s.id === parentId)) throw badRequest("A suite cannot be cloned into its own subtree", "parent_id");
    }
    const map = new Map<number, number>();
    for (const s of subtree(tx, id)) {
      const copy = insertSuite(tx, p, caller, {
        title: s.id === id ? body.title ?? s.title : s.title, description: s.description, preconditions: s.preconditions,
        parentId: s.id === id ? parentId : map.get(s.parentId!)!,
      });
      map.set(s.id, copy.id);
      publish(tx, "suite.cloned", { id: copy.id, from_id: s.id }, { projectCode: p.code });
      for (const c of tx.select().from(cases).where(and(eq(cases.suiteId, s.id), isNull(cases.deleted))).orderBy(cases.position).all())
        copyCase(tx, p, caller, c, { suiteId: copy.id });
    }
    return { id: map.get(id)! };
  }, { behavior: "immediate" });
}

export function getSuite(db: Db, code: string, id: number) {
  const p = requireProject(db, code);
  return suiteViews(db, [requireSuite(db, p.id, id)])[0]!;
}

export function listSuites(db: Db, code: string, limit: number, offset: number) {
  const p = requireProject(db, code);
  const total = db.select({ n: count() }).from(suites).where(eq(suites.projectId, p.id)).get()!.n;
  const rows = db.select().from(suites).where(eq(suites.projectId, p.id)).orderBy(suites.id).limit(limit).offset(offset).all();
  return { total, entities: suiteViews(db, rows) };
}
