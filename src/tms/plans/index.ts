import type { AppContext } from "../../context";
import { tmsApi } from "../shared/api";
import { CodeIdParams, CodeParam, IdResult, ok, page, paging, Paging } from "../shared/envelope";
import { PlanCreate, PlanUpdate } from "./model";
import { createPlan, deletePlan, getPlan, listPlans, updatePlan } from "./service";

const detail = (summary: string) => ({ tags: ["Plans"], summary });

export function planRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/plan/:code", ({ params, body, caller }) => ok(createPlan(ctx.db, caller, params.code, body)), {
      params: CodeParam, body: PlanCreate, response: { 200: IdResult }, detail: detail("Create a test plan (plan.created)"),
    })
    .get("/plan/:code", ({ params, query }) => {
      const { limit, offset } = paging(query);
      const r = listPlans(ctx.db, params.code, limit, offset);
      return page(r.entities, r.total);
    }, { params: CodeParam, query: Paging, detail: detail("List test plans") })
    .get("/plan/:code/:id", ({ params }) => ok(getPlan(ctx.db, params.code, params.id)), { params: CodeIdParams, detail: detail("Get a test plan with its cases") })
    .patch("/plan/:code/:id", ({ params, body }) => ok(updatePlan(ctx.db, params.code, params.id, body)), {
      params: CodeIdParams, body: PlanUpdate, response: { 200: IdResult },
      detail: detail("Update a test plan (plan.updated; run.updated for in-progress runs gaining cases)"),
    })
    .delete("/plan/:code/:id", ({ params }) => ok(deletePlan(ctx.db, params.code, params.id)), {
      params: CodeIdParams, response: { 200: IdResult }, detail: detail("Delete a test plan (plan.deleted)"),
    });
}
