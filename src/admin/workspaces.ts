import { adminAccess } from "./access";
import { NumericId } from "../http/paging";
import { Elysia, t } from "elysia";
import { ADMIN_BODY_ERRORS, adminResponses } from "./auth";
import type { AppContext } from "../context";
import { addWorkspaceMember, createWorkspace, listWorkspaces, getWorkspace, removeWorkspaceMember, updateWorkspace } from "../directory/workspaces";
import { NoContent } from "../http/responses";
import { invalidateScimCaches } from "../scim/tokens/service";

/**
 * Workspaces of the organization: create, list, rename, archive (and unarchive). Archiving keeps
 * every user, group and membership; the workspace's SCIM tokens answer 403 until it is
 * unarchived. The default workspace (id 1) cannot be archived. GET/POST/PATCH
 * /api/admin/workspaces…
 */
const tags = ["Admin: workspaces"];
const Workspace = t.Object({
  id: t.Integer(),
  name: t.String(),
  archived: t.Boolean(),
  archivedAt: t.Nullable(t.String({ format: "date-time" })),
  members: t.Integer({ description: "Users who are members (active or not)" }),
  createdAt: t.String({ format: "date-time" }),
  updatedAt: t.String({ format: "date-time" }),
});
const Name = t.String({ minLength: 1, maxLength: 200, description: "Unique, compared case-insensitively" });
const IdParams = t.Object({ id: NumericId });
const MemberParams = t.Object({ id: NumericId, userId: NumericId });

export function workspacesAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "workspaces-admin" })
    .use(adminAccess(ctx))
    .get("/workspaces", async () => ({ items: await listWorkspaces(ctx.db) }), { role: "viewer", response: adminResponses({ 200: t.Object({ items: t.Array(Workspace) }) }), detail: { tags, summary: "List workspaces" } })
    .post("/workspaces", ({ body, set, audit }) => {
      set.status = 201;
      return audit({ action: "workspace.create", resource: { type: "workspace", id: (w) => w.id } }, async () => createWorkspace(ctx.db, body.name));
    }, { role: "owner", body: t.Object({ name: Name }, { examples: [{ name: "Contractors" }] }), response: adminResponses({ 201: Workspace }, [...ADMIN_BODY_ERRORS, 409]), detail: { tags, summary: "Create a workspace" } })
    .get("/workspaces/:id", async ({ params }) => getWorkspace(ctx.db, params.id), { role: "viewer", params: IdParams, response: adminResponses({ 200: Workspace }, [400, 404]), detail: { tags, summary: "One workspace" } })
    .patch("/workspaces/:id", async ({ params, body, audit }) => {
      const action = body.archived === true ? "workspace.archive" : body.archived === false ? "workspace.restore" : "workspace.rename";
      const updated = await audit({ action, resource: { type: "workspace", id: params.id }, before: () => getWorkspace(ctx.db, params.id) }, async () => updateWorkspace(ctx.db, params.id, body));
      invalidateScimCaches(ctx.db); // an archived workspace's tokens stop at once
      return updated;
    }, {
      role: "owner",
      params: IdParams,
      body: t.Object(
        { name: t.Optional(Name), archived: t.Optional(t.Boolean({ description: "true archives (its SCIM tokens answer 403), false restores" })) },
        { examples: [{ archived: true }] },
      ),
      response: adminResponses({ 200: Workspace }, [...ADMIN_BODY_ERRORS, 404, 409]),
      detail: { tags, summary: "Rename, archive or restore a workspace" },
    })
    .put("/workspaces/:id/members/:userId", async ({ params, set }) => {
      await addWorkspaceMember(ctx.db, params.id, params.userId);
      set.status = 204;
    }, {
      role: "owner", params: MemberParams, response: adminResponses({ 204: NoContent }, [400, 404, 409]),
      detail: { tags, summary: "Put an existing user into a workspace", description: "The way a person comes to belong to several workspaces (a workspace's SCIM token cannot take over a person provisioned elsewhere). Idempotent. See docs/directory.md." },
    })
    .delete("/workspaces/:id/members/:userId", async ({ params, set }) => {
      await removeWorkspaceMember(ctx.db, params.id, params.userId);
      set.status = 204;
    }, {
      role: "owner", params: MemberParams, response: adminResponses({ 204: NoContent }, [400, 404]),
      detail: { tags, summary: "Take a user out of a workspace", description: "They leave its groups and their API tokens of that workspace stop; their account and other workspaces are untouched." },
    });
}
