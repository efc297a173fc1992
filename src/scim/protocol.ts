/**
 * What every SCIM route shares at the HTTP level: schema URNs, the media type, reading a request
 * body (media type check, 800000-byte limit also for chunked bodies, JSON syntax), and resource
 * locations. Pure or request-local; no Elysia imports, so resource services can use it.
 */
import { readJsonBodyWithin, type BodyErrors } from "../http/body";
import { ScimError } from "./errors";

export const SCIM_MEDIA_TYPE = "application/scim+json";
export const SCHEMA_USER = "urn:ietf:params:scim:schemas:core:2.0:User";
export const SCHEMA_GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group";
export const SCHEMA_ENTERPRISE_USER = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
export const SCHEMA_LIST_RESPONSE = "urn:ietf:params:scim:api:messages:2.0:ListResponse";
export const SCHEMA_PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/**
 * PATCH bodies: RFC 7644 §3.5.2 says `schemas` holds the PatchOp URN. A body that names other
 * schemas is refused (400 invalidSyntax); one that omits `schemas` is accepted, because the
 * operations are unambiguous and refusing them would break lenient middleware for no gain.
 * Users and Groups share this rule.
 */
export function assertPatchOpSchemas(schemas: readonly string[] | null | undefined): void {
  if (schemas == null) return;
  if (!schemas.some((s) => s.toLowerCase() === SCHEMA_PATCH_OP.toLowerCase()))
    throw new ScimError(400, `schemas must contain ${SCHEMA_PATCH_OP}`, "invalidSyntax");
}

/** A case-folded name → canonical spelling table for `canonicalizeKeys`. */
export function canonicalNames(names: readonly string[]): ReadonlyMap<string, string> {
  return new Map(names.map((n) => [n.toLowerCase(), n]));
}

/**
 * RFC 7643 §2.1: attribute names are case-insensitive. Rewrites a request body's keys to their
 * canonical spelling (top level and two levels down: `Name.GivenName`, `Members[].Value`,
 * `Operations[].Op`) so the `t` schemas can validate them. PATCH `value`s are left alone: the
 * patch appliers read their keys case-insensitively themselves. Users and Groups share this.
 * A `__proto__` key is dropped.
 */
export function canonicalizeKeys(body: unknown, names: ReadonlyMap<string, string>, depth = 0): unknown {
  if (Array.isArray(body)) return depth > 2 ? body : body.map((x) => canonicalizeKeys(x, names, depth + 1));
  if (!body || typeof body !== "object" || depth > 2) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
    // JSON.parse makes `"__proto__"` an own key, but assigning it would set `out`'s prototype
    // (its members then stand in for missing attributes); no SCIM schema has the name.
    if (k === "__proto__") continue;
    const canon = names.get(k.toLowerCase()) ?? k;
    out[canon] = canon === "value" ? v : canonicalizeKeys(v, names, depth + 1);
  }
  return out;
}

/** Spec part 8: the largest request body accepted. */
export const MAX_BODY_BYTES = 800_000;

/**
 * `{baseUrl}/scim/v2/{resourceType}/{id}` — used for `meta.location` and the `Location` header.
 * `baseUrl` is GATEHOUSE_BASE_URL (already without a trailing slash).
 */
export function resourceLocation(baseUrl: string, endpoint: "Users" | "Groups" | string, id: string | number): string {
  // ids are mostly integers (users), which need no escaping: skip the native call then
  return `${baseUrl}/scim/v2/${endpoint}/${typeof id === "number" ? id : encodeURIComponent(id)}`;
}

/**
 * Accepts `application/json` and `application/scim+json` (any parameters, e.g. charset) and a
 * missing Content-Type (old IdP clients send JSON without one); anything else → 415.
 */
export function assertScimMediaType(contentType: string | null): void {
  if (!contentType || contentType.trim() === "") return;
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (type === "application/json" || type === SCIM_MEDIA_TYPE) return;
  throw new ScimError(415, `Unsupported media type ${JSON.stringify(type)}: send application/scim+json or application/json`);
}

/** SCIM's 413 and 400 invalidSyntax for the shared body reader. */
const SCIM_BODY_ERRORS: BodyErrors = {
  tooLarge: (limit) => new ScimError(413, `The request body exceeds ${limit} bytes`),
  malformed: (detail) => new ScimError(400, detail, "invalidSyntax"),
};

/** Reads a SCIM body within MAX_BODY_BYTES (chunked bodies counted too); `undefined` when empty. */
export const readScimJsonBody = (request: Request): Promise<unknown> => readJsonBodyWithin(request, MAX_BODY_BYTES, SCIM_BODY_ERRORS);
