import { and, eq, inArray, isNull } from "drizzle-orm";
import { badRequest } from "../../http/errors";
import { cases } from "../cases/tables";
import type { Reader } from "./lookup";

/** De-duplicates `ids` (keeping order) and checks each is a live case of the project; 400 naming `field` otherwise. */
export function requireCaseIds(db: Reader, projectId: number, ids: number[], field = "cases"): number[] {
  const unique = [...new Set(ids)];
  const found = new Set<number>();
  for (let i = 0; i < unique.length; i += 500) {
    const chunk = unique.slice(i, i + 500);
    for (const r of db.select({ id: cases.id }).from(cases).where(and(inArray(cases.id, chunk), eq(cases.projectId, projectId), isNull(cases.deleted))).all()) found.add(r.id);
  }
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`Test case${missing.length > 1 ? "s" : ""} ${missing.slice(0, 10).join(", ")} do${missing.length > 1 ? "" : "es"} not exist in this project`, field);
  return unique;
}
