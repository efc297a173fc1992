import { ApiError } from "../http/errors";
import { bearerToken, constantTimeEqual } from "../lib/tokens";
import type { AppContext } from "../context";

/**
 * Guard for every `/api/admin/*` route: `Authorization: Bearer $GATEHOUSE_ADMIN_TOKEN`.
 * Use as a local hook in the feature's admin plugin:
 *   new Elysia({ prefix: "/api/admin/webhooks" }).onBeforeHandle(adminGuard(ctx)).get(...)
 * With no admin token configured the admin API is closed (503), never open.
 */
export function adminGuard(ctx: AppContext) {
  return ({ request }: { request: Request }) => {
    assertAdmin(ctx, request);
  };
}

export function assertAdmin(ctx: AppContext, request: Request): void {
  const configured = ctx.config.adminToken;
  if (!configured) throw new ApiError(503, "admin_disabled", "The admin API is disabled: set GATEHOUSE_ADMIN_TOKEN");
  const given = bearerToken(request.headers.get("authorization"));
  if (!given || !constantTimeEqual(given, configured))
    throw new ApiError(401, "unauthorized", "A valid admin bearer token is required", undefined, { "www-authenticate": "Bearer" });
}
