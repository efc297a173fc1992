import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { CodeHashParams, CodeParam, HashResult, ok, page, paging, Envelope, PageOf } from "../shared/envelope";
import { SearchPaging } from "../shared/list-filters";
import { SharedStepCreate, SharedStepUpdate, SharedStepView } from "./model";
import { createSharedStep, deleteSharedStep, listSharedSteps, requireSharedStep, sharedStepView, updateSharedStep } from "./service";

const detail = (summary: string) => ({ tags: ["Shared steps"], summary });

export function sharedStepRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/shared_step/:code", async ({ project, body, caller }) => ok(await createSharedStep(ctx.db, caller, project, body)), {
      params: CodeParam, body: SharedStepCreate, response: tmsResponses({ 200: HashResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a shared step (shared_step.created)"),
    })
    .get("/shared_step/:code", async ({ project, query }) => {
      const r = await listSharedSteps(ctx.db, project, { ...paging(query), search: query.search });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: SearchPaging, response: tmsResponses({ 200: PageOf(SharedStepView) }, [404]), detail: detail("List shared steps") })
    .get("/shared_step/:code/:hash", async ({ project, params }) => ok(sharedStepView(await requireSharedStep(ctx.db, project.id, params.hash))), {
      params: CodeHashParams, response: tmsResponses({ 200: Envelope(SharedStepView) }, [404]), detail: detail("Get a shared step"),
    })
    .patch("/shared_step/:code/:hash", async ({ project, params, body }) => ok(await updateSharedStep(ctx.db, project, params.hash, body)), {
      params: CodeHashParams, body: SharedStepUpdate, response: tmsResponses({ 200: HashResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a shared step (shared_step.updated)"),
    })
    .delete("/shared_step/:code/:hash", async ({ project, params }) => ok(await deleteSharedStep(ctx.db, project, params.hash)), {
      params: CodeHashParams, response: tmsResponses({ 200: HashResult }, [404]), detail: detail("Delete a shared step (shared_step.deleted)"),
    });
}
