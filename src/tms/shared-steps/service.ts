import { randomBytes } from "node:crypto";
import { and, count, eq } from "drizzle-orm";
import { containsText } from "../../db/contains";
import type { Db, Tx } from "../../db/connection";
import { first } from "../../db/transaction";
import { badRequest, notFound } from "../../http/errors";
import type { Caller } from "../shared/auth";
import { isoMicro } from "../shared/time";
import type { ProjectRow } from "../projects/service";
import { inProject } from "../shared/write";
import type { SharedStepCreateBody, SharedStepUpdateBody } from "./model";
import { sharedSteps } from "./tables";

type Row = typeof sharedSteps.$inferSelect;

export const sharedStepView = (s: Row) => ({
  hash: s.hash, title: s.title, action: s.action, expected_result: s.expectedResult ?? "", data: s.data ?? "",
  steps: [{ action: s.action, expected_result: s.expectedResult ?? "", data: s.data ?? "" }],
  author_id: s.authorId, created: s.created, updated: s.updated, created_at: s.created, updated_at: s.updated,
});

export async function requireSharedStep(db: Db | Tx, projectId: number, hash: string): Promise<Row> {
  const s = await first(db.select().from(sharedSteps).where(and(eq(sharedSteps.hash, hash), eq(sharedSteps.projectId, projectId))));
  if (!s) throw notFound(`Shared step ${hash}`);
  return s;
}

export function createSharedStep(db: Db, caller: Caller, p: ProjectRow, body: SharedStepCreateBody) {
  const action = body.action ?? body.steps?.[0]?.action;
  if (!action) throw badRequest("A shared step needs an `action`", "action");
  const expected = body.expected_result ?? body.steps?.[0]?.expected_result ?? null;
  const data = body.data ?? body.steps?.[0]?.data ?? null;
  return inProject(db, p, async ({ tx, emit }) => {
    const now = isoMicro();
    const hash = randomBytes(20).toString("hex");
    await tx.insert(sharedSteps).values({ hash, projectId: p.id, title: body.title, action, expectedResult: expected, data, authorId: caller.userId, created: now, updated: now });
    await emit("shared_step.created", { hash, title: body.title, action, expected_result: expected ?? "" });
    return { hash };
  });
}

export function updateSharedStep(db: Db, p: ProjectRow, hash: string, body: SharedStepUpdateBody) {
  return inProject(db, p, async ({ tx, emit }) => {
    await requireSharedStep(tx, p.id, hash);
    const action = body.action ?? body.steps?.[0]?.action;
    const expected = body.expected_result ?? body.steps?.[0]?.expected_result;
    const data = body.data ?? body.steps?.[0]?.data;
    await tx.update(sharedSteps).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(action != null ? { action } : {}),
      ...(expected !== undefined ? { expectedResult: expected } : {}),
      ...(data !== undefined ? { data } : {}),
      updated: isoMicro(),
    }).where(eq(sharedSteps.hash, hash));
    await emit("shared_step.updated", { hash });
    return { hash };
  });
}

/** Case steps that referenced it keep their copied text and the (now dangling) `shared_hash`. */
export function deleteSharedStep(db: Db, p: ProjectRow, hash: string) {
  return inProject(db, p, async ({ tx, emit }) => {
    await requireSharedStep(tx, p.id, hash);
    await tx.delete(sharedSteps).where(eq(sharedSteps.hash, hash));
    await emit("shared_step.deleted", { hash });
    return { hash };
  });
}

export async function listSharedSteps(db: Db, p: ProjectRow, q: { limit: number; offset: number; search?: string }) {
  const base = eq(sharedSteps.projectId, p.id);
  const where = q.search ? and(base, containsText(sharedSteps.title, q.search)) : base;
  const total = (await first(db.select({ n: count() }).from(sharedSteps).where(base)))!.n;
  const filtered = q.search ? (await first(db.select({ n: count() }).from(sharedSteps).where(where)))!.n : total;
  const rows = await db.select().from(sharedSteps).where(where).orderBy(sharedSteps.created).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: rows.map(sharedStepView) };
}
