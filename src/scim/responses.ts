import { t, type TSchema } from "elysia";
import { ERROR_MEANINGS, type ErrorStatus } from "../http/responses";
import { ScimErrorBody } from "./errors";
import { SCHEMA_LIST_RESPONSE } from "./protocol";

/**
 * The `responses` a SCIM route documents: its success schemas as application/scim+json and the
 * SCIM Error body for every error status it can give. Documentation only (`detail.responses`,
 * not Elysia's `response`): answers are not re-validated on the way out — /Users reads are the
 * hot path, answers may be projected by `attributes`, and some are pre-serialised text. The
 * contract test (test/contract.ts) holds every answer of the test suite to these schemas instead.
 */

/** Every SCIM route: no or a bad token (401), SCIM switched off (403), over the rate limit (429). */
export const SCIM_GATE_ERRORS = [401, 403, 429] as const satisfies readonly ErrorStatus[];
/** Routes with a body: invalid JSON or values (400), over 800000 bytes (413), not JSON (415). */
export const SCIM_BODY_ERRORS = [400, 413, 415] as const satisfies readonly ErrorStatus[];

export function scimResponses(success: Record<number, { description: string; schema?: TSchema }>, errors: readonly ErrorStatus[]) {
  const out: Record<number, { description: string; content?: Record<string, { schema: TSchema }> }> = {};
  for (const [status, { description, schema }] of Object.entries(success))
    out[Number(status)] = schema ? { description, content: { "application/scim+json": { schema } } } : { description };
  for (const status of new Set([...SCIM_GATE_ERRORS, ...errors]))
    out[status] = { description: ERROR_MEANINGS[status], content: { "application/scim+json": { schema: ScimErrorBody } } };
  return out;
}

/** RFC 7644 §3.4.2 ListResponse of `resource`. */
export const ListResponseOf = <T extends TSchema>(resource: T, description: string) =>
  t.Object(
    {
      schemas: t.Array(t.Literal(SCHEMA_LIST_RESPONSE)),
      totalResults: t.Integer({ minimum: 0 }),
      itemsPerPage: t.Integer({ minimum: 0 }),
      startIndex: t.Integer({ minimum: 1 }),
      Resources: t.Array(resource),
    },
    { description },
  );

/**
 * `meta` of a resource: created/lastModified as RFC 3339 times; location is the resource's URL.
 * All four always come unless `attributes`/`excludedAttributes` name some of them (meta.created…).
 */
export const ResourceMeta = <R extends string>(resourceType: R) =>
  t.Object({
    resourceType: t.Optional(t.Literal(resourceType)),
    created: t.Optional(t.String({ format: "date-time" })),
    lastModified: t.Optional(t.String({ format: "date-time" })),
    location: t.Optional(t.String({ format: "uri" })),
  });

/** The list and projection query parameters of RFC 7644 §3.4.2 and §3.9 (names case-insensitive). */
export const projectionParams = {
  attributes: t.Optional(t.String({ description: "Comma-separated attributes to return (id and schemas always come), e.g. `userName,name.familyName`." })),
  excludedAttributes: t.Optional(t.String({ description: "Comma-separated attributes to leave out; Entra sends `members` on groups." })),
};
export const listParams = {
  startIndex: t.Optional(t.Integer({ default: 1, description: "1-based index of the first result; below 1 means 1." })),
  count: t.Optional(t.Integer({ default: 100, minimum: 0, maximum: 1000, description: "Page size, at most 1000; 0 returns only totalResults." })),
  sortOrder: t.Optional(t.UnionEnum(["ascending", "descending"], { default: "ascending" })),
  ...projectionParams,
};
