import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { rowsOf } from "../../db/statement";
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
async function render(db: Db, baseUrl: string, entity: string, keys: (string | number)[]): Promise<unknown[]> {
  if (!keys.length) return [];
  const ids = keys.map(Number);
  const inOrder = <T>(rows: T[], keyOf: (r: T) => string | number) => {
    const by = new Map(rows.map((r) => [String(keyOf(r)), r]));
    return keys.map((k) => by.get(String(k))!).filter(Boolean);
  };
  switch (entity) {
    case "case":
      return caseViews(db, inOrder(await db.select().from(cases).where(inArray(cases.id, ids)), (r) => r.id));
    case "run": {
      const rows = inOrder(await db.select({ run: runs, code: projects.code }).from(runs).innerJoin(projects, eq(projects.id, runs.projectId)).where(inArray(runs.id, ids)), (r) => r.run.id);
      const details = await runDetails(db, rows.map((r) => r.run));
      return rows.map((r) => runView(r.run, details.get(r.run.id)!, baseUrl, r.code));
    }
    case "result":
      return resultViews(db, inOrder(await db.select().from(results).where(inArray(results.hash, keys.map(String))), (r) => r.hash));
    case "defect":
      return defectViews(db, inOrder(await db.select().from(defects).where(inArray(defects.id, ids)), (r) => r.id));
    default: {
      const views = [];
      for (const r of inOrder(await db.select().from(plans).where(inArray(plans.id, ids)), (r) => r.id)) views.push(planView(r, (await casesOfPlan(db, r.id)).map((c) => c.number)));
      return views;
    }
  }
}

/** The workspace's fields of `entity` with the given lower-cased titles (titles compare ignoring case, beyond ASCII too). */
async function fieldsTitled(db: Db, workspaceId: number, entity: string, titles: string[]): Promise<Map<string, QqlCustomField[]>> {
  const found = new Map<string, QqlCustomField[]>();
  if (!titles.length || (entity !== "case" && entity !== "run" && entity !== "defect")) return found;
  const wanted = new Set(titles);
  const rows = await db.select({ id: customFields.id, title: customFields.title, type: customFields.type, options: customFields.options }).from(customFields)
    .where(and(eq(customFields.workspaceId, workspaceId), eq(customFields.entity, entity)));
  for (const f of rows) {
    const key = f.title.toLowerCase();
    if (wanted.has(key)) found.set(key, [...(found.get(key) ?? []), { id: f.id, type: f.type, options: f.options }]);
  }
  return found;
}

/** QQL search within the caller's workspace: one COUNT and one page of keys, both bound SQL. */
/**
 * Compiled QQL text (whitelisted SQL with `?` for each of `params`, in order) as a drizzle query
 * whose parameters are bound, so each engine numbers them its own way.
 */
export function boundSql(text: string, params: readonly (string | number)[]): SQL {
  const chunks: SQL[] = [];
  let next = 0;
  let from = 0;
  // A `?` inside a quoted literal or name is text, not a parameter.
  for (const m of text.matchAll(/'(?:[^']|'')*'|"(?:[^"]|"")*"|\?/g)) {
    if (m[0] !== "?") continue;
    if (next >= params.length) throw new Error("QQL text has more parameters than values");
    chunks.push(sql.raw(text.slice(from, m.index)), sql`${params[next++]}`);
    from = m.index! + 1;
  }
  if (next !== params.length) throw new Error("QQL text has fewer parameters than values");
  chunks.push(sql.raw(text.slice(from)));
  return sql.join(chunks);
}

export async function search(db: Db, baseUrl: string, caller: { workspaceId: number; userId: number | null }, query: string, page: { limit: number; offset: number }) {
  let c;
  try {
    const q = parseQql(query);
    c = compileQql(q, caller.workspaceId, { userId: caller.userId, now: new Date(), customFields: await fieldsTitled(db, caller.workspaceId, q.entity, customFieldTitles(q)) });
  } catch (e) {
    if (e instanceof QqlError) throw badRequest(`Invalid QQL: ${e.message}`, "query");
    throw e;
  }
  const total = Number((await rowsOf<{ n: number }>(db, boundSql(`SELECT count(*) AS n FROM ${c.from} WHERE ${c.where}`, c.params)))[0]!.n);
  const keys = (await rowsOf<{ k: string | number }>(db, boundSql(`SELECT ${c.key} AS k FROM ${c.from} WHERE ${c.where} ORDER BY ${c.order} LIMIT ? OFFSET ?`, [...c.params, page.limit, page.offset])))
    .map((r) => r.k);
  const entities = (await render(db, baseUrl, c.entity, keys)).map((e) => ({ entity: c.entity, ...(e as object) }));
  return { total, filtered: total, count: entities.length, entities };
}
