import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";
import { IdResult, ok, page, paging, Paging, Envelope, PageOf } from "../shared/envelope";
import { CustomFieldCreate, CustomFieldUpdate, FieldIdParam, CustomFieldView } from "./model";
import { createCustomField, customFieldView, deleteCustomField, listCustomFields, requireField, updateCustomField } from "./service";

const detail = (summary: string) => ({ tags: ["Custom fields"], summary });

export function customFieldRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .post("/custom_field", ({ body, caller }) => ok(createCustomField(ctx.db, caller, body)), {
      body: CustomFieldCreate, response: tmsResponses({ 200: IdResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a custom field (custom_field.created)"),
    })
    .get("/custom_field", ({ query }) => {
      const { limit, offset } = paging(query);
      const r = listCustomFields(ctx.db, limit, offset);
      return page(r.entities, r.total);
    }, { query: Paging, response: tmsResponses({ 200: PageOf(CustomFieldView) }), detail: detail("List custom fields") })
    .get("/custom_field/:id", ({ params }) => ok(customFieldView(requireField(ctx.db, params.id))), { params: FieldIdParam, response: tmsResponses({ 200: Envelope(CustomFieldView) }, [404]), detail: detail("Get a custom field") })
    .patch("/custom_field/:id", ({ params, body }) => ok(updateCustomField(ctx.db, params.id, body)), {
      params: FieldIdParam, body: CustomFieldUpdate, response: tmsResponses({ 200: IdResult }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a custom field (custom_field.updated)"),
    })
    .delete("/custom_field/:id", ({ params }) => ok(deleteCustomField(ctx.db, params.id)), {
      params: FieldIdParam, response: tmsResponses({ 200: IdResult }, [404]), detail: detail("Delete a custom field (custom_field.deleted)"),
    });
}
