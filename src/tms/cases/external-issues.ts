import { and, eq, exists, inArray, isNull, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { badRequest } from "../../http/errors";
import type { ProjectRow } from "../projects/service";
import { csv } from "../shared/list-filters";
import type { Reader } from "../shared/lookup";
import { refId } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { inProject } from "../shared/write";
import { EXTERNAL_ISSUE_TYPES, type CaseExternalIssuesBody } from "./model";
import { caseExternalIssues, cases } from "./tables";

/**
 * Case external issues (Qase's `POST /case/{code}/external-issue/attach|detach`): links between
 * live cases of the project and issue ids of a Jira integration. Attaching a link that exists
 * keeps it; detaching one that does not is a no-op; a detach with no ids unlinks every issue of
 * that type from the case. One transaction per request: a bad case id refuses the whole request.
 * No webhook event: the catalog has none (as for runs' external issues).
 */

/** The case keys of the body's links (400 naming `links.N.case_id` for a case not live in the project) and each link's issue ids, trimmed, each once. */
async function resolveLinks(tx: Reader, p: ProjectRow, body: CaseExternalIssuesBody) {
  const links: { caseId: number; ids: string[] }[] = [];
  for (const [i, l] of body.links.entries()) {
    const caseId = await refId(tx, "case", p.id, l.case_id, `links.${i}.case_id`, isNull(cases.deleted));
    const ids = l.external_issues.map((raw, j) => {
      const id = raw.trim();
      if (!id) throw badRequest("An issue id is not empty", `links.${i}.external_issues.${j}`);
      return id;
    });
    links.push({ caseId, ids: [...new Set(ids)] });
  }
  return links;
}

export function attachCaseExternalIssues(db: Db, p: ProjectRow, body: CaseExternalIssuesBody) {
  return inProject(db, p, async ({ tx }) => {
    const created = isoMicro();
    for (const { caseId, ids } of await resolveLinks(tx, p, body)) {
      if (ids.length) await tx.insert(caseExternalIssues).values(ids.map((issueId) => ({ caseId, type: body.type, issueId, created }))).onConflictDoNothing();
    }
    return { status: true as const };
  });
}

export function detachCaseExternalIssues(db: Db, p: ProjectRow, body: CaseExternalIssuesBody) {
  return inProject(db, p, async ({ tx }) => {
    for (const { caseId, ids } of await resolveLinks(tx, p, body)) {
      const ofType = and(eq(caseExternalIssues.caseId, caseId), eq(caseExternalIssues.type, body.type));
      await tx.delete(caseExternalIssues).where(ids.length ? and(ofType, inArray(caseExternalIssues.issueId, ids)) : ofType);
    }
    return { status: true as const };
  });
}

export type ExternalIssueGroup = { type: string; issues: { id: string; link?: string }[] };

/** The external issues of many cases in one query, grouped by tracker type (Qase's `ExternalIssue`), by case key. */
export async function externalIssuesOf(db: Reader, caseIds: number[]): Promise<Map<number, ExternalIssueGroup[]>> {
  const out = new Map<number, ExternalIssueGroup[]>();
  if (!caseIds.length) return out;
  const rows = await db.select().from(caseExternalIssues).where(inArray(caseExternalIssues.caseId, caseIds))
    .orderBy(caseExternalIssues.caseId, caseExternalIssues.type, caseExternalIssues.created, caseExternalIssues.issueId);
  for (const r of rows) {
    const groups = out.get(r.caseId) ?? [];
    if (!out.has(r.caseId)) out.set(r.caseId, groups);
    let group = groups.find((g) => g.type === r.type);
    if (!group) groups.push((group = { type: r.type, issues: [] }));
    // An id that is itself an address is its own link; a tracker key (SHOP-42) has no address known here.
    group.issues.push(/^https?:\/\//i.test(r.issueId) ? { id: r.issueId, link: r.issueId } : { id: r.issueId });
  }
  return out;
}

/**
 * The case list's `external_issues[type]` / `external_issues[ids][]` filters: cases linked to an
 * issue of that tracker and/or with one of those ids. An unknown tracker is a 400 naming it.
 */
export function externalIssueFilter(db: Reader, type: string | undefined, ids: string | string[] | undefined): SQL | null {
  const wantedIds = (Array.isArray(ids) ? ids : ids === undefined ? [] : [ids]).flatMap(csv);
  if (type === undefined && !wantedIds.length) return null;
  const t = type?.trim().toLowerCase();
  if (t !== undefined && !(EXTERNAL_ISSUE_TYPES as readonly string[]).includes(t))
    throw badRequest(`"external_issues[type]" takes one of ${EXTERNAL_ISSUE_TYPES.join(", ")}`, "external_issues[type]");
  const where = and(eq(caseExternalIssues.caseId, cases.id), t !== undefined ? eq(caseExternalIssues.type, t) : undefined, wantedIds.length ? inArray(caseExternalIssues.issueId, wantedIds) : undefined);
  return exists(db.select({ one: sql`1` }).from(caseExternalIssues).where(where));
}
