import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { first } from "../../db/transaction";
import { badRequest, conflict } from "../../http/errors";
import type { ProjectRow } from "../projects/service";
import { inProject } from "../shared/write";
import type { Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { ConfigurationCreateBody } from "./model";
import { configurationGroups, configurations } from "./tables";

/**
 * Titles are unique per project (groups) and per group (configurations): unique indexes, checked
 * first to answer 409; the transactions serialize on the project's configurations so the check
 * stays true until the insert under concurrent requests.
 */
const configurationsOf = (p: ProjectRow) => ({ serializeOn: [`configurations:${p.id}`] });

export function createConfigurationGroup(db: Db, p: ProjectRow, title: string) {
  return inProject(db, p, async ({ tx }) => {
    if (await first(tx.select({ id: configurationGroups.id }).from(configurationGroups).where(and(eq(configurationGroups.projectId, p.id), eq(configurationGroups.title, title)))))
      throw conflict(`A configuration group "${title}" already exists in this project`);
    const [group] = await tx.insert(configurationGroups).values({ projectId: p.id, title, created: isoMicro() }).returning({ id: configurationGroups.id });
    return { id: group!.id };
  }, configurationsOf(p));
}

export function createConfiguration(db: Db, p: ProjectRow, body: ConfigurationCreateBody) {
  return inProject(db, p, async ({ tx }) => {
    const group = await first(tx.select().from(configurationGroups).where(and(eq(configurationGroups.id, body.group_id), eq(configurationGroups.projectId, p.id))));
    if (!group) throw badRequest(`Configuration group ${body.group_id} does not exist in this project`, "group_id");
    if (await first(tx.select({ id: configurations.id }).from(configurations).where(and(eq(configurations.groupId, group.id), eq(configurations.title, body.title)))))
      throw conflict(`Configuration "${body.title}" already exists in group "${group.title}"`);
    const [configuration] = await tx.insert(configurations).values({ projectId: p.id, groupId: group.id, title: body.title, created: isoMicro() }).returning({ id: configurations.id });
    return { id: configuration!.id };
  }, configurationsOf(p));
}

/** Every group of the project with its configurations (Qase answers them all in one page). */
export async function listConfigurations(db: Db, p: ProjectRow) {
  const groups = await db.select().from(configurationGroups).where(eq(configurationGroups.projectId, p.id)).orderBy(configurationGroups.id);
  const values = await db.select().from(configurations).where(eq(configurations.projectId, p.id)).orderBy(configurations.id);
  const entities = groups.map((g) => ({ id: g.id, title: g.title, configurations: values.filter((v) => v.groupId === g.id).map((v) => ({ id: v.id, title: v.title })) }));
  return { total: entities.length, filtered: entities.length, count: entities.length, entities };
}

/** Configuration ids of a run body: each must be a configuration of the project (400 naming `configurations`). */
export async function requireConfigurationIds(db: Reader, projectId: number, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const found = new Set((await db.select({ id: configurations.id }).from(configurations).where(and(eq(configurations.projectId, projectId), inArray(configurations.id, unique)))).map((r) => r.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`Configuration ${missing.join(", ")} does not exist in this project`, "configurations");
  return unique;
}

/** The configurations a run names, as `{ id, title, group }` for its view. */
export async function configurationTitles(db: Reader, ids: number[]) {
  if (!ids.length) return [];
  return await db.select({ id: configurations.id, title: configurations.title, group: configurationGroups.title }).from(configurations)
    .innerJoin(configurationGroups, eq(configurationGroups.id, configurations.groupId)).where(inArray(configurations.id, ids));
}
