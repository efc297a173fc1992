import { and, count, eq, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
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
  db.select().from(environments).where(and(eq(environments.projectId, projectId), eq(environments.slug, slug))).get();

function requireFreeSlug(db: Reader, projectId: number, slug: string, except?: number) {
  const other = environmentBySlug(db, projectId, slug);
  if (other && other.id !== except) throw conflict(`An environment with slug "${slug}" already exists in this project`);
}

export function createEnvironment(db: Db, caller: Caller, p: ProjectRow, body: EnvironmentCreateBody) {
  return inProject(db, p, ({ tx }) => {
    requireFreeSlug(tx, p.id, body.slug);
    const now = isoMicro();
    const e = tx.insert(environments).values({
      projectId: p.id, title: body.title, slug: body.slug, description: body.description ?? null, host: body.host ?? null,
      authorId: caller.userId, created: now, updated: now,
    }).returning().get();
    return { id: e.id };
  });
}

export function updateEnvironment(db: Db, p: ProjectRow, id: number, body: EnvironmentUpdateBody) {
  return inProject(db, p, ({ tx }) => {
    requireEnvironment(tx, p.id, id);
    if (body.slug != null) requireFreeSlug(tx, p.id, body.slug, id);
    tx.update(environments).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.slug != null ? { slug: body.slug } : {}),
      ...(body.description !== undefined ? { description: body.description } : {}),
      ...(body.host !== undefined ? { host: body.host } : {}),
      updated: isoMicro(),
    }).where(eq(environments.id, id)).run();
    return { id };
  });
}

/** Runs that ran in it keep their slug (`environment`) and lose the link. */
export function deleteEnvironment(db: Db, p: ProjectRow, id: number) {
  return inProject(db, p, ({ tx }) => {
    requireEnvironment(tx, p.id, id);
    tx.delete(environments).where(eq(environments.id, id)).run();
    return { id };
  });
}

export function getEnvironment(db: Db, p: ProjectRow, id: number) {
  return environmentView(requireEnvironment(db, p.id, id));
}

export function listEnvironments(db: Db, p: ProjectRow, q: { limit: number; offset: number; search?: string; slug?: string }) {
  const base = eq(environments.projectId, p.id);
  const filters: SQL[] = [base];
  if (q.slug) filters.push(eq(environments.slug, q.slug));
  if (q.search) filters.push(containsText(environments.title, q.search));
  const where = and(...filters);
  const total = db.select({ n: count() }).from(environments).where(base).get()!.n;
  const filtered = db.select({ n: count() }).from(environments).where(where).get()!.n;
  const rows = db.select().from(environments).where(where).orderBy(environments.id).limit(q.limit).offset(q.offset).all();
  return { total, filtered, entities: rows.map(environmentView) };
}
