import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { CodeNumberParams, CodeParam, NumberResult, ok, page, paging, Paging, Envelope, PageOf } from "../shared/envelope";
import { PlanCreate, PlanUpdate, PlanSummary, PlanView } from "./model";
import { createPlan, deletePlan, getPlan, listPlans, updatePlan } from "./service";

/** `{code}/{id}`: the test plan's number within the project. */
const NumberParams = CodeNumberParams("test plan");
const Numbered = NumberResult("test plan");
const detail = (summary: string) => ({ tags: ["Plans"], summary });

export function planRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/plan/:code", async ({ project, body, caller }) => ok(await createPlan(ctx.db, caller, project, body)), {
      params: CodeParam, body: PlanCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a test plan (plan.created)"),
    })
    .get("/plan/:code", async ({ project, query }) => {
      const { limit, offset } = paging(query);
      const r = await listPlans(ctx.db, project, limit, offset);
      return page(r.entities, r.total);
    }, { params: CodeParam, query: Paging, response: tmsResponses({ 200: PageOf(PlanSummary) }, [404]), detail: detail("List test plans") })
    .get("/plan/:code/:id", async ({ project, params }) => ok(await getPlan(ctx.db, project, params.id)), { params: NumberParams, response: tmsResponses({ 200: Envelope(PlanView) }, [404]), detail: detail("Get a test plan with its cases") })
    .patch("/plan/:code/:id", async ({ project, params, body }) => ok(await updatePlan(ctx.db, project, params.id, body)), {
      params: NumberParams, body: PlanUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Update a test plan (plan.updated; run.updated for in-progress runs gaining cases)"),
    })
    .delete("/plan/:code/:id", async ({ project, params }) => ok(await deletePlan(ctx.db, project, params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: detail("Delete a test plan (plan.deleted)"),
    });
}
