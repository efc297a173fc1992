/**
 * The SCIM protocol's one error type. Everything under /scim/v2 that fails renders as the
 * RFC 7644 §3.12 Error body with `application/scim+json` — see `scimErrorResponse`.
 */
export const SCIM_ERROR_SCHEMA = "urn:ietf:params:scim:api:messages:2.0:Error";
export const SCIM_CONTENT_TYPE = "application/scim+json; charset=utf-8";

export type ScimType =
  | "invalidFilter" | "tooMany" | "uniqueness" | "mutability" | "invalidSyntax"
  | "invalidPath" | "noTarget" | "invalidValue" | "invalidVers" | "sensitive";

export class ScimError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly scimType?: ScimType,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function scimErrorResponse(e: ScimError): Response {
  const body: Record<string, unknown> = { schemas: [SCIM_ERROR_SCHEMA], status: String(e.status) };
  if (e.scimType) body.scimType = e.scimType;
  body.detail = e.message;
  return new Response(JSON.stringify(body), {
    status: e.status,
    headers: { "content-type": SCIM_CONTENT_TYPE, ...e.headers },
  });
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
