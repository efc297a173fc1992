/**
 * RFC 7644 §3.4.3: searching with POST — `/Users/.search`, `/Groups/.search` and `/.search` (all
 * resource types) — with the same semantics as GET with query parameters: the SearchRequest's
 * fields are read into the same `ListParams`, so filters, paging, sorting and projection behave
 * exactly as on GET.
 */
import { t } from "elysia";
import { ScimError } from "./errors";
import { listResponse, parseListParams, type ListParams } from "./query";

export const SCHEMA_SEARCH_REQUEST = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";

/** Attribute lists may come as a JSON array (RFC 7644) or as one comma-separated string (as in a query). */
const AttributeList = t.Union([t.Array(t.String()), t.String()]);

export const SearchRequest = t.Object({
  schemas: t.Optional(t.Array(t.String(), { description: `Must contain ${SCHEMA_SEARCH_REQUEST} when sent.` })),
  attributes: t.Optional(AttributeList),
  excludedAttributes: t.Optional(AttributeList),
  filter: t.Optional(t.String()),
  sortBy: t.Optional(t.String()),
  sortOrder: t.Optional(t.String({ description: "ascending (default) or descending" })),
  startIndex: t.Optional(t.Integer({ description: "1-based; below 1 means 1" })),
  count: t.Optional(t.Integer({ description: "Page size, default 100, at most 1000; 0 returns only totalResults" })),
}, { examples: [{ schemas: [SCHEMA_SEARCH_REQUEST], filter: 'userName sw "a"', attributes: ["userName", "displayName"], startIndex: 1, count: 10 }] });
export type SearchRequest = typeof SearchRequest.static;

/** The keys of a SearchRequest, for case-insensitive body keys (canonicalizeKeys). */
export const SEARCH_REQUEST_KEYS = ["schemas", "attributes", "excludedAttributes", "filter", "sortBy", "sortOrder", "startIndex", "count"];

/** A SearchRequest as the list parameters GET would have produced. Bad values → 400 as on GET. */
export function searchParams(body: SearchRequest | null | undefined): ListParams {
  const b = body ?? {};
  if (b.schemas && !b.schemas.some((s) => s.toLowerCase() === SCHEMA_SEARCH_REQUEST.toLowerCase()))
    throw new ScimError(400, `schemas must contain ${SCHEMA_SEARCH_REQUEST}`, "invalidSyntax");
  const list = (v: string | string[] | undefined) => (v === undefined ? undefined : Array.isArray(v) ? v.join(",") : v);
  const query: Record<string, string | undefined> = {
    filter: b.filter,
    sortBy: b.sortBy,
    sortOrder: b.sortOrder,
    startIndex: b.startIndex === undefined ? undefined : String(b.startIndex),
    count: b.count === undefined ? undefined : String(b.count),
    attributes: list(b.attributes),
    excludedAttributes: list(b.excludedAttributes),
  };
  return parseListParams(query);
}

type ListResult = { totalResults: number; Resources: unknown[] };
type Lister = (params: ListParams) => Promise<ListResult>;

/**
 * `/.search` over every resource type: users, then groups, paged as one list. A filter one type
 * cannot evaluate (an attribute it does not have) matches none of that type; when no type can
 * evaluate it, the users' 400 is the answer. `sortBy` across types is refused (400): sort within
 * one type with /Users/.search or /Groups/.search.
 */
export async function searchAllTypes(params: ListParams, listers: Lister[]) {
  if (params.sortBy) throw new ScimError(400, "sortBy is not supported across resource types; search /Users/.search or /Groups/.search", "invalidValue");
  const totals: (number | ScimError)[] = [];
  for (const list of listers) {
    try {
      totals.push((await list({ ...params, count: 0, startIndex: 1 })).totalResults);
    } catch (e) {
      if (e instanceof ScimError && e.scimType === "invalidFilter") totals.push(e);
      else throw e;
    }
  }
  if (totals.every((x) => x instanceof ScimError)) throw totals[0];
  const totalResults = totals.reduce<number>((n, x) => n + (typeof x === "number" ? x : 0), 0);
  const resources: unknown[] = [];
  let skip = params.startIndex - 1;
  let want = params.count;
  for (const [i, list] of listers.entries()) {
    const total = totals[i];
    if (typeof total !== "number") continue;
    if (skip >= total) {
      skip -= total;
      continue;
    }
    if (want > 0) {
      const page = await list({ ...params, startIndex: skip + 1, count: Math.min(want, total - skip) });
      resources.push(...page.Resources);
      want -= page.Resources.length;
    }
    skip = 0;
  }
  return listResponse(resources, totalResults, params.startIndex);
}
