/**
 * What every SCIM route shares at the HTTP level: schema URNs, the media type, reading a request
 * body (media type check, 800000-byte limit also for chunked bodies, JSON syntax), and resource
 * locations. Pure or request-local; no Elysia imports, so resource services can use it.
 */
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
 */
export function canonicalizeKeys(body: unknown, names: ReadonlyMap<string, string>, depth = 0): unknown {
  if (Array.isArray(body)) return depth > 2 ? body : body.map((x) => canonicalizeKeys(x, names, depth + 1));
  if (!body || typeof body !== "object" || depth > 2) return body;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) {
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

/** The 413 error: also used when Content-Length already says too much. */
export const payloadTooLarge = () => new ScimError(413, `The request body exceeds ${MAX_BODY_BYTES} bytes`);

/**
 * Reads the body stream, stopping (413) as soon as more than MAX_BODY_BYTES arrived — a chunked
 * body has no Content-Length to check up front. Returns `undefined` for an empty body.
 */
export async function readScimJsonBody(request: Request): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > MAX_BODY_BYTES) throw payloadTooLarge();
  if (!request.body) return undefined;
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      reader.cancel().catch(() => {});
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  if (size === 0) return undefined;
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    bytes.set(c, at);
    at += c.byteLength;
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new ScimError(400, "The request body is not valid UTF-8", "invalidSyntax");
  }
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new ScimError(400, `The request body is not valid JSON: ${(e as Error).message}`, "invalidSyntax");
  }
}
