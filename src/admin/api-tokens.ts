import { Elysia, t } from "elysia";
import { adminAccess } from "./access";
import { ADMIN_BODY_ERRORS, adminResponses } from "./auth";
import { NoContent } from "../http/responses";
import type { AppContext } from "../context";
import { ApiTokenCreate, ApiTokenCreated, ApiTokenView, TokenIdParam } from "../tms/tokens/model";
import { createApiToken, listApiTokens, revokeApiToken } from "../tms/tokens/service";

const detail = (summary: string) => ({ tags: ["Admin: API tokens"], summary });

/** Admin management of the `Token`-header credentials used by /api/v1 and /api/v2, under /api/admin (services: src/tms/tokens). */
export function apiTokenAdminRoutes(ctx: AppContext) {
  return new Elysia()
    .use(adminAccess(ctx))
    .post("/api-tokens", ({ body, set, audit }) => {
      set.status = 201;
      return audit({ action: "api_token.create", resource: { type: "api_token", id: (r) => r.id } }, () => createApiToken(ctx.db, body));
    }, { role: "operator", body: ApiTokenCreate, response: adminResponses({ 201: ApiTokenCreated }, [...ADMIN_BODY_ERRORS, 404, 409]), detail: detail("Create an API token (shown once)") })
    .get("/api-tokens", async () => {
      const items = await listApiTokens(ctx.db);
      return { total: items.length, items };
    }, { role: "viewer", response: adminResponses({ 200: t.Object({ total: t.Integer(), items: t.Array(ApiTokenView) }) }), detail: detail("List API tokens (never the token itself)") })
    .delete("/api-tokens/:id", ({ params, set, audit }) => {
      audit({ action: "api_token.revoke", resource: { type: "api_token", id: params.id } }, () => revokeApiToken(ctx.db, params.id));
      set.status = 204;
    }, { role: "operator", params: TokenIdParam, response: adminResponses({ 204: NoContent }, [400, 404]), detail: detail("Revoke an API token") });
}
