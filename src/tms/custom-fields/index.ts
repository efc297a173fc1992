import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";
import { IdResult, ok, page, paging, Envelope, PageOf } from "../shared/envelope";
import { CustomFieldCreate, CustomFieldListQuery, CustomFieldUpdate, CustomFieldV2View, FieldIdParam, CustomFieldView } from "./model";
import { createCustomField, customFieldV2View, customFieldView, deleteCustomField, listCustomFields, requireField, updateCustomField } from "./service";

const detail = (summary: string) => ({ tags: ["Custom fields"], summary });

/** Workspace-wide (no project in the path): a token reaches its own workspace's custom fields only; their events carry that workspace. */
export function customFieldRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/custom_field", async ({ body, caller }) => ok(await createCustomField(ctx.db, caller, body)), {
      body: CustomFieldCreate, response: tmsResponses({ 200: IdResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a custom field (custom_field.created)"),
    })
    .get("/custom_field", async ({ query, caller }) => {
      const r = await listCustomFields(ctx.db, caller.workspaceId, { ...paging(query), entity: query.entity, type: query.type });
      return page(r.entities, r.total, r.filtered);
    }, { query: CustomFieldListQuery, response: tmsResponses({ 200: PageOf(CustomFieldView) }), detail: detail("List custom fields") })
    .get("/custom_field/:id", async ({ params, caller }) => ok(customFieldView(await requireField(ctx.db, caller.workspaceId, params.id))), { params: FieldIdParam, response: tmsResponses({ 200: Envelope(CustomFieldView) }, [404]), detail: detail("Get a custom field") })
    .patch("/custom_field/:id", async ({ params, body, caller }) => ok(await updateCustomField(ctx.db, caller, params.id, body)), {
      params: FieldIdParam, body: CustomFieldUpdate, response: tmsResponses({ 200: IdResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a custom field (custom_field.updated)"),
    })
    .delete("/custom_field/:id", async ({ params, caller }) => ok(await deleteCustomField(ctx.db, caller, params.id)), {
      params: FieldIdParam, response: tmsResponses({ 200: IdResult }, [404]), detail: detail("Delete a custom field (custom_field.deleted)"),
    });
}

/** qase-api-v2-client's CustomFieldsApi (`/v2/custom_field`): the v1 reads with options as objects. */
export function customFieldV2Routes(ctx: AppContext) {
  return tmsApi(ctx, "/v2")
    .get("/custom_field", async ({ query, caller }) => {
      const r = await listCustomFields(ctx.db, caller.workspaceId, { ...paging(query), entity: query.entity, type: query.type }, customFieldV2View);
      return page(r.entities, r.total, r.filtered);
    }, { query: CustomFieldListQuery, response: tmsResponses({ 200: PageOf(CustomFieldV2View) }), detail: detail("v2: list custom fields") })
    .get("/custom_field/:id", async ({ params, caller }) => ok(customFieldV2View(await requireField(ctx.db, caller.workspaceId, params.id))), {
      params: FieldIdParam, response: tmsResponses({ 200: Envelope(CustomFieldV2View) }, [404]), detail: detail("v2: get a custom field"),
    });
}
