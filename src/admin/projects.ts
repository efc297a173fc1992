import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { projectSummaries } from "../tms/projects/service";
import { adminAccess } from "./access";
import { adminResponses } from "./auth";

/**
 * GET /api/admin/projects (mounted by src/admin): the test-management projects, by workspace, so
 * the console can offer a subscription's project as a choice instead of free text. Read-only:
 * projects are made through the test-management API.
 */
export const AdminProject = t.Object({
  code: t.String({ description: "The project code a webhook subscription's `project` names" }),
  title: t.String(),
  workspaceId: t.Integer(),
});
export const AdminProjectsQuery = t.Object({
  workspaceId: t.Optional(t.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, description: "Only this workspace's projects" })),
});

export function projectsAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-projects" })
    .use(adminAccess(ctx))
    .get(
      "/projects",
      async ({ query }) => {
        const items = await projectSummaries(ctx.db, query.workspaceId);
        return { total: items.length, items };
      },
      {
        role: "viewer",
        query: AdminProjectsQuery,
        response: adminResponses({ 200: t.Object({ total: t.Integer(), items: t.Array(AdminProject) }) }, [400]),
        detail: { tags: ["Admin: workspaces"], summary: "List test-management projects (code, title, workspace), by code" },
      },
    );
}
