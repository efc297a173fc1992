import type { AppContext } from "../../context";
import { Elysia } from "elysia";
import { projectApi, TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";
import { CodeParam, Envelope, ok, page, PageOf, paging, Paging, StatusOnly } from "../shared/envelope";
import { t } from "elysia";
import { ProjectCreate, ProjectView } from "./model";
import { createProject, deleteProject, listProjects, projectViews } from "./service";

const detail = (summary: string) => ({ tags: ["Projects"], summary });

export function projectRoutes(ctx: AppContext) {
  const workspaceWide = tmsApi(ctx)
    .post("/project", async ({ body, caller }) => ok(await createProject(ctx.db, caller, body)), {
      body: ProjectCreate, response: tmsResponses({ 200: Envelope(t.Object({ code: t.String() })) }, [409, ...TMS_BODY_ERRORS]), detail: detail("Create a project"),
    })
    .get("/project", async ({ query, caller }) => {
      const { limit, offset } = paging(query);
      const { total, rows } = await listProjects(ctx.db, caller.workspaceId, limit, offset);
      return page(rows, total);
    }, { query: Paging, response: tmsResponses({ 200: PageOf(ProjectView) }), detail: detail("List projects") });
  const one = projectApi(ctx)
    .get("/project/:code", async ({ project }) => ok((await projectViews(ctx.db, [project]))[0]!), {
      params: CodeParam, response: tmsResponses({ 200: Envelope(ProjectView) }, [404]), detail: detail("Get a project with its entity counts"),
    })
    .delete("/project/:code", async ({ project }) => {
      await deleteProject(ctx.db, project);
      return { status: true as const };
    }, { params: CodeParam, response: tmsResponses({ 200: StatusOnly }, [404]), detail: detail("Delete a project and everything in it (no event)") });
  return new Elysia().use(workspaceWide).use(one);
}
