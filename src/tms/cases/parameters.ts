import { inArray } from "drizzle-orm";
import { badRequest } from "../../http/errors";
import type { ProjectRow } from "../projects/service";
import type { Reader } from "../shared/lookup";
import { checkParameters, storedParameters } from "../shared-parameters/service";
import { sharedParameters, type ParameterValues } from "../shared-parameters/tables";
import type { CaseCreateBody, CaseParameterView as CaseParameterViewSchema } from "./model";
import type { CaseParameter } from "./tables";

type SharedRow = typeof sharedParameters.$inferSelect;
type Input = NonNullable<CaseCreateBody["parameters"]>[number];
type CaseParameterView = typeof CaseParameterViewSchema.static;

/**
 * A case's `parameters` as stored, from Qase's `TestCaseParameterCreate` forms: `{shared_id}` (a
 * shared parameter of the project's workspace, usable in the project), `{items}` (a group) or
 * `{title, values}` (a single parameter), taken in that order when an item has several. Each
 * inline form follows the shared parameters' shape rules; parameter titles are unique across the
 * case (ignoring case), shared ones counted as they read when written. 400s name
 * `parameters.N` (`parameters.N.shared_id` for a reference).
 */
export async function buildCaseParameters(db: Reader, project: ProjectRow, input: Input[]): Promise<CaseParameter[]> {
  const shared = await sharedById(db, input.flatMap((p) => (p.shared_id != null ? [p.shared_id.toLowerCase()] : [])));
  const titles = new Set<string>();
  return input.map((p, i) => {
    const field = `parameters.${i}`;
    let stored: CaseParameter;
    let named: ParameterValues[];
    if (p.shared_id != null) {
      const s = shared.get(p.shared_id.toLowerCase());
      if (!s || s.workspaceId !== project.workspaceId) throw badRequest(`Shared parameter ${p.shared_id} does not exist in this workspace`, `${field}.shared_id`);
      if (!s.isEnabledForAllProjects && !s.projectCodes.includes(project.code))
        throw badRequest(`Shared parameter ${p.shared_id} is not enabled for project ${project.code}`, `${field}.shared_id`);
      stored = { shared_id: s.uuid };
      named = s.parameters;
    } else if (p.items != null) {
      checkParameters("group", p.items, field);
      stored = { type: "group", items: storedParameters(p.items) };
      named = p.items;
    } else {
      if (p.title == null || p.values == null) throw badRequest("A case parameter is {shared_id}, {items} or {title, values}", field);
      const single = { title: p.title, values: p.values };
      checkParameters("single", [single], field);
      stored = { type: "single", item: storedParameters([single])[0]! };
      named = [single];
    }
    for (const { title } of named) {
      if (titles.has(title.toLowerCase())) throw badRequest(`Parameter title "${title}" appears twice among the case's parameters`, field);
      titles.add(title.toLowerCase());
    }
    return stored;
  });
}

/** Shared parameters by UUID, in one query. */
async function sharedById(db: Reader, uuids: string[]): Promise<Map<string, SharedRow>> {
  if (uuids.length === 0) return new Map();
  return new Map((await db.select().from(sharedParameters).where(inArray(sharedParameters.uuid, [...new Set(uuids)]))).map((s) => [s.uuid, s]));
}

/** The shared parameters many cases reference, in one query (for `caseParameterViews`). */
export const sharedParametersOf = (db: Reader, rows: { parameters: CaseParameter[] }[]) =>
  sharedById(db, rows.flatMap((c) => c.parameters.flatMap((p) => ("shared_id" in p ? [p.shared_id] : []))));

/**
 * Qase `TestCaseParameter`s of a case: inline ones as stored (`shared_id` null), references with
 * the shared parameter's current title and values. A reference to a deleted shared parameter is
 * left out (Qase deletes a shared parameter "along with all its usages"). Pure.
 */
export function caseParameterViews(stored: CaseParameter[], shared: Map<string, SharedRow>): CaseParameterView[] {
  return stored.flatMap((p): CaseParameterView[] => {
    if (!("shared_id" in p)) return [p.type === "single" ? { shared_id: null, type: "single", item: p.item } : { shared_id: null, type: "group", items: p.items }];
    const s = shared.get(p.shared_id);
    if (!s) return [];
    return [s.type === "single" ? { shared_id: s.uuid, type: "single", item: s.parameters[0]! } : { shared_id: s.uuid, type: "group", items: s.parameters }];
  });
}
