import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";
import { CodeNumberParams, CodeParam, NumberResult, ok, page, paging, Envelope, PageOf } from "../shared/envelope";
import { SearchPaging } from "../shared/list-filters";
import { MilestoneCreate, MilestoneUpdate, MilestoneView } from "./model";
import { createMilestone, deleteMilestone, getMilestone, listMilestones, updateMilestone } from "./service";

/** `{code}/{id}`: the milestone's number within the project. */
const NumberParams = CodeNumberParams("milestone");
const Numbered = NumberResult("milestone");
const detail = (summary: string) => ({ tags: ["Milestones"], summary });

export function milestoneRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/milestone/:code", ({ params, body, caller }) => ok(createMilestone(ctx.db, caller, params.code, body)), {
      params: CodeParam, body: MilestoneCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a milestone (milestone.created)"),
    })
    .get("/milestone/:code", ({ params, query }) => {
      const r = listMilestones(ctx.db, params.code, { ...paging(query), search: query.search });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: SearchPaging, response: tmsResponses({ 200: PageOf(MilestoneView) }, [404]), detail: detail("List milestones") })
    .get("/milestone/:code/:id", ({ params }) => ok(getMilestone(ctx.db, params.code, params.id)), { params: NumberParams, response: tmsResponses({ 200: Envelope(MilestoneView) }, [404]), detail: detail("Get a milestone") })
    .patch("/milestone/:code/:id", ({ params, body }) => ok(updateMilestone(ctx.db, params.code, params.id, body)), {
      params: NumberParams, body: MilestoneUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a milestone (milestone.updated)"),
    })
    .delete("/milestone/:code/:id", ({ params }) => ok(deleteMilestone(ctx.db, params.code, params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: detail("Delete a milestone (milestone.deleted)"),
    });
}
