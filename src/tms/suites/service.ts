import { and, count, eq, inArray, isNull, max } from "drizzle-orm";
import { containsText } from "../../db/contains";
import type { Db, Tx } from "../../db/connection";
import { badRequest } from "../../http/errors";
import { cases } from "../cases/tables";
import { copyCase, softDeleteCases } from "../cases/service";
import type { ProjectRow } from "../projects/service";
import type { Caller } from "../shared/auth";
import type { Reader } from "../shared/lookup";
import { nextNumber, Numbers, optRefId, requireNumbered } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { inProject, type ProjectWrite } from "../shared/write";
import type { SuiteCreateBody, SuiteUpdateBody } from "./model";
import { suites } from "./tables";

type Row = typeof suites.$inferSelect;

/** The API view of a suite with its count of live cases and its parent's number. Pure. */
export function suiteView(s: Row, casesCount: number, parentNumber: number | null) {
  return {
    id: s.number, title: s.title, description: s.description, preconditions: s.preconditions, position: s.position, cases_count: casesCount,
    parent_id: parentNumber, author_id: s.authorId, created: s.created, updated: s.updated, created_at: s.created, updated_at: s.updated,
  };
}

/** Views of many suites: their live cases counted in one grouped query, their parents' numbers in one more. */
function suiteViews(db: Reader, rows: Row[]) {
  const ids = rows.map((s) => s.id);
  const counts = new Map(ids.length === 0 ? [] : db.select({ id: cases.suiteId, n: count() }).from(cases)
    .where(and(inArray(cases.suiteId, ids), isNull(cases.deleted))).groupBy(cases.suiteId).all().map((r) => [r.id, r.n]));
  const numbers = Numbers.load(db, { suite: rows.map((s) => s.parentId) });
  return rows.map((s) => suiteView(s, counts.get(s.id) ?? 0, numbers.of("suite", s.parentId)));
}

const requireSuite = (db: Reader, projectId: number, number: number) => requireNumbered(db, "suite", projectId, number);

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
  return tx.insert(suites).values({
    ...v, projectId: p.id, number: nextNumber(tx, p.id, "suite"), position: nextPosition(tx, p.id, v.parentId), authorId: caller.userId, created: now, updated: now,
  }).returning().get();
}

/** A suite's key and its number. */
type SuiteRef = { id: number; number: number };

/**
 * Finds or creates the chain of suites named by `titles` (root first), publishing suite.created
 * for each one created; returns the leaf. Used for results of reporters' unlinked tests, which
 * name their suite path (`relations.suite.data`) instead of an id.
 */
export function ensureSuitePath(w: ProjectWrite, caller: Caller, titles: string[], onCreated: () => void = () => {}): SuiteRef | null {
  const { tx, project: p } = w;
  let parent: SuiteRef | null = null;
  for (const title of titles) {
    const existing: SuiteRef | undefined = tx.select({ id: suites.id, number: suites.number }).from(suites)
      .where(and(eq(suites.projectId, p.id), parent == null ? isNull(suites.parentId) : eq(suites.parentId, parent.id), eq(suites.title, title)))
      .orderBy(suites.id).get();
    if (existing) {
      parent = existing;
      continue;
    }
    onCreated();
    const s = insertSuite(tx, p, caller, { title, description: null, preconditions: null, parentId: parent?.id ?? null });
    w.emit("suite.created", { id: s.number, title: s.title, description: "", preconditions: "", parent_id: parent?.number ?? null });
    parent = s;
  }
  return parent;
}

export function createSuite(db: Db, caller: Caller, p: ProjectRow, body: SuiteCreateBody) {
  return inProject(db, p, ({ tx, emit }) => {
    const parentId = optRefId(tx, "suite", p.id, body.parent_id, "parent_id") ?? null;
    const s = insertSuite(tx, p, caller, { title: body.title, description: body.description ?? null, preconditions: body.preconditions ?? null, parentId });
    emit("suite.created", { id: s.number, title: s.title, description: s.description ?? "", preconditions: s.preconditions ?? "", parent_id: body.parent_id ?? null });
    return { id: s.number };
  });
}

export function updateSuite(db: Db, p: ProjectRow, number: number, body: SuiteUpdateBody) {
  return inProject(db, p, ({ tx, emit }) => {
    const s = requireSuite(tx, p.id, number);
    const parentId = optRefId(tx, "suite", p.id, body.parent_id, "parent_id");
    // Moving a suite under itself or one of its descendants would cut the subtree off the tree.
    if (parentId != null && subtree(tx, s.id).some((x) => x.id === parentId)) throw badRequest("A suite cannot be moved under itself or one of its sub-suites", "parent_id");
    tx.update(suites).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.preconditions !== undefined ? { preconditions: body.preconditions } : {}),
      ...(parentId !== undefined ? { parentId } : {}),
      updated: isoMicro(),
    }).where(eq(suites.id, s.id)).run();
    emit("suite.updated", { id: number });
    return { id: number };
  });
}

/**
 * Deletes the suite and its sub-suites (suite.deleted for each). Their cases move to the suite
 * numbered `destination` when given (Qase's SuiteDelete), otherwise they are deleted (case.deleted each).
 */
export function deleteSuite(db: Db, p: ProjectRow, number: number, destination: number | null | undefined) {
  return inProject(db, p, (w) => {
    const { tx } = w;
    const root = requireSuite(tx, p.id, number);
    const tree = subtree(tx, root.id);
    const ids = tree.map((s) => s.id);
    const destinationId = optRefId(tx, "suite", p.id, destination, "destination_id");
    if (destinationId != null && ids.includes(destinationId)) throw badRequest("The destination suite is being deleted", "destination_id");
    const affected = tx.select({ id: cases.id, number: cases.number }).from(cases).where(and(inArray(cases.suiteId, ids), isNull(cases.deleted))).all();
    if (destinationId != null) {
      if (affected.length) tx.update(cases).set({ suiteId: destinationId, updated: isoMicro() }).where(inArray(cases.id, affected.map((c) => c.id))).run();
    } else softDeleteCases(w, affected);
    // Soft-deleted cases keep their rows; detach them so the suite rows can go.
    tx.update(cases).set({ suiteId: null }).where(inArray(cases.suiteId, ids)).run();
    for (const s of [...tree].reverse()) {
      tx.delete(suites).where(eq(suites.id, s.id)).run();
      w.emit("suite.deleted", { id: s.number });
    }
    return { id: number };
  });
}

/** Copies the subtree (suite.cloned per suite) and its live cases (case.cloned per case). */
export function cloneSuite(db: Db, caller: Caller, p: ProjectRow, number: number, body: { parent_id?: number | null; title?: string | null }) {
  return inProject(db, p, (w) => {
    const { tx } = w;
    const root = requireSuite(tx, p.id, number);
    const given = optRefId(tx, "suite", p.id, body.parent_id, "parent_id");
    const parentId = given !== undefined ? given : root.parentId;
    const tree = subtree(tx, root.id);
    if (parentId != null && tree.some((s) => s.id === parentId)) throw badRequest("A suite cannot be cloned into its own subtree", "parent_id");
    const copies = new Map<number, Row>();
    for (const s of tree) {
      const copy = insertSuite(tx, p, caller, {
        title: s.id === root.id ? body.title ?? s.title : s.title, description: s.description, preconditions: s.preconditions,
        parentId: s.id === root.id ? parentId : copies.get(s.parentId!)!.id,
      });
      copies.set(s.id, copy);
      w.emit("suite.cloned", { id: copy.number, from_id: s.number });
      for (const c of tx.select().from(cases).where(and(eq(cases.suiteId, s.id), isNull(cases.deleted))).orderBy(cases.position).all())
        copyCase(w, caller, c, { suiteId: copy.id });
    }
    return { id: copies.get(root.id)!.number };
  });
}

export function getSuite(db: Db, p: ProjectRow, number: number) {
  return suiteViews(db, [requireSuite(db, p.id, number)])[0]!;
}

export function listSuites(db: Db, p: ProjectRow, q: { limit: number; offset: number; search?: string }) {
  const base = eq(suites.projectId, p.id);
  const where = q.search ? and(base, containsText(suites.title, q.search)) : base;
  const total = db.select({ n: count() }).from(suites).where(base).get()!.n;
  const filtered = q.search ? db.select({ n: count() }).from(suites).where(where).get()!.n : total;
  const rows = db.select().from(suites).where(where).orderBy(suites.number).limit(q.limit).offset(q.offset).all();
  return { total, filtered, entities: suiteViews(db, rows) };
}
