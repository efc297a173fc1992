import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;
import { CodeIdParams, CodeParam, IdResult, ok, page, paging } from "../shared/envelope";
import { EnvironmentCreate, EnvironmentList, EnvironmentListQuery, EnvironmentResult, EnvironmentUpdate } from "./model";
import { createEnvironment, deleteEnvironment, getEnvironment, listEnvironments, updateEnvironment } from "./service";

const detail = (summary: string) => ({ tags: ["Environments"], summary });

export function environmentRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/environment/:code", async ({ project, body, caller }) => ok(await createEnvironment(ctx.db, caller, project, body)), {
      params: CodeParam, body: EnvironmentCreate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Create an environment (slug unique in the project; 409 otherwise)"),
    })
    .get("/environment/:code", async ({ project, query }) => {
      const r = await listEnvironments(ctx.db, project, { ...paging(query), search: query.search, slug: query.slug });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: EnvironmentListQuery, response: tmsResponses({ 200: EnvironmentList }, ERRS), detail: detail("List environments (`slug` finds one by slug, as the reporters do)") })
    .get("/environment/:code/:id", async ({ project, params }) => ok(await getEnvironment(ctx.db, project, params.id)), {
      params: CodeIdParams, response: tmsResponses({ 200: EnvironmentResult }, ERRS), detail: detail("Get an environment"),
    })
    .patch("/environment/:code/:id", async ({ project, params, body }) => ok(await updateEnvironment(ctx.db, project, params.id, body)), {
      params: CodeIdParams, body: EnvironmentUpdate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Update an environment"),
    })
    .delete("/environment/:code/:id", async ({ project, params }) => ok(await deleteEnvironment(ctx.db, project, params.id)), {
      params: CodeIdParams, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Delete an environment (its runs keep the slug)"),
    });
}
