import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { adminAccess } from "../access";
import { ADMIN_BODY_ERRORS, adminResponses } from "../auth";
import { AdminTokenCreate, AdminTokenCreated, AdminTokenIdParams, AdminTokenList, AdminTokenView } from "./model";
import { createAdminToken, listAdminTokens, revokeAdminToken } from "./service";

const tags = ["Admin: access"];

/** Admin API tokens for scripts (owner only): GET/POST /api/admin/admin-tokens, DELETE /api/admin/admin-tokens/{id}. */
export function adminTokenAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-tokens" })
    .use(adminAccess(ctx))
    .get("/admin-tokens", async () => ({ items: await listAdminTokens(ctx) }), {
      role: "owner",
      response: adminResponses({ 200: AdminTokenList }),
      detail: { tags, summary: "Admin API tokens (never the token itself)" },
    })
    .post("/admin-tokens", ({ body, set, admin, audit }) => {
      set.status = 201;
      return audit({ action: "admin_token.create", resource: { type: "admin_token", id: (r) => r.id } }, () => createAdminToken(ctx, body, admin.name));
    }, {
      role: "owner",
      body: AdminTokenCreate,
      response: adminResponses({ 201: AdminTokenCreated }, [...ADMIN_BODY_ERRORS, 409]),
      detail: { tags, summary: "Create an admin API token with a role and an expiry (shown once)" },
    })
    .delete("/admin-tokens/:id", ({ params, audit }) => audit({ action: "admin_token.revoke", resource: { type: "admin_token", id: params.id } }, () => revokeAdminToken(ctx, params.id)), {
      role: "owner",
      params: AdminTokenIdParams,
      response: adminResponses({ 200: AdminTokenView }, [400, 404]),
      detail: { tags, summary: "Revoke an admin API token (at once)" },
    });
}
