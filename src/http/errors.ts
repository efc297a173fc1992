/**
 * What a failed request answers, in words both protocols render: the JSON API body below, the SCIM
 * Error body in src/scim/errors.ts. An error that knows its answer extends `AnsweringError`, so the
 * one error mapping (error-mapping.ts) renders it in the request's protocol without importing the
 * feature that threw it.
 */
export type ErrorAnswer = {
  status: number;
  message: string;
  /** The JSON API's error code. */
  code: string;
  /** RFC 7644 §3.12 scimType, when one applies. */
  scimType?: string;
  /** The JSON API's offending field (dotted path), when one is known. */
  field?: string;
  headers?: Record<string, string>;
  /** SCIM's own errors answer as a SCIM Error body whatever the path. */
  scimOnly?: boolean;
};

/** Renders an answer as one protocol's error response. */
export type ErrorRenderer = (answer: ErrorAnswer) => Response;

export abstract class AnsweringError extends Error {
  abstract answer(): ErrorAnswer;
}

/**
 * The JSON API's error type (admin API, /api/v1, health, docs). SCIM has its own `ScimError`
 * (src/scim/errors.ts); the one error mapping renders either by path.
 *
 * Body shape: `{ status: false, error: { code, message, field? } }` — `status: false` mirrors the
 * Qase v1 envelope (`{status: true, result}`) so Qase clients see a familiar failure.
 */
export class ApiError extends AnsweringError {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }

  answer(): ErrorAnswer {
    return { status: this.status, message: this.message, code: this.code, field: this.field, headers: this.headers };
  }
}

export function apiErrorBody(status: number, code: string, message: string, field?: string) {
  return { status: false as const, errorMessage: message, error: { code, message, ...(field ? { field } : {}) } };
}

export const renderApiError: ErrorRenderer = (a) =>
  new Response(JSON.stringify(apiErrorBody(a.status, a.code, a.message, a.field)), {
    status: a.status,
    headers: { "content-type": "application/json; charset=utf-8", ...a.headers },
  });

export function apiErrorResponse(e: ApiError): Response {
  return renderApiError(e.answer());
}

export const notFound = (what: string) => new ApiError(404, "not_found", `${what} not found`);
export const badRequest = (message: string, field?: string) => new ApiError(400, "invalid_request", message, field);
export const conflict = (message: string) => new ApiError(409, "conflict", message);

/** The JSON APIs' 413 and 400 for the shared body reader (src/http/body.ts). */
export const apiBodyErrors = {
  tooLarge: (limit: number) => new ApiError(413, "payload_too_large", `The request body exceeds ${limit} bytes`),
  malformed: (detail: string) => new ApiError(400, "invalid_json", detail),
};
