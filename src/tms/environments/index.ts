import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;
import { CodeIdParams, CodeParam, IdResult, ok, page, paging } from "../shared/envelope";
import { EnvironmentCreate, EnvironmentList, EnvironmentListQuery, EnvironmentResult, EnvironmentUpdate } from "./model";
import { createEnvironment, deleteEnvironment, getEnvironment, listEnvironments, updateEnvironment } from "./service";

const detail = (summary: string) => ({ tags: ["Environments"], summary });

export function environmentRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/environment/:code", ({ params, body, caller }) => ok(createEnvironment(ctx.db, caller, params.code, body)), {
      params: CodeParam, body: EnvironmentCreate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Create an environment (slug unique in the project; 409 otherwise)"),
    })
    .get("/environment/:code", ({ params, query }) => {
      const r = listEnvironments(ctx.db, params.code, { ...paging(query), search: query.search, slug: query.slug });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: EnvironmentListQuery, response: tmsResponses({ 200: EnvironmentList }, ERRS), detail: detail("List environments (`slug` finds one by slug, as the reporters do)") })
    .get("/environment/:code/:id", ({ params }) => ok(getEnvironment(ctx.db, params.code, params.id)), {
      params: CodeIdParams, response: tmsResponses({ 200: EnvironmentResult }, ERRS), detail: detail("Get an environment"),
    })
    .patch("/environment/:code/:id", ({ params, body }) => ok(updateEnvironment(ctx.db, params.code, params.id, body)), {
      params: CodeIdParams, body: EnvironmentUpdate, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Update an environment"),
    })
    .delete("/environment/:code/:id", ({ params }) => ok(deleteEnvironment(ctx.db, params.code, params.id)), {
      params: CodeIdParams, response: tmsResponses({ 200: IdResult }, ERRS), detail: detail("Delete an environment (its runs keep the slug)"),
    });
}
