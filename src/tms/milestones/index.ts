import type { AppContext } from "../../context";
import { tmsApi } from "../shared/api";
import { CodeIdParams, CodeParam, IdResult, ok, page, paging, Paging } from "../shared/envelope";
import { MilestoneCreate, MilestoneUpdate } from "./model";
import { createMilestone, deleteMilestone, getMilestone, listMilestones, updateMilestone } from "./service";

const detail = (summary: string) => ({ tags: ["Milestones"], summary });

export function milestoneRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/milestone/:code", ({ params, body, caller }) => ok(createMilestone(ctx.db, caller, params.code, body)), {
      params: CodeParam, body: MilestoneCreate, response: { 200: IdResult }, detail: detail("Create a milestone (milestone.created)"),
    })
    .get("/milestone/:code", ({ params, query }) => {
      const { limit, offset } = paging(query);
      const r = listMilestones(ctx.db, params.code, limit, offset);
      return page(r.entities, r.total);
    }, { params: CodeParam, query: Paging, detail: detail("List milestones") })
    .get("/milestone/:code/:id", ({ params }) => ok(getMilestone(ctx.db, params.code, params.id)), { params: CodeIdParams, detail: detail("Get a milestone") })
    .patch("/milestone/:code/:id", ({ params, body }) => ok(updateMilestone(ctx.db, params.code, params.id, body)), {
      params: CodeIdParams, body: MilestoneUpdate, response: { 200: IdResult }, detail: detail("Update a milestone (milestone.updated)"),
    })
    .delete("/milestone/:code/:id", ({ params }) => ok(deleteMilestone(ctx.db, params.code, params.id)), {
      params: CodeIdParams, response: { 200: IdResult }, detail: detail("Delete a milestone (milestone.deleted)"),
    });
}
