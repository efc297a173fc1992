import { and, count, eq, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { first } from "../../db/transaction";
import { containsText } from "../../db/contains";
import { conflict } from "../../http/errors";
import type { ProjectRow } from "../projects/service";
import { inProject } from "../shared/write";
import type { Caller } from "../shared/auth";
import { requireInProject, type Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { EnvironmentCreateBody, EnvironmentUpdateBody } from "./model";
import { environments } from "./tables";

type Row = typeof environments.$inferSelect;

export const environmentView = (e: Row) => ({ id: e.id, title: e.title, slug: e.slug, description: e.description, host: e.host });

export const requireEnvironment = (db: Reader, projectId: number, id: number) => requireInProject(db, environments, projectId, id, "Environment");

export const environmentBySlug = (db: Reader, projectId: number, slug: string) =>
  first(db.select().from(environments).where(and(eq(environments.projectId, projectId), eq(environments.slug, slug))));

async function requireFreeSlug(db: Reader, projectId: number, slug: string, except?: number) {
  const other = await environmentBySlug(db, projectId, slug);
  if (other && other.id !== except) throw conflict(`An environment with slug "${slug}" already exists in this project`);
}

/**
 * Slugs are unique per project (a unique index), checked first to answer 409; writes that set a
 * slug serialize on the project's environments so the check stays true until they write.
 */
const slugsOf = (p: ProjectRow) => ({ serializeOn: [`environments:${p.id}`] });

export function createEnvironment(db: Db, caller: Caller, p: ProjectRow, body: EnvironmentCreateBody) {
  return inProject(db, p, async ({ tx }) => {
    await requireFreeSlug(tx, p.id, body.slug);
    const now = isoMicro();
    const [e] = await tx.insert(environments).values({
      projectId: p.id, title: body.title, slug: body.slug, description: body.description ?? null, host: body.host ?? null,
      authorId: caller.userId, created: now, updated: now,
    }).returning({ id: environments.id });
    return { id: e!.id };
  }, slugsOf(p));
}

export function updateEnvironment(db: Db, p: ProjectRow, id: number, body: EnvironmentUpdateBody) {
  return inProject(db, p, async ({ tx }) => {
    await requireEnvironment(tx, p.id, id);
    if (body.slug != null) await requireFreeSlug(tx, p.id, body.slug, id);
    await tx.update(environments).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.slug != null ? { slug: body.slug } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.host !== undefined ? { host: body.host } : {}),
      updated: isoMicro(),
    }).where(eq(environments.id, id));
    return { id };
  }, body.slug != null ? slugsOf(p) : undefined);
}

/** Runs that ran in it keep their slug (`environment`) and lose the link. */
export function deleteEnvironment(db: Db, p: ProjectRow, id: number) {
  return inProject(db, p, async ({ tx }) => {
    await requireEnvironment(tx, p.id, id);
    await tx.delete(environments).where(eq(environments.id, id));
    return { id };
  });
}

export async function getEnvironment(db: Db, p: ProjectRow, id: number) {
  return environmentView(await requireEnvironment(db, p.id, id));
}

export async function listEnvironments(db: Db, p: ProjectRow, q: { limit: number; offset: number; search?: string; slug?: string }) {
  const base = eq(environments.projectId, p.id);
  const filters: SQL[] = [base];
  if (q.slug) filters.push(eq(environments.slug, q.slug));
  if (q.search) filters.push(containsText(environments.title, q.search));
  const where = and(...filters);
  const total = (await first(db.select({ n: count() }).from(environments).where(base)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(environments).where(where)))!.n;
  const rows = await db.select().from(environments).where(where).orderBy(environments.id).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: rows.map(environmentView) };
}
