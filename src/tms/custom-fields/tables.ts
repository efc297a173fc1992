import { CUSTOM_FIELD_ENTITY, CUSTOM_FIELD_TYPE } from "../shared/enums";
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";

/** Custom fields are workspace-wide (as in Qase), optionally enabled for some projects only. */
export const customFields = sqliteTable("tms_custom_fields", {
  id: integer("id").primaryKey({ autoIncrement: true }),
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
  projectCodes: text("project_codes", { mode: "json" }).$type<string[]>().notNull().default([]),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
});
