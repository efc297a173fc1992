import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { deleteNumbered } from "../shared/write";
import { CodeNumberParams, CodeParam, NumberResult, ok, page, paging, Envelope, PageOf, StatusOnly } from "../shared/envelope";
import { DefectCreate, DefectListQuery, DefectStatusBody, DefectUpdate, DefectView } from "./model";
import { createDefect, getDefect, listDefects, resolveDefect, setDefectStatus, updateDefect } from "./service";

/** `{code}/{id}`: the defect's number within the project. */
const NumberParams = CodeNumberParams("defect");
const Numbered = NumberResult("defect");
const detail = (summary: string) => ({ tags: ["Defects"], summary });

export function defectRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/defect/:code", async ({ project, body, caller }) => ok(await createDefect(ctx.db, caller, project, body)), {
      params: CodeParam, body: DefectCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a defect, directly or from a failed result (defect.created)"),
    })
    .get("/defect/:code", async ({ project, query }) => {
      const r = await listDefects(ctx.db, project, { ...paging(query), status: query.status });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: DefectListQuery, response: tmsResponses({ 200: PageOf(DefectView) }, [404]), detail: detail("List defects") })
    .get("/defect/:code/:id", async ({ project, params }) => ok(await getDefect(ctx.db, project, params.id)), { params: NumberParams, response: tmsResponses({ 200: Envelope(DefectView) }, [404]), detail: detail("Get a defect") })
    .patch("/defect/:code/resolve/:id", async ({ project, params }) => ok(await resolveDefect(ctx.db, project, params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404, 409]), detail: detail("Resolve a defect (defect.resolved; 409 if already resolved)"),
    })
    .patch("/defect/:code/status/:id", async ({ project, params, body }) => {
      await setDefectStatus(ctx.db, project, params.id, body.status);
      return { status: true as const };
    }, { params: NumberParams, body: DefectStatusBody, response: tmsResponses({ 200: StatusOnly }, [404, ...TMS_BODY_ERRORS]), detail: detail("Set a defect's status (defect.resolved when it becomes resolved)") })
    .patch("/defect/:code/:id", async ({ project, params, body }) => ok(await updateDefect(ctx.db, project, params.id, body)), {
      params: NumberParams, body: DefectUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a defect (no event)"),
    })
    .delete("/defect/:code/:id", async ({ project, params }) => ok(await deleteNumbered(ctx.db, project, "defect", params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: detail("Delete a defect (defect.deleted)"),
    });
}
