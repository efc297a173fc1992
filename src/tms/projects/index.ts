import type { AppContext } from "../../context";
import { tmsApi } from "../shared/api";
import { CodeParam, Envelope, ok, page, paging, Paging } from "../shared/envelope";
import { t } from "elysia";
import { ProjectCreate } from "./model";
import { createProject, listProjects, projectView, requireProject } from "./service";

const detail = (summary: string) => ({ tags: ["Projects"], summary });

export function projectRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/project", ({ body, caller }) => ok(createProject(ctx.db, caller, body)), {
      body: ProjectCreate, response: { 200: Envelope(t.Object({ code: t.String() })) }, detail: detail("Create a project"),
    })
    .get("/project", ({ query, caller }) => {
      const { limit, offset } = paging(query);
      const { total, rows } = listProjects(ctx.db, caller.workspaceId, limit, offset);
      return page(rows, total);
    }, { query: Paging, detail: detail("List projects") })
    .get("/project/:code", ({ params }) => ok(projectView(ctx.db, requireProject(ctx.db, params.code))), {
      params: CodeParam, detail: detail("Get a project with its entity counts"),
    });
}
