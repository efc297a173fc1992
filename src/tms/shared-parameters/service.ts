import { and, count, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { first, writeTransaction } from "../../db/transaction";
import { containsText } from "../../db/contains";
import { jsonArrayHasAny } from "../../db/dialect";
import { badRequest, notFound } from "../../http/errors";
import { workspaceProjectCodes } from "../projects/service";
import type { Caller } from "../shared/auth";
import type { Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { SharedParameterCreateBody, SharedParameterUpdateBody } from "./model";
import { sharedParameters, type ParameterValues } from "./tables";

type Row = typeof sharedParameters.$inferSelect;
type Type = Row["type"];

export const sharedParameterView = (p: Row) => ({
  id: p.uuid, title: p.title, type: p.type, project_codes: p.projectCodes, is_enabled_for_all_projects: p.isEnabledForAllProjects, parameters: p.parameters,
});

/**
 * The shape rules Qase's schema states or implies, as one pure check (400 naming `parameters`):
 * `single` holds exactly one parameter and `group` two or more (the spec's min/maxItems); titles
 * are unique within a group (ignoring case), since they name the columns; a group's values go
 * together by position (row i is every parameter's i-th value), so every parameter of a group has
 * the same number of values; a single parameter's values are distinct (a repeated value would
 * only run the same case twice).
 */
export function checkParameters(type: Type, parameters: ParameterValues[], field = "parameters"): void {
  if (type === "single" && parameters.length !== 1)
    throw badRequest(`A single parameter is exactly one parameter; got ${parameters.length}`, field);
  if (type === "group" && parameters.length < 2)
    throw badRequest("A group has two or more parameters (one alone is a single parameter)", field);
  const titles = new Set<string>();
  for (const p of parameters) {
    const key = p.title.toLowerCase();
    if (titles.has(key)) throw badRequest(`Parameter title "${p.title}" appears twice; titles are unique within a parameter set`, field);
    titles.add(key);
  }
  if (type === "group") {
    const rows = parameters[0]!.values.length;
    const uneven = parameters.find((p) => p.values.length !== rows);
    if (uneven) throw badRequest(`Every parameter of a group has the same number of values (rows): "${parameters[0]!.title}" has ${rows}, "${uneven.title}" has ${uneven.values.length}`, field);
  } else if (new Set(parameters[0]!.values).size !== parameters[0]!.values.length) {
    throw badRequest(`Parameter "${parameters[0]!.title}" lists a value twice`, field);
  }
}

/** Only what the schema allows is stored (no extra keys a client may have sent inside a parameter). */
export const storedParameters = (parameters: ParameterValues[]): ParameterValues[] => parameters.map((p) => ({ title: p.title, values: [...p.values] }));

function checkReach(enabledForAll: boolean, codes: string[]) {
  if (!enabledForAll && codes.length === 0)
    throw badRequest("A shared parameter not enabled for all projects names at least one project in project_codes", "project_codes");
}

/** The caller's workspace's shared parameter with this UUID, or 404 (another workspace's is not found either). */
export async function requireSharedParameter(db: Reader, workspaceId: number, uuid: string): Promise<Row> {
  const row = await first(db.select().from(sharedParameters)
    .where(and(eq(sharedParameters.uuid, uuid.toLowerCase()), eq(sharedParameters.workspaceId, workspaceId))));
  if (!row) throw notFound(`Shared parameter ${uuid}`);
  return row;
}

export function createSharedParameter(db: Db, caller: Caller, body: SharedParameterCreateBody) {
  checkParameters(body.type, body.parameters);
  return writeTransaction(db, async (tx) => {
    const codes = await workspaceProjectCodes(tx, caller.workspaceId, body.project_codes ?? [], "project_codes");
    checkReach(body.is_enabled_for_all_projects, codes);
    const now = isoMicro();
    const uuid = crypto.randomUUID();
    await tx.insert(sharedParameters).values({
      uuid, workspaceId: caller.workspaceId, title: body.title, type: body.type, parameters: storedParameters(body.parameters),
      isEnabledForAllProjects: body.is_enabled_for_all_projects, projectCodes: codes, authorId: caller.userId, created: now, updated: now,
    });
    return { id: uuid };
  });
}

/** The type never changes (Qase's update has no `type`); `parameters`, when given, replaces them all and must fit it. */
export function updateSharedParameter(db: Db, caller: Caller, uuid: string, body: SharedParameterUpdateBody) {
  return writeTransaction(db, async (tx) => {
    const row = await requireSharedParameter(tx, caller.workspaceId, uuid);
    if (body.parameters != null) checkParameters(row.type, body.parameters);
    const codes = body.project_codes != null ? await workspaceProjectCodes(tx, caller.workspaceId, body.project_codes, "project_codes") : row.projectCodes;
    const enabledForAll = body.is_enabled_for_all_projects ?? row.isEnabledForAllProjects;
    checkReach(enabledForAll, codes);
    await tx.update(sharedParameters).set({
      ...(body.title != null ? { title: body.title } : {}),
      ...(body.parameters != null ? { parameters: storedParameters(body.parameters) } : {}),
      projectCodes: codes, isEnabledForAllProjects: enabledForAll, updated: isoMicro(),
    }).where(eq(sharedParameters.id, row.id));
    return { id: row.uuid };
  });
}

export function deleteSharedParameter(db: Db, caller: Caller, uuid: string) {
  return writeTransaction(db, async (tx) => {
    const row = await requireSharedParameter(tx, caller.workspaceId, uuid);
    await tx.delete(sharedParameters).where(eq(sharedParameters.id, row.id));
    return { id: row.uuid };
  });
}

/** `filters[project_codes][]` values: repeated, and each possibly comma-separated. */
export const filterCodes = (raw: string | string[] | undefined): string[] =>
  (raw === undefined ? [] : Array.isArray(raw) ? raw : [raw]).flatMap((v) => v.split(",")).map((c) => c.trim()).filter((c) => c !== "");

export type SharedParameterFilters = { limit: number; offset: number; search?: string; type?: Type; projectCodes?: string[] };

export async function listSharedParameters(db: Db, workspaceId: number, q: SharedParameterFilters) {
  const base = eq(sharedParameters.workspaceId, workspaceId);
  const filters: SQL[] = [base];
  if (q.search) filters.push(containsText(sharedParameters.title, q.search));
  if (q.type) filters.push(eq(sharedParameters.type, q.type));
  if (q.projectCodes?.length) {
    const codes = await workspaceProjectCodes(db, workspaceId, q.projectCodes, "filters[project_codes][]");
    filters.push(sql`(${sharedParameters.isEnabledForAllProjects} = 1 OR ${jsonArrayHasAny(sharedParameters.projectCodes, codes)})`);
  }
  const where = and(...filters);
  const total = (await first(db.select({ n: count() }).from(sharedParameters).where(base)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(sharedParameters).where(where)))!.n;
  const rows = await db.select().from(sharedParameters).where(where).orderBy(sharedParameters.id).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: rows.map(sharedParameterView) };
}
