import { ApiError } from "../http/errors";
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
 * The admin check: `Authorization: Bearer $GATEHOUSE_ADMIN_TOKEN`, compared in constant time.
 * The admin home (src/admin/index.ts) runs it for every /api/admin request; /metrics uses it for
 * remote scrapes. With no admin token configured the admin API is closed (503), never open.
 */
export function assertAdmin(ctx: AppContext, request: Request): void {
  const configured = ctx.config.adminToken;
  if (!configured) throw new ApiError(503, "admin_disabled", "The admin API is disabled: set GATEHOUSE_ADMIN_TOKEN");
  const given = bearerToken(request.headers.get("authorization"));
  if (!given || !constantTimeEqual(given, configured))
    throw new ApiError(401, "unauthorized", "A valid admin bearer token is required", undefined, { "www-authenticate": "Bearer" });
}
