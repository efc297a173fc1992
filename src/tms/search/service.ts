import { and, eq, inArray } from "drizzle-orm";
import { clientOf, type Db } from "../../db/connection";
import { badRequest } from "../../http/errors";
import { caseViews } from "../cases/service";
import { cases } from "../cases/tables";
import { defectViews } from "../defects/service";
import { defects } from "../defects/tables";
import { casesOfPlan, planView } from "../plans/service";
import { plans } from "../plans/tables";
import { projects } from "../projects/tables";
import { resultViews, runDetails, runView } from "../runs/service";
import { results, runs } from "../runs/tables";
import { customFields } from "../custom-fields/tables";
import { compileQql, customFieldTitles, type QqlCustomField } from "./compile";
import { parseQql, QqlError } from "./qql";

/** Loads the rows of one page by key and renders them as the entity's own API view, in page order. */
function render(db: Db, baseUrl: string, entity: string, keys: (string | number)[]): unknown[] {
  if (!keys.length) return [];
  const ids = keys.map(Number);
  const inOrder = <T>(rows: T[], keyOf: (r: T) => string | number) => {
    const by = new Map(rows.map((r) => [String(keyOf(r)), r]));
    return keys.map((k) => by.get(String(k))!).filter(Boolean);
  };
  switch (entity) {
    case "case":
      return caseViews(db, inOrder(db.select().from(cases).where(inArray(cases.id, ids)).all(), (r) => r.id));
    case "run": {
      const rows = inOrder(db.select({ run: runs, code: projects.code }).from(runs).innerJoin(projects, eq(projects.id, runs.projectId)).where(inArray(runs.id, ids)).all(), (r) => r.run.id);
      const details = runDetails(db, rows.map((r) => r.run));
      return rows.map((r) => runView(r.run, details.get(r.run.id)!, baseUrl, r.code));
    }
    case "result":
      return resultViews(db, inOrder(db.select().from(results).where(inArray(results.hash, keys.map(String))).all(), (r) => r.hash));
    case "defect":
      return defectViews(db, inOrder(db.select().from(defects).where(inArray(defects.id, ids)).all(), (r) => r.id));
    default:
      return inOrder(db.select().from(plans).where(inArray(plans.id, ids)).all(), (r) => r.id).map((r) => planView(r, casesOfPlan(db, r.id).map((c) => c.number)));
  }
}

/** The workspace's fields of `entity` with the given lower-cased titles (titles compare ignoring case, beyond ASCII too). */
function fieldsTitled(db: Db, workspaceId: number, entity: string, titles: string[]): Map<string, QqlCustomField[]> {
  const found = new Map<string, QqlCustomField[]>();
  if (!titles.length || (entity !== "case" && entity !== "run" && entity !== "defect")) return found;
  const wanted = new Set(titles);
  const rows = db.select({ id: customFields.id, title: customFields.title, type: customFields.type, options: customFields.options }).from(customFields)
    .where(and(eq(customFields.workspaceId, workspaceId), eq(customFields.entity, entity))).all();
  for (const f of rows) {
    const key = f.title.toLowerCase();
    if (wanted.has(key)) found.set(key, [...(found.get(key) ?? []), { id: f.id, type: f.type, options: f.options }]);
  }
  return found;
}

/** QQL search within the caller's workspace: one COUNT and one page of keys, both bound SQL. */
export function search(db: Db, baseUrl: string, caller: { workspaceId: number; userId: number | null }, query: string, page: { limit: number; offset: number }) {
  let c;
  try {
    const q = parseQql(query);
    c = compileQql(q, caller.workspaceId, { userId: caller.userId, now: new Date(), customFields: fieldsTitled(db, caller.workspaceId, q.entity, customFieldTitles(q)) });
  } catch (e) {
    if (e instanceof QqlError) throw badRequest(`Invalid QQL: ${e.message}`, "query");
    throw e;
  }
  const client = clientOf(db);
  const total = client.query<{ n: number }, (string | number)[]>(`SELECT count(*) AS n FROM ${c.from} WHERE ${c.where}`).get(...c.params)!.n;
  const keys = client.query<{ k: string | number }, (string | number)[]>(`SELECT ${c.key} AS k FROM ${c.from} WHERE ${c.where} ORDER BY ${c.order} LIMIT ? OFFSET ?`)
    .all(...c.params, page.limit, page.offset).map((r) => r.k);
  const entities = render(db, baseUrl, c.entity, keys).map((e) => ({ entity: c.entity, ...(e as object) }));
  return { total, filtered: total, count: entities.length, entities };
}
