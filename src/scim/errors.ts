import { t } from "elysia";
import { AnsweringError, type ErrorAnswer, type ErrorRenderer } from "../http/errors";

/**
 * The SCIM protocol's one error type. Everything under /scim/v2 that fails renders as the
 * RFC 7644 §3.12 Error body with `application/scim+json` — see `scimErrorResponse`.
 */
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

export const SCIM_TYPES = [
  "invalidFilter", "tooMany", "uniqueness", "mutability", "invalidSyntax",
  "invalidPath", "noTarget", "invalidValue", "invalidVers", "sensitive",
] as const;
export type ScimType = (typeof SCIM_TYPES)[number];

/** The RFC 7644 §3.12 Error body, as rendered by `scimErrorResponse` (and documented on every SCIM route). */
export const ScimErrorBody = t.Object(
  {
    schemas: t.Array(t.Literal(SCIM_ERROR_SCHEMA), { minItems: 1, maxItems: 1 }),
    status: t.String({ pattern: "^[45][0-9]{2}$", description: "The HTTP status, as a string (RFC 7644 §3.12)", examples: ["404"] }),
    scimType: t.Optional(t.UnionEnum(SCIM_TYPES, { description: "The SCIM detail error keyword, for 400 and 409" })),
    detail: t.String({ description: "What went wrong, for people" }),
  },
  { description: "The SCIM Error body (RFC 7644 §3.12)" },
);

export class ScimError extends AnsweringError {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  answer(): ErrorAnswer {
    return { status: this.status, message: this.message, code: "scim_error", scimType: this.scimType, headers: this.headers, scimOnly: true };
  }
}

/** Any error answer as the SCIM Error body (the JSON API's code and field have no place in it). */
export const renderScimError: ErrorRenderer = (a) => {
  const body: Record<string, unknown> = { schemas: [SCIM_ERROR_SCHEMA], status: String(a.status) };
  if (a.scimType) body.scimType = a.scimType;
  body.detail = a.message;
  return new Response(JSON.stringify(body), {
    status: a.status,
    headers: { "content-type": SCIM_CONTENT_TYPE, ...a.headers },
  });
};

export function scimErrorResponse(e: ScimError): Response {
  return renderScimError(e.answer());
}

/**
 * The error for a non-unique userName (users) or displayName (groups), honouring
 * `GATEHOUSE_SCIM_DUPLICATE_STATUS`: 400 `invalidValue` as the spec says, or 409 `uniqueness`
 * as RFC 7644 §3.3 and Okta expect.
 */
export function duplicateError(duplicateStatus: 400 | 409, detail: string): ScimError {
  return duplicateStatus === 409 ? new ScimError(409, detail, "uniqueness") : new ScimError(400, detail, "invalidValue");
}

export const scimNotFound = (resourceType: string, id: string) =>
  new ScimError(404, `${resourceType} ${JSON.stringify(id)} not found`);
export const invalidValue = (detail: string) => new ScimError(400, detail, "invalidValue");
export const invalidFilter = (detail: string) => new ScimError(400, detail, "invalidFilter");
export const invalidPath = (detail: string) => new ScimError(400, detail, "invalidPath");
export const invalidSyntax = (detail: string) => new ScimError(400, detail, "invalidSyntax");
