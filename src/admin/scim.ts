import { Elysia, t } from "elysia";
import { adminAccess } from "./access";
import { ADMIN_BODY_ERRORS, adminResponses } from "./auth";
import { NoContent } from "../http/responses";
import type { AppContext } from "../context";
import { notFound } from "../http/errors";
import { CreateScimTokenBody, CreatedScimToken, PatchScimSettingsBody, ScimSettings, ScimTokenIdParams, ScimTokenInfo } from "../scim/tokens/model";
import { seatUsage } from "../directory/users";
import { createScimToken, listScimTokens, revokeScimToken, scimEnabledReader, setScimEnabled } from "../scim/tokens/service";

const tags = ["Admin: SCIM"];

/** Admin API for SCIM, under /api/admin: bearer tokens for IdPs, the on/off switch and seat usage (services: src/scim/tokens). */
export function scimAdminRoutes(ctx: AppContext) {
  const enabled = scimEnabledReader(ctx.db, ctx.config);
  const settingsView = async () => ({ enabled: await enabled(), seats: await seatUsage(ctx.db, ctx.config) });
  return new Elysia({ name: "scim-admin" })
    .use(adminAccess(ctx))
    .post("/scim-tokens", ({ body, set, audit }) => {
      set.status = 201;
      return audit({ action: "scim_token.create", resource: { type: "scim_token", id: (r) => r.id } }, async () => {
        const { id, name, workspaceId, token, createdAt } = await createScimToken(ctx.db, body.name.trim(), body.workspaceId ?? null);
        return { id, name, workspaceId, token, createdAt };
      });
    }, { role: "operator", body: CreateScimTokenBody, response: adminResponses({ 201: CreatedScimToken }, [...ADMIN_BODY_ERRORS, 404, 409]), detail: { tags, summary: "Create a SCIM bearer token (shown once)" } })
    .get("/scim-tokens", async () => listScimTokens(ctx.db), { role: "viewer", response: adminResponses({ 200: t.Array(ScimTokenInfo) }), detail: { tags, summary: "List SCIM tokens (never the token itself)" } })
    .delete("/scim-tokens/:id", async ({ params, set, audit }) => {
      await audit({ action: "scim_token.revoke", resource: { type: "scim_token", id: params.id } }, async () => {
        if (!(await revokeScimToken(ctx.db, params.id))) throw notFound("SCIM token");
        return { revoked: true };
      });
      set.status = 204;
    }, { role: "operator", params: ScimTokenIdParams, response: adminResponses({ 204: NoContent }, [400, 404]), detail: { tags, summary: "Revoke a SCIM token (effective immediately)" } })
    .get("/scim", () => settingsView(), { role: "viewer", response: adminResponses({ 200: ScimSettings }), detail: { tags, summary: "SCIM switch and seat usage" } })
    .patch("/scim", ({ body, audit }) =>
      audit(
        { action: body.enabled ? "scim.enable" : "scim.disable", resource: { type: "scim" }, before: async () => ({ enabled: await enabled() }), after: (v) => ({ enabled: v.enabled }) },
        async () => {
          await setScimEnabled(ctx.db, body.enabled);
          return settingsView();
        },
      ), { role: "owner", body: PatchScimSettingsBody, response: adminResponses({ 200: ScimSettings }, ADMIN_BODY_ERRORS), detail: { tags, summary: "Enable or disable SCIM (disabled → every SCIM call answers 403)" } });
}
