import { CUSTOM_FIELD_ENTITY, CUSTOM_FIELD_TYPE } from "../../qase/enums";
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";

/** A custom field's value as an entity (case, run, defect) stores it: the field's id and the value as text (a selectbox: the option's id). */
export type StoredCustomFieldValue = { field_id: string; value: string };

/**
 * Custom fields belong to a workspace (as projects do; Qase's are workspace-wide too) and apply to
 * all of its projects or to the ones listed by code. Migration 0018 gave the fields made before
 * this a workspace (docs/tms.md, "Custom fields").
 */
export const customFields = sqliteTable("tms_custom_fields", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  /** No foreign key, as `tms_projects.workspace_id`: SQLite adds a referencing column only with a NULL default. */
  workspaceId: integer("workspace_id").notNull().default(1),
  title: text("title").notNull(),
  entity: text("entity", { enum: CUSTOM_FIELD_ENTITY.names }).notNull(),
  type: text("type", { enum: CUSTOM_FIELD_TYPE.names }).notNull(),
  /** Selectbox options as JSON `[{id, title}]`; null for other types. */
  options: text("options", { mode: "json" }).$type<{ id: number; title: string }[] | null>(),
  placeholder: text("placeholder"),
  defaultValue: text("default_value"),
  isRequired: integer("is_required", { mode: "boolean" }).notNull().default(false),
  isFilterable: integer("is_filterable", { mode: "boolean" }).notNull().default(true),
  isVisible: integer("is_visible", { mode: "boolean" }).notNull().default(true),
  isEnabledForAllProjects: integer("is_enabled_for_all_projects", { mode: "boolean" }).notNull().default(true),
  /** Upper-case codes of projects of the same workspace. */
  projectCodes: text("project_codes", { mode: "json" }).$type<string[]>().notNull().default([]),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [index("tms_custom_fields_workspace").on(t.workspaceId)]);
