import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";
import { Envelope, ok, page, PageOf, paging } from "../shared/envelope";
import { SharedParameterCreate, SharedParameterListQuery, SharedParameterUpdate, SharedParameterView, UuidParam, UuidResult } from "./model";
import {
  createSharedParameter, deleteSharedParameter, filterCodes, listSharedParameters, requireSharedParameter, sharedParameterView, updateSharedParameter,
} from "./service";

const detail = (summary: string) => ({ tags: ["Shared parameters"], summary });

/** Workspace-wide (no project in the path): a token reaches its own workspace's shared parameters only. No webhook events (Qase's catalog has none). */
export function sharedParameterRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/shared_parameter", async ({ body, caller }) => ok(await createSharedParameter(ctx.db, caller, body)), {
      body: SharedParameterCreate, response: tmsResponses({ 200: UuidResult }, TMS_BODY_ERRORS), detail: detail("Create a shared parameter"),
    })
    .get("/shared_parameter", async ({ query, caller }) => {
      const r = await listSharedParameters(ctx.db, caller.workspaceId, {
        ...paging(query), search: query["filters[search]"], type: query["filters[type]"], projectCodes: filterCodes(query["filters[project_codes][]"]),
      });
      return page(r.entities, r.total, r.filtered);
    }, { query: SharedParameterListQuery, response: tmsResponses({ 200: PageOf(SharedParameterView) }), detail: detail("List shared parameters") })
    .get("/shared_parameter/:id", async ({ params, caller }) => ok(sharedParameterView(await requireSharedParameter(ctx.db, caller.workspaceId, params.id))), {
      params: UuidParam, response: tmsResponses({ 200: Envelope(SharedParameterView) }, [404]), detail: detail("Get a shared parameter"),
    })
    .patch("/shared_parameter/:id", async ({ params, body, caller }) => ok(await updateSharedParameter(ctx.db, caller, params.id, body)), {
      params: UuidParam, body: SharedParameterUpdate, response: tmsResponses({ 200: UuidResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a shared parameter"),
    })
    .delete("/shared_parameter/:id", async ({ params, caller }) => ok(await deleteSharedParameter(ctx.db, caller, params.id)), {
      params: UuidParam, response: tmsResponses({ 200: UuidResult }, [404]), detail: detail("Delete a shared parameter"),
    });
}
