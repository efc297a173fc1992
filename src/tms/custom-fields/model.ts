import { t } from "elysia";
import { NumericId } from "../../http/paging";
import { EnumInput, EnumSlug } from "../shared/enum-schemas";
import { CUSTOM_FIELD_ENTITY, CUSTOM_FIELD_TYPE, enumLegend } from "../../qase/enums";
import { AuthorId, Limit, Nullable, Offset, Opt, Timestamp } from "../shared/envelope";
import { FilterText } from "../shared/list-filters";

/** Selectbox options; `id` is optional on create (assigned 1..n in order). */
const Option = t.Object({ id: Opt(t.Integer({ minimum: 1 })), title: t.String({ minLength: 1, maxLength: 255 }) });

const fields = {
  value: Opt(t.Array(Option, { maxItems: 500, description: "Selectbox values (required for selectbox, refused for other types)" })),
  placeholder: Opt(t.String({ maxLength: 255 })),
  default_value: Opt(t.String({ maxLength: 1000 })),
  is_filterable: Opt(t.Boolean()),
  is_visible: Opt(t.Boolean()),
  is_required: Opt(t.Boolean()),
  is_enabled_for_all_projects: Opt(t.Boolean()),
  projects_codes: Opt(t.Array(t.String({ maxLength: 32 }), { maxItems: 1000 })),
};

/** Qase `CustomFieldCreate`: `entity` and `type` as numbers (Qase clients) or names. */
export const CustomFieldCreate = t.Object({
  title: t.String({ minLength: 1, maxLength: 255 }),
  entity: EnumInput(CUSTOM_FIELD_ENTITY),
  type: EnumInput(CUSTOM_FIELD_TYPE),
  ...fields,
}, { examples: [{"title": "Component", "entity": "case", "type": "selectbox", "value": [{"title": "Web"}, {"title": "API"}]}] });
/** Qase `CustomFieldUpdate` (title optional here: a PATCH changes what it names). */
export const CustomFieldUpdate = t.Object({
  title: t.Optional(t.String({ minLength: 1, maxLength: 255 })),
  replace_values: Opt(t.Record(t.String(), t.String())),
  ...fields,
}, { examples: [{"title": "Area", "value": [{"id": 1, "title": "Web"}, {"id": 2, "title": "API"}, {"title": "Mobile"}]}] });
export type CustomFieldCreateBody = typeof CustomFieldCreate.static;
export type CustomFieldUpdateBody = typeof CustomFieldUpdate.static;
export const FieldIdParam = t.Object({ id: NumericId });
/** `GET /custom_field` filters as qase-api-client's CustomFieldsApi.getCustomFields sends them. */
export const CustomFieldListQuery = t.Object({
  limit: Limit,
  offset: Offset,
  entity: FilterText(`Name or number: ${enumLegend(CUSTOM_FIELD_ENTITY)}`),
  type: FilterText(`Name or number: ${enumLegend(CUSTOM_FIELD_TYPE)}`),
});

/** Qase's `CustomFieldValue` list, as cases, runs and defects show their values. */
export const CustomFieldValues = t.Array(t.Object({ id: t.Integer(), value: t.String() }), { description: "The field's id and its value (a selectbox: the option's id); a deleted field's values are not shown" });

export const CustomFieldView = t.Object({
  id: t.Integer(),
  title: t.String(),
  entity: EnumSlug(CUSTOM_FIELD_ENTITY),
  type: EnumSlug(CUSTOM_FIELD_TYPE),
  placeholder: Nullable(t.String()),
  default_value: Nullable(t.String()),
  value: Nullable(t.String({ description: "selectbox options as a JSON string, as Qase sends them" })),
  is_required: t.Boolean(),
  is_visible: t.Boolean(),
  is_filterable: t.Boolean(),
  is_enabled_for_all_projects: t.Boolean(),
  projects_codes: t.Array(t.String()),
  author_id: AuthorId,
  created: Timestamp,
  updated: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** qase-api-v2-client's `CustomField`: the same field with its options as objects rather than a JSON string. */
export const CustomFieldV2View = t.Composite([
  t.Omit(CustomFieldView, ["value"]),
  t.Object({ value: Nullable(t.Array(t.Object({ id: t.Integer(), title: t.String() }), { description: "selectbox options" })) }),
]);
