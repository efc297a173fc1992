import { t, type TSchema } from "elysia";

/**
 * What a JSON API route (admin API, /api/v1, /api/v2, operations) declares it answers: its
 * success schemas and, for every error status it can give, the one JSON error body. Used as the
 * route's `response` option, so the same schemas type the handler, check 2xx answers and feed the
 * OpenAPI document. Errors are rendered by src/http/error-mapping.ts as `Response`s, which Elysia
 * never re-validates: declaring them costs nothing at run time.
 */

export const ApiErrorBody = t.Object(
  {
    status: t.Literal(false),
    errorMessage: t.String({ description: "Same text as error.message (Qase clients read this field)" }),
    error: t.Object({
      code: t.String({ description: "Stable machine-readable code, e.g. invalid_request, unauthorized, not_found, conflict" }),
      message: t.String(),
      field: t.Optional(t.String({ description: "The request field at fault (dotted path), when one is" })),
    }),
  },
  { description: "The JSON API error body" },
);
export type ApiErrorBody = typeof ApiErrorBody.static;

/** Error statuses a route can answer (RFC 9110 names in `ERROR_MEANINGS`). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 405 | 409 | 413 | 415 | 422 | 429 | 503;

/** What each error status means here, for the document's response descriptions. */
export const ERROR_MEANINGS: Record<ErrorStatus, string> = {
  400: "Bad request: the body, a parameter or the query is invalid",
  401: "Unauthorized: the credential is missing, unknown or revoked",
  403: "Forbidden: the feature is switched off or the action is not allowed",
  404: "Not found",
  405: "Method not allowed",
  409: "Conflict with the current state",
  413: "The request body is too large",
  415: "Unsupported media type",
  422: "Unprocessable request",
  429: "Too many requests: retry after the Retry-After seconds",
  503: "Unavailable: the feature is not configured or the service is not ready",
};

/** 204 answers carry no body. */
export const NoContent = t.Void({ description: "No content" });

type ErrorMap<E extends ErrorStatus> = { [K in E]: typeof ApiErrorBody };

/** `{ ...success, [each error status]: ApiErrorBody }` — duplicates among `errors` are harmless. */
export function jsonResponses<S extends Record<number, TSchema>, E extends ErrorStatus>(success: S, errors: readonly E[]): S & ErrorMap<E> {
  const out: Record<number, TSchema> = { ...success };
  for (const status of errors) out[status] = ApiErrorBody;
  return out as S & ErrorMap<E>;
}

/**
 * The error answers of a route that documents its answers itself (`detail.responses`, for a
 * success that is not JSON): each status with its meaning and the one JSON error body.
 */
export function apiErrorAnswers(errors: readonly ErrorStatus[]) {
  return Object.fromEntries(errors.map((s) => [s, { description: ERROR_MEANINGS[s], content: { "application/json": { schema: ApiErrorBody } } }]));
}

/**
 * OpenAPI query parameters from a `t.Object` of them, for routes that read their query themselves
 * (documented under `detail.parameters`; src/ops/openapi-document.ts keeps them beside the path's).
 */
export function queryParameters(schema: { properties: Record<string, TSchema>; required?: string[] }) {
  return Object.entries(schema.properties).map(([name, s]) => ({ name, in: "query", required: schema.required?.includes(name) ?? false, schema: s }));
}
