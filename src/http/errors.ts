/**
 * The JSON API's error type (admin API, /api/v1, health, docs). SCIM has its own `ScimError`
 * (src/scim/errors.ts); app.ts chooses the renderer by path in its one onError handler.
 *
 * Body shape: `{ status: false, error: { code, message, field? } }` — `status: false` mirrors the
 * Qase v1 envelope (`{status: true, result}`) so Qase clients see a familiar failure.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

export function apiErrorBody(status: number, code: string, message: string, field?: string) {
  return { status: false as const, errorMessage: message, error: { code, message, ...(field ? { field } : {}) } };
}

export function apiErrorResponse(e: ApiError): Response {
  return new Response(JSON.stringify(apiErrorBody(e.status, e.code, e.message, e.field)), {
    status: e.status,
    headers: { "content-type": "application/json; charset=utf-8", ...e.headers },
  });
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const badRequest = (message: string, field?: string) => new ApiError(400, "invalid_request", message, field);
export const conflict = (message: string) => new ApiError(409, "conflict", message);

/** The JSON APIs' 413 and 400 for the shared body reader (src/http/body.ts). */
export const apiBodyErrors = {
  tooLarge: (limit: number) => new ApiError(413, "payload_too_large", `The request body exceeds ${limit} bytes`),
  malformed: (detail: string) => new ApiError(400, "invalid_json", detail),
};
