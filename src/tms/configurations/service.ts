import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { badRequest, conflict } from "../../http/errors";
import type { ProjectRow } from "../projects/service";
import { inProject } from "../shared/write";
import type { Reader } from "../shared/lookup";
import { isoMicro } from "../shared/time";
import type { ConfigurationCreateBody } from "./model";
import { configurationGroups, configurations } from "./tables";

export function createConfigurationGroup(db: Db, p: ProjectRow, title: string) {
  return inProject(db, p, ({ tx }) => {
    if (tx.select({ id: configurationGroups.id }).from(configurationGroups).where(and(eq(configurationGroups.projectId, p.id), eq(configurationGroups.title, title))).get())
      throw conflict(`A configuration group "${title}" already exists in this project`);
    return { id: tx.insert(configurationGroups).values({ projectId: p.id, title, created: isoMicro() }).returning().get().id };
  });
}

export function createConfiguration(db: Db, p: ProjectRow, body: ConfigurationCreateBody) {
  return inProject(db, p, ({ tx }) => {
    const group = tx.select().from(configurationGroups).where(and(eq(configurationGroups.id, body.group_id), eq(configurationGroups.projectId, p.id))).get();
    if (!group) throw badRequest(`Configuration group ${body.group_id} does not exist in this project`, "group_id");
    if (tx.select({ id: configurations.id }).from(configurations).where(and(eq(configurations.groupId, group.id), eq(configurations.title, body.title))).get())
      throw conflict(`Configuration "${body.title}" already exists in group "${group.title}"`);
    return { id: tx.insert(configurations).values({ projectId: p.id, groupId: group.id, title: body.title, created: isoMicro() }).returning().get().id };
  });
}

/** Every group of the project with its configurations (Qase answers them all in one page). */
export function listConfigurations(db: Db, p: ProjectRow) {
  const groups = db.select().from(configurationGroups).where(eq(configurationGroups.projectId, p.id)).orderBy(configurationGroups.id).all();
  const values = db.select().from(configurations).where(eq(configurations.projectId, p.id)).orderBy(configurations.id).all();
  const entities = groups.map((g) => ({ id: g.id, title: g.title, configurations: values.filter((v) => v.groupId === g.id).map((v) => ({ id: v.id, title: v.title })) }));
  return { total: entities.length, filtered: entities.length, count: entities.length, entities };
}

/** Configuration ids of a run body: each must be a configuration of the project (400 naming `configurations`). */
export function requireConfigurationIds(db: Reader, projectId: number, ids: number[]): number[] {
  const unique = [...new Set(ids)];
  if (!unique.length) return [];
  const found = new Set(db.select({ id: configurations.id }).from(configurations).where(and(eq(configurations.projectId, projectId), inArray(configurations.id, unique))).all().map((r) => r.id));
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`Configuration ${missing.join(", ")} does not exist in this project`, "configurations");
  return unique;
}

/** The configurations a run names, as `{ id, title, group }` for its view. */
export function configurationTitles(db: Reader, ids: number[]) {
  if (!ids.length) return [];
  return db.select({ id: configurations.id, title: configurations.title, group: configurationGroups.title }).from(configurations)
    .innerJoin(configurationGroups, eq(configurationGroups.id, configurations.groupId)).where(inArray(configurations.id, ids)).all();
}
