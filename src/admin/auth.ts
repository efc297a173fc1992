import type { TSchema } from "elysia";
import { ApiError } from "../http/errors";
import { apiErrorAnswers, jsonResponses, queryParameters, type ErrorStatus } from "../http/responses";
import { bearerToken, constantTimeEqual } from "../lib/tokens";
import type { AppContext } from "../context";

export const ADMIN_PREFIX = "/api/admin";

/** Whether an absolute request URL is under /api/admin (without building a URL object). */
export function isAdminPath(url: string): boolean {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart < 0 || !url.startsWith(ADMIN_PREFIX, pathStart)) return false;
  const next = url[pathStart + ADMIN_PREFIX.length];
  return next === undefined || next === "/" || next === "?" || next === "#";
}

/**
 * The admin check: `Authorization: Bearer $GATEHOUSE_ADMIN_TOKEN` (or, during a rotation,
 * `$GATEHOUSE_ADMIN_TOKEN_PREVIOUS`), compared in constant time.
 * The admin home (src/admin/index.ts) runs it for every /api/admin request; /metrics uses it for
 * remote scrapes. With no admin token configured the admin API is closed (503), never open.
 */
export function assertAdmin(ctx: AppContext, request: Request): void {
  const configured = ctx.config.adminToken;
  if (!configured) throw new ApiError(503, "admin_disabled", "The admin API is disabled: set GATEHOUSE_ADMIN_TOKEN");
  const given = bearerToken(request.headers.get("authorization"));
  const previous = ctx.config.adminTokenPrevious;
  // Both compared whatever the first answer, so timing does not tell which one matched.
  const matchesCurrent = given ? constantTimeEqual(given, configured) : false;
  const matchesPrevious = given && previous ? constantTimeEqual(given, previous) : false;
  if (!matchesCurrent && !matchesPrevious)
    throw new ApiError(401, "unauthorized", "A valid admin bearer token is required", undefined, { "www-authenticate": "Bearer" });
}

/** What the admin home answers before a route runs: no or a wrong credential (401), a role below the route's (403), no admin token configured (503). */
export const ADMIN_GUARD_ERRORS = [401, 403, 503] as const satisfies readonly ErrorStatus[];
/** Admin routes with a body: invalid (400), over the admin body limit (413), not JSON (415). */
export const ADMIN_BODY_ERRORS = [400, 413, 415] as const satisfies readonly ErrorStatus[];

/** The `response` option of an admin route: its success schemas, the guard's errors and its own. */
export const adminResponses = <S extends Record<number, TSchema>, E extends ErrorStatus>(success: S, errors: readonly E[] = []) =>
  jsonResponses(success, [...ADMIN_GUARD_ERRORS, ...errors]);

/** The OpenAPI detail of a log's download route (src/http/log-export.ts): its filters and the two formats. */
export const logExportDetail = (tags: string[], summary: string, query: Parameters<typeof queryParameters>[0]) => ({
  tags,
  summary,
  parameters: queryParameters(query),
  responses: {
    200: {
      description: "The entries, oldest first: CSV with a header row, or one JSON entry per line (the list's entry shape)",
      content: { "text/csv": { schema: { type: "string" as const } }, "application/x-ndjson": { schema: { type: "string" as const } } },
    },
    ...apiErrorAnswers([...ADMIN_GUARD_ERRORS, 400]),
  },
});
