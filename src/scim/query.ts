/**
 * List-query helpers shared by /Users and /Groups (RFC 7644 §3.4.2): paging, sorting, the
 * ListResponse envelope, and `attributes`/`excludedAttributes` projection. Pure functions.
 */
import { ScimError } from "./errors";
import { parseAttrPath, type AttrPath } from "./filter";
import { SCHEMA_LIST_RESPONSE } from "./protocol";

export const DEFAULT_COUNT = 100;
/** Announced as `filter.maxResults` in /ServiceProviderConfig. */
export const MAX_COUNT = 1000;

export type ListParams = {
  /** 1-based; below 1 means 1. */
  startIndex: number;
  /** 0 → only totalResults; default 100; capped at MAX_COUNT. */
  count: number;
  filter?: string;
  sortBy?: AttrPath;
  sortOrder: "ascending" | "descending";
  attributes?: AttrPath[];
  excludedAttributes?: AttrPath[];
};

const integerParam = (name: string, raw: string): number => {
  const v = raw.trim();
  if (!/^[+-]?\d+$/.test(v)) throw new ScimError(400, `${name} must be an integer, got ${JSON.stringify(raw)}`, "invalidValue");
  const n = Number(v);
  return Number.isSafeInteger(n) ? n : n > 0 ? Number.MAX_SAFE_INTEGER : -1;
};

/** Comma-separated attribute paths, as in `attributes=userName,name.familyName`. */
export function parseAttributeList(raw: string, param: string): AttrPath[] {
  const out: AttrPath[] = [];
  for (const part of raw.split(",")) {
    const p = part.trim();
    if (!p) continue;
    try {
      out.push(parseAttrPath(p));
    } catch {
      throw new ScimError(400, `${param}: invalid attribute path ${JSON.stringify(p)}`, "invalidValue");
    }
  }
  return out;
}

/**
 * The query string as a plain object, decoded as `application/x-www-form-urlencoded` (`+` is a
 * space, as the form encoding IdPs use says); the last of repeated keys wins. Same result as
 * iterating `URLSearchParams` (test/scim/query.test.ts compares them on random input) at a
 * fraction of the cost on the hot lookup path: most pairs need one native
 * `decodeURIComponent`, and only a malformed escape falls back to URLSearchParams' lenient
 * decoding.
 */
export function queryOf(request: Request): Record<string, string> {
  const url = request.url;
  const at = url.indexOf("?");
  // null prototype: keys come from the request (`?__proto__=…` is just a key)
  const out: Record<string, string> = Object.create(null);
  if (at < 0) return out;
  const hash = url.indexOf("#", at);
  const query = url.slice(at + 1, hash < 0 ? undefined : hash);
  for (const pair of query.split("&")) {
    if (pair === "") continue;
    const eq = pair.indexOf("=");
    const key = formDecode(eq < 0 ? pair : pair.slice(0, eq));
    out[key] = eq < 0 ? "" : formDecode(pair.slice(eq + 1));
  }
  return out;
}

function formDecode(part: string): string {
  const spaced = part.includes("+") ? part.replaceAll("+", " ") : part;
  if (!spaced.includes("%")) return spaced;
  try {
    return decodeURIComponent(spaced);
  } catch {
    // malformed escape or invalid UTF-8: decode it the lenient WHATWG way (a value may hold
    // literal "=", which must not split it here)
    return new URLSearchParams(`v=${part.replaceAll("=", "%3D")}`).get("v") ?? spaced;
  }
}

/** Reads the list query parameters (names case-insensitive). Bad values → 400 invalidValue. */
export function parseListParams(query: Record<string, string | string[] | undefined>): ListParams {
  const q: Record<string, string> = Object.create(null);
  for (const k in query) {
    const v = query[k];
    if (v !== undefined) q[k.toLowerCase()] = Array.isArray(v) ? v[v.length - 1]! : v;
  }
  const startIndex = q.startindex !== undefined && q.startindex.trim() !== "" ? Math.max(1, integerParam("startIndex", q.startindex)) : 1;
  const count = q.count !== undefined && q.count.trim() !== "" ? Math.min(MAX_COUNT, Math.max(0, integerParam("count", q.count))) : DEFAULT_COUNT;
  let sortOrder: ListParams["sortOrder"] = "ascending";
  if (q.sortorder !== undefined && q.sortorder.trim() !== "") {
    const o = q.sortorder.trim().toLowerCase();
    if (o !== "ascending" && o !== "descending") throw new ScimError(400, `sortOrder must be "ascending" or "descending"`, "invalidValue");
    sortOrder = o;
  }
  let sortBy: AttrPath | undefined;
  if (q.sortby !== undefined && q.sortby.trim() !== "") {
    try {
      sortBy = parseAttrPath(q.sortby.trim());
    } catch {
      throw new ScimError(400, `sortBy: invalid attribute path ${JSON.stringify(q.sortby)}`, "invalidValue");
    }
  }
  const params: ListParams = { startIndex, count, sortOrder };
  if (q.filter !== undefined && q.filter.trim() !== "") params.filter = q.filter;
  if (sortBy) params.sortBy = sortBy;
  if (q.attributes !== undefined && q.attributes.trim() !== "") params.attributes = parseAttributeList(q.attributes, "attributes");
  if (q.excludedattributes !== undefined && q.excludedattributes.trim() !== "") params.excludedAttributes = parseAttributeList(q.excludedattributes, "excludedAttributes");
  return params;
}

/** Reads only `attributes`/`excludedAttributes` (for GET of one resource). */
export function parseProjectionParams(query: Record<string, string | string[] | undefined>): Pick<ListParams, "attributes" | "excludedAttributes"> {
  let projection: Record<string, string | string[] | undefined> | null = null;
  for (const k in query) if (/^(attributes|excludedattributes)$/i.test(k)) (projection ??= {})[k] = query[k];
  if (projection === null) return {}; // every GET /Users/{id} an IdP sends
  const { attributes, excludedAttributes } = parseListParams(projection);
  return { ...(attributes ? { attributes } : {}), ...(excludedAttributes ? { excludedAttributes } : {}) };
}

export type ListResponse<T> = {
  schemas: [typeof SCHEMA_LIST_RESPONSE];
  totalResults: number;
  itemsPerPage: number;
  startIndex: number;
  Resources: T[];
};

export function listResponse<T>(resources: T[], totalResults: number, startIndex: number): ListResponse<T> {
  return { schemas: [SCHEMA_LIST_RESPONSE], totalResults, itemsPerPage: resources.length, startIndex, Resources: resources };
}

/** Attributes RFC 7643 marks `returned: always`; projection never removes them. */
export const ALWAYS_RETURNED = ["id", "schemas"];

/**
 * Applies `attributes` or `excludedAttributes` (RFC 7644 §3.4.2.5) to a rendered resource.
 * Names compare case-insensitively; a path may carry the resource's schema URN
 * (`urn:…:core:2.0:User:userName`) or name an extension (its URN is the top-level key).
 * Sub-attribute paths (`name.givenName`, `emails.value`) keep/remove that part of a complex or
 * multi-valued attribute. `attributes` wins when both are given (the RFC says not to send both).
 */
export function projectResource<T extends Record<string, unknown>>(
  resource: T,
  params: Pick<ListParams, "attributes" | "excludedAttributes">,
  coreSchema: string,
  alwaysReturned: string[] = ALWAYS_RETURNED,
): Record<string, unknown> {
  const { attributes, excludedAttributes } = params;
  if (!attributes?.length && !excludedAttributes?.length) return resource;
  const always = new Set(alwaysReturned.map((a) => a.toLowerCase()));
  const core = coreSchema.toLowerCase();
  const extensionKeys = new Set(Object.keys(resource).filter((k) => k.startsWith("urn:")).map((k) => k.toLowerCase()));
  // Normalise each path to [topKey, sub?] lower-cased, with URN prefixes resolved.
  const norm = (p: AttrPath): [string, string | undefined] => {
    // a whole extension, named by its URN alone (`attributes=urn:…:enterprise:2.0:User`)
    if (p.uri && !p.sub && extensionKeys.has(`${p.uri}:${p.name}`.toLowerCase())) return [`${p.uri}:${p.name}`.toLowerCase(), undefined];
    if (p.uri && p.uri.toLowerCase() !== core) {
      // extension attribute: top-level key is the URN; name[.sub] inside it is treated as sub
      return [p.uri.toLowerCase(), p.name.toLowerCase()];
    }
    return [p.name.toLowerCase(), p.sub?.toLowerCase()];
  };
  const keyOf = (k: string) => k.toLowerCase();
  const out: Record<string, unknown> = {};
  if (attributes?.length) {
    const wanted = new Map<string, Set<string> | "all">();
    for (const p of attributes) {
      const [top, sub] = norm(p);
      const cur = wanted.get(top);
      if (!sub || cur === "all") wanted.set(top, "all");
      else (cur ?? wanted.set(top, new Set()).get(top) as Set<string>).add(sub);
    }
    for (const [k, v] of Object.entries(resource)) {
      const w = wanted.get(keyOf(k));
      if (always.has(keyOf(k)) || w === "all") out[k] = v;
      else if (w) {
        const picked = pickSubs(v, (s) => w.has(s.toLowerCase()));
        if (picked !== undefined) out[k] = picked;
      }
    }
    return out;
  }
  const drop = new Map<string, Set<string> | "all">();
  for (const p of excludedAttributes!) {
    const [top, sub] = norm(p);
    const cur = drop.get(top);
    if (!sub || cur === "all") drop.set(top, "all");
    else (cur ?? drop.set(top, new Set()).get(top) as Set<string>).add(sub);
  }
  for (const [k, v] of Object.entries(resource)) {
    const d = drop.get(keyOf(k));
    if (always.has(keyOf(k)) || !d) out[k] = v;
    else if (d !== "all") {
      const kept = pickSubs(v, (s) => !d.has(s.toLowerCase()));
      if (kept !== undefined) out[k] = kept;
    }
  }
  return out;
}

/** Keeps the sub-attributes of an object (or of each object in an array) that `keep` accepts. */
function pickSubs(v: unknown, keep: (sub: string) => boolean): unknown {
  const pickOne = (o: unknown) => {
    if (!o || typeof o !== "object" || Array.isArray(o)) return undefined;
    const r: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(o)) if (keep(k)) r[k] = x;
    return Object.keys(r).length ? r : undefined;
  };
  if (Array.isArray(v)) {
    const items = v.map(pickOne).filter((x) => x !== undefined);
    return items.length ? items : undefined;
  }
  return pickOne(v);
}
