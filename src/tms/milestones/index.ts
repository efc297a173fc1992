import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { CodeNumberParams, CodeParam, NumberResult, ok, page, paging, Envelope, PageOf } from "../shared/envelope";
import { SearchPaging } from "../shared/list-filters";
import { deleteNumbered } from "../shared/write";
import { MilestoneCreate, MilestoneUpdate, MilestoneView } from "./model";
import { createMilestone, getMilestone, listMilestones, updateMilestone } from "./service";

/** `{code}/{id}`: the milestone's number within the project. */
const NumberParams = CodeNumberParams("milestone");
const Numbered = NumberResult("milestone");
const detail = (summary: string) => ({ tags: ["Milestones"], summary });

export function milestoneRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/milestone/:code", async ({ project, body, caller }) => ok(await createMilestone(ctx.db, caller, project, body)), {
      params: CodeParam, body: MilestoneCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a milestone (milestone.created)"),
    })
    .get("/milestone/:code", async ({ project, query }) => {
      const r = await listMilestones(ctx.db, project, { ...paging(query), search: query.search });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: SearchPaging, response: tmsResponses({ 200: PageOf(MilestoneView) }, [404]), detail: detail("List milestones") })
    .get("/milestone/:code/:id", async ({ project, params }) => ok(await getMilestone(ctx.db, project, params.id)), { params: NumberParams, response: tmsResponses({ 200: Envelope(MilestoneView) }, [404]), detail: detail("Get a milestone") })
    .patch("/milestone/:code/:id", async ({ project, params, body }) => ok(await updateMilestone(ctx.db, project, params.id, body)), {
      params: NumberParams, body: MilestoneUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a milestone (milestone.updated)"),
    })
    // Cases and runs that pointed at the milestone keep existing with `milestone_id` null.
    .delete("/milestone/:code/:id", async ({ project, params }) => ok(await deleteNumbered(ctx.db, project, "milestone", params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: detail("Delete a milestone (milestone.deleted)"),
    });
}
