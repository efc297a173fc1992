import { and, count, eq, inArray } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { preparedSelect } from "../../db/statement";
import { first, writeTransaction } from "../../db/transaction";
import { badRequest, notFound } from "../../http/errors";
import { own } from "../../lib/own";
import { publish } from "../../webhooks/publish";
import { workspaceProjectCodes } from "../projects/service";
import type { Caller } from "../shared/auth";
import { isoMicro } from "../shared/time";
import { CUSTOM_FIELD_ENTITY, CUSTOM_FIELD_TYPE, enumName } from "../../qase/enums";
import type { CustomFieldCreateBody, CustomFieldUpdateBody } from "./model";
import { customFields, type StoredCustomFieldValue } from "./tables";
import type { Reader } from "../shared/lookup";

type Row = typeof customFields.$inferSelect;
type Option = { id: number; title: string };

/** Assigns ids to options given without one (next free id), refusing duplicates. */
export function normaliseOptions(input: { id?: number | null; title: string }[]): Option[] {
  const taken = new Set(input.map((o) => o.id).filter((x): x is number => x != null));
  if (taken.size !== input.filter((o) => o.id != null).length) throw badRequest("Selectbox option ids must be unique", "value");
  let next = 1;
  return input.map((o) => {
    if (o.id != null) return { id: o.id, title: o.title };
    while (taken.has(next)) next++;
    taken.add(next);
    return { id: next, title: o.title };
  });
}

/** `value` of the webhook payload: the selectbox options as `{ "<id>": "<title>" }`; null for other types. */
const optionsObject = (options: Option[] | null) => (options ? Object.fromEntries(options.map((o) => [String(o.id), o.title])) : null);

export function customFieldPayload(f: Row) {
  return {
    id: f.id, title: f.title, isRequired: f.isRequired, isFilterable: f.isFilterable, isVisible: f.isVisible,
    default_value: f.defaultValue ?? "", value: optionsObject(f.options), type: f.type,
  };
}

export const customFieldView = (f: Row) => ({
  id: f.id, title: f.title, entity: f.entity, type: f.type, placeholder: f.placeholder, default_value: f.defaultValue,
  // Qase returns the options as a JSON string.
  value: f.options ? JSON.stringify(f.options) : null,
  is_required: f.isRequired, is_visible: f.isVisible, is_filterable: f.isFilterable,
  is_enabled_for_all_projects: f.isEnabledForAllProjects, projects_codes: f.projectCodes,
  author_id: f.authorId, created: f.created, updated: f.updated, created_at: f.created, updated_at: f.updated,
});

/** The v2 view (qase-api-v2-client's CustomField): options as objects. Pure. */
export const customFieldV2View = (f: Row) => ({ ...customFieldView(f), value: f.options });

/** The caller's workspace's field with this id, or 404 (another workspace's is not found either). */
export async function requireField(db: Db | Tx, workspaceId: number, id: number): Promise<Row> {
  const f = await first(db.select().from(customFields).where(and(eq(customFields.id, id), eq(customFields.workspaceId, workspaceId))));
  if (!f) throw notFound(`Custom field ${id}`);
  return f;
}

export function createCustomField(db: Db, caller: Caller, body: CustomFieldCreateBody) {
  const type = enumName(CUSTOM_FIELD_TYPE, body.type);
  const entity = enumName(CUSTOM_FIELD_ENTITY, body.entity);
  let options: Option[] | null = null;
  if (type === "selectbox") {
    if (!body.value?.length) throw badRequest("A selectbox field needs its values in `value`", "value");
    options = normaliseOptions(body.value);
  } else if (body.value?.length) throw badRequest(`Only selectbox fields take values; this one is "${type}"`, "value");
  if (type === "selectbox" && body.default_value != null && body.default_value !== "" && !options!.some((o) => String(o.id) === body.default_value))
    throw badRequest("default_value must be the id of one of the selectbox values", "default_value");
  const now = isoMicro();
  return writeTransaction(db, async (tx) => {
    const projectCodes = await workspaceProjectCodes(tx, caller.workspaceId, body.projects_codes ?? [], "projects_codes");
    const [f] = await tx.insert(customFields).values({
      workspaceId: caller.workspaceId, title: body.title, entity, type, options, placeholder: body.placeholder ?? null, defaultValue: body.default_value ?? null,
      isRequired: body.is_required ?? false, isFilterable: body.is_filterable ?? true, isVisible: body.is_visible ?? true,
      isEnabledForAllProjects: body.is_enabled_for_all_projects ?? true, projectCodes,
      authorId: caller.userId, created: now, updated: now,
    }).returning();
    await publish(tx, "custom_field.created", customFieldPayload(f!), { workspaceId: f!.workspaceId });
    return { id: f!.id };
  });
}

export function updateCustomField(db: Db, caller: Caller, id: number, body: CustomFieldUpdateBody) {
  return writeTransaction(db, async (tx) => {
    const f = await requireField(tx, caller.workspaceId, id);
    let options = f.options;
    if (body.value != null || body.replace_values != null) {
      if (f.type !== "selectbox") throw badRequest(`Only selectbox fields take values; this one is "${f.type}"`, "value");
      if (body.value != null) {
        if (body.value.length === 0) throw badRequest("A selectbox field needs at least one value", "value");
        options = normaliseOptions(body.value);
      }
      if (body.replace_values) {
        // Qase semantics: { "<old title>": "<new title>" } renames options in place.
        const renames = body.replace_values;
        options = options!.map((o) => {
          const title = own(renames, o.title);
          return title != null ? { id: o.id, title } : o;
        });
      }
    }
    const projectCodes = body.projects_codes != null ? await workspaceProjectCodes(tx, f.workspaceId, body.projects_codes, "projects_codes") : undefined;
    await tx.update(customFields).set({
      ...(body.title != null ? { title: body.title } : {}),
      options,
      ...(body.placeholder !== undefined ? { placeholder: body.placeholder } : {}),
      ...(body.default_value !== undefined ? { defaultValue: body.default_value } : {}),
      ...(body.is_required != null ? { isRequired: body.is_required } : {}),
      ...(body.is_filterable != null ? { isFilterable: body.is_filterable } : {}),
      ...(body.is_visible != null ? { isVisible: body.is_visible } : {}),
      ...(body.is_enabled_for_all_projects != null ? { isEnabledForAllProjects: body.is_enabled_for_all_projects } : {}),
      ...(projectCodes !== undefined ? { projectCodes } : {}),
      updated: isoMicro(),
    }).where(eq(customFields.id, id));
    await publish(tx, "custom_field.updated", { id }, { workspaceId: f.workspaceId });
    return { id };
  });
}

/** Values already stored on cases stay in their JSON (history); the field just stops being offered. */
export function deleteCustomField(db: Db, caller: Caller, id: number) {
  return writeTransaction(db, async (tx) => {
    const f = await requireField(tx, caller.workspaceId, id);
    await tx.delete(customFields).where(eq(customFields.id, id));
    await publish(tx, "custom_field.deleted", { id }, { workspaceId: f.workspaceId });
    return { id };
  });
}

/** The workspace's fields; `entity` and `type` (a name or Qase's number) narrow them (else 400 naming them). */
export async function listCustomFields<V = ReturnType<typeof customFieldView>>(db: Db, workspaceId: number, q: { limit: number; offset: number; entity?: string; type?: string }, view: (f: Row) => V = customFieldView as (f: Row) => V) {
  const mine = eq(customFields.workspaceId, workspaceId);
  const where = and(
    mine,
    q.entity ? eq(customFields.entity, enumName(CUSTOM_FIELD_ENTITY, q.entity, "entity")) : undefined,
    q.type ? eq(customFields.type, enumName(CUSTOM_FIELD_TYPE, q.type, "type")) : undefined,
  );
  const total = (await first(db.select({ n: count() }).from(customFields).where(mine)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(customFields).where(where)))!.n;
  return { total, filtered, entities: (await db.select().from(customFields).where(where).orderBy(customFields.id).limit(q.limit).offset(q.offset)).map(view) };
}

/** A workspace's fields of one entity, prepared once (every case, run and defect create reads them). */
const fieldsOfEntity = preparedSelect<typeof customFields, [string, number]>(customFields, "entity = ?1 AND workspace_id = ?2 ORDER BY id");

/** The custom fields of `entity` that apply to the project (its workspace's, for all projects or listing it). */
export async function fieldsFor(db: Db | Tx, project: { code: string; workspaceId: number }, entity: "case" | "run" | "defect"): Promise<Row[]> {
  return (await fieldsOfEntity(db, entity, project.workspaceId)).filter((f) => f.isEnabledForAllProjects || f.projectCodes.includes(project.code));
}

export const caseFieldsFor = (db: Db | Tx, project: { code: string; workspaceId: number }) => fieldsFor(db, project, "case");

const ENTITY_NAMES = { case: "test cases", run: "test runs", defect: "defects" } as const;

/**
 * Validates `custom_field` ({ "<field id>": "<value>" }) against `fields` (those of the entity
 * that apply to the project) and merges it into `previous` (null on create): unknown fields, wrong
 * types and unknown selectbox values are 400s naming the field; an empty value removes one;
 * required fields must be present (or have a default) on create. A selectbox stores its option's id.
 */
export function customFieldValues(fields: Row[], input: Record<string, string> | null | undefined, previous: StoredCustomFieldValue[] | null, entity: "case" | "run" | "defect"): StoredCustomFieldValue[] {
  const byId = new Map(fields.map((f) => [String(f.id), f]));
  const values = new Map((previous ?? []).map((v) => [v.field_id, v.value]));
  for (const [key, value] of Object.entries(input ?? {})) {
    const f = byId.get(key.trim());
    const field = `custom_field.${key}`;
    if (!f) throw badRequest(`Custom field ${key} does not exist for ${ENTITY_NAMES[entity]} of this project`, field);
    if (f.type === "number" && value !== "" && !Number.isFinite(Number(value))) throw badRequest(`Custom field ${key} takes a number`, field);
    if (f.type === "checkbox" && !["", "0", "1", "true", "false"].includes(value)) throw badRequest(`Custom field ${key} takes 0/1 or true/false`, field);
    if (f.type === "selectbox" && value !== "" && !f.options?.some((o) => String(o.id) === value || o.title === value))
      throw badRequest(`Custom field ${key} takes the id of one of its values`, field);
    const stored = f.type === "selectbox" ? String(f.options!.find((o) => String(o.id) === value || o.title === value)?.id ?? "") : value;
    if (stored === "") values.delete(String(f.id));
    else values.set(String(f.id), stored);
  }
  for (const f of fields) {
    if (!f.isRequired || values.has(String(f.id))) continue;
    if (previous === null && f.defaultValue) values.set(String(f.id), f.defaultValue);
    else throw badRequest(`Custom field ${f.id} ("${f.title}") is required`, `custom_field.${f.id}`);
  }
  return [...values].map(([field_id, value]) => ({ field_id, value }));
}

/** Which of the custom fields these stored values name still exist (one query). */
export async function liveFieldIds(db: Reader, values: Iterable<StoredCustomFieldValue>): Promise<Set<number>> {
  const ids = [...new Set([...values].map((f) => Number(f.field_id)))].filter(Number.isSafeInteger);
  if (ids.length === 0) return new Set();
  return new Set((await db.select({ id: customFields.id }).from(customFields).where(inArray(customFields.id, ids))).map((f) => f.id));
}

/**
 * Qase's `CustomFieldValue` list of an entity: a deleted field's values stay stored (the field is
 * gone, the history is not) but are not shown.
 */
export function customFieldViews(values: StoredCustomFieldValue[], live?: ReadonlySet<number>): { id: number; value: string }[] {
  return values.filter((f) => !live || live.has(Number(f.field_id))).map((f) => ({ id: Number(f.field_id), value: f.value }));
}
