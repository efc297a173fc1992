import { and, count, eq, inArray, isNull, max } from "drizzle-orm";
import { containsText } from "../../db/contains";
import type { Db, Tx } from "../../db/connection";
import { first } from "../../db/transaction";
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
async function suiteViews(db: Reader, rows: Row[]) {
  const ids = rows.map((s) => s.id);
  const counts = new Map(ids.length === 0 ? [] : (await db.select({ id: cases.suiteId, n: count() }).from(cases)
    .where(and(inArray(cases.suiteId, ids), isNull(cases.deleted))).groupBy(cases.suiteId)).map((r) => [r.id, r.n]));
  const numbers = await Numbers.load(db, { suite: rows.map((s) => s.parentId) });
  return rows.map((s) => suiteView(s, counts.get(s.id) ?? 0, numbers.of("suite", s.parentId)));
}

const requireSuite = (db: Reader, projectId: number, number: number) => requireNumbered(db, "suite", projectId, number);

/** The suite and all its descendants, parents before children. */
export async function subtree(tx: Reader, rootId: number): Promise<Row[]> {
  const out: Row[] = [];
  let frontier = await tx.select().from(suites).where(eq(suites.id, rootId));
  while (frontier.length) {
    out.push(...frontier);
    frontier = await tx.select().from(suites).where(inArray(suites.parentId, frontier.map((s) => s.id))).orderBy(suites.position);
  }
  return out;
}

const nextPosition = async (tx: Reader, projectId: number, parentId: number | null) =>
  ((await first(tx.select({ m: max(suites.position) }).from(suites).where(and(eq(suites.projectId, projectId), parentId == null ? isNull(suites.parentId) : eq(suites.parentId, parentId)))))?.m ?? 0) + 1;

async function insertSuite(tx: Tx, p: ProjectRow, caller: Caller, v: { title: string; description: string | null; preconditions: string | null; parentId: number | null }): Promise<Row> {
  const now = isoMicro();
  const [row] = await tx.insert(suites).values({
    ...v, projectId: p.id, number: await nextNumber(tx, p.id, "suite"), position: await nextPosition(tx, p.id, v.parentId), authorId: caller.userId, created: now, updated: now,
  }).returning();
  return row!;
}

/** A suite's key and its number. */
type SuiteRef = { id: number; number: number };

/**
 * Finds or creates the chain of suites named by `titles` (root first), publishing suite.created
 * for each one created; returns the leaf. Used for results of reporters' unlinked tests, which
 * name their suite path (`relations.suite.data`) instead of an id.
 */
export async function ensureSuitePath(w: ProjectWrite, caller: Caller, titles: string[], onCreated: () => void = () => {}): Promise<SuiteRef | null> {
  const { tx, project: p } = w;
  let parent: SuiteRef | null = null;
  for (const title of titles) {
    const existing: SuiteRef | undefined = await first(tx.select({ id: suites.id, number: suites.number }).from(suites)
      .where(and(eq(suites.projectId, p.id), parent == null ? isNull(suites.parentId) : eq(suites.parentId, parent.id), eq(suites.title, title)))
      .orderBy(suites.id).limit(1));
    if (existing) {
      parent = existing;
      continue;
    }
    onCreated();
    const s = await insertSuite(tx, p, caller, { title, description: null, preconditions: null, parentId: parent?.id ?? null });
    await w.emit("suite.created", { id: s.number, title: s.title, description: "", preconditions: "", parent_id: parent?.number ?? null });
    parent = s;
  }
  return parent;
}

export function createSuite(db: Db, caller: Caller, p: ProjectRow, body: SuiteCreateBody) {
  return inProject(db, p, async ({ tx, emit }) => {
    const parentId = (await optRefId(tx, "suite", p.id, body.parent_id, "parent_id")) ?? null;
    const s = await insertSuite(tx, p, caller, { title: body.title, description: body.description ?? null, preconditions: body.preconditions ?? null, parentId });
    await emit("suite.created", { id: s.number, title: s.title, description: s.description ?? "", preconditions: s.preconditions ?? "", parent_id: body.parent_id ?? null });
    return { id: s.number };
  });
}

export function updateSuite(db: Db, p: ProjectRow, number: number, body: SuiteUpdateBody) {
  return inProject(db, p, async ({ tx, emit }) => {
    const s = await requireSuite(tx, p.id, number);
    const parentId = await optRefId(tx, "suite", p.id, body.parent_id, "parent_id");
    // Moving a suite under itself or one of its descendants would cut the subtree off the tree.
    if (parentId != null && (await subtree(tx, s.id)).some((x) => x.id === parentId)) throw badRequest("A suite cannot be moved under itself or one of its sub-suites", "parent_id");
    await tx.update(suites).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.preconditions !== undefined ? { preconditions: body.preconditions } : {}),
      ...(parentId !== undefined ? { parentId } : {}),
      updated: isoMicro(),
    }).where(eq(suites.id, s.id));
    await emit("suite.updated", { id: number });
    return { id: number };
  });
}

/**
 * Deletes the suite and its sub-suites (suite.deleted for each). Their cases move to the suite
 * numbered `destination` when given (Qase's SuiteDelete), otherwise they are deleted (case.deleted each).
 */
export function deleteSuite(db: Db, p: ProjectRow, number: number, destination: number | null | undefined) {
  return inProject(db, p, async (w) => {
    const { tx } = w;
    const root = await requireSuite(tx, p.id, number);
    const tree = await subtree(tx, root.id);
    const ids = tree.map((s) => s.id);
    const destinationId = await optRefId(tx, "suite", p.id, destination, "destination_id");
    if (destinationId != null && ids.includes(destinationId)) throw badRequest("The destination suite is being deleted", "destination_id");
    const affected = await tx.select({ id: cases.id, number: cases.number }).from(cases).where(and(inArray(cases.suiteId, ids), isNull(cases.deleted)));
    if (destinationId != null) {
      if (affected.length) await tx.update(cases).set({ suiteId: destinationId, updated: isoMicro() }).where(inArray(cases.id, affected.map((c) => c.id)));
    } else await softDeleteCases(w, affected);
    // Soft-deleted cases keep their rows; detach them so the suite rows can go.
    await tx.update(cases).set({ suiteId: null }).where(inArray(cases.suiteId, ids));
    for (const s of [...tree].reverse()) {
      await tx.delete(suites).where(eq(suites.id, s.id));
      await w.emit("suite.deleted", { id: s.number });
    }
    return { id: number };
  });
}

/** Copies the subtree (suite.cloned per suite) and its live cases (case.cloned per case). */
export function cloneSuite(db: Db, caller: Caller, p: ProjectRow, number: number, body: { parent_id?: number | null; title?: string | null }) {
  return inProject(db, p, async (w) => {
    const { tx } = w;
    const root = await requireSuite(tx, p.id, number);
    const given = await optRefId(tx, "suite", p.id, body.parent_id, "parent_id");
    const parentId = given !== undefined ? given : root.parentId;
    const tree = await subtree(tx, root.id);
    if (parentId != null && tree.some((s) => s.id === parentId)) throw badRequest("A suite cannot be cloned into its own subtree", "parent_id");
    const copies = new Map<number, Row>();
    for (const s of tree) {
      const copy = await insertSuite(tx, p, caller, {
        title: s.id === root.id ? body.title ?? s.title : s.title, description: s.description, preconditions: s.preconditions,
        parentId: s.id === root.id ? parentId : copies.get(s.parentId!)!.id,
      });
      copies.set(s.id, copy);
      await w.emit("suite.cloned", { id: copy.number, from_id: s.number });
      for (const c of await tx.select().from(cases).where(and(eq(cases.suiteId, s.id), isNull(cases.deleted))).orderBy(cases.position))
        await copyCase(w, caller, c, { suiteId: copy.id });
    }
    return { id: copies.get(root.id)!.number };
  });
}

export async function getSuite(db: Db, p: ProjectRow, number: number) {
  return (await suiteViews(db, [await requireSuite(db, p.id, number)]))[0]!;
}

export async function listSuites(db: Db, p: ProjectRow, q: { limit: number; offset: number; search?: string }) {
  const base = eq(suites.projectId, p.id);
  const where = q.search ? and(base, containsText(suites.title, q.search)) : base;
  const total = (await first(db.select({ n: count() }).from(suites).where(base)))!.n;
  const filtered = q.search ? (await first(db.select({ n: count() }).from(suites).where(where)))!.n : total;
  const rows = await db.select().from(suites).where(where).orderBy(suites.number).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: await suiteViews(db, rows) };
}
