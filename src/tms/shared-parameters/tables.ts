import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users, workspaces } from "../../directory/tables";

/** A parameter of a shared parameter: its title and its values (Qase `ParameterSingle`). */
export type ParameterValues = { title: string; values: string[] };

/**
 * Qase shared parameters: parameter sets reused across test cases, addressed by a UUID (as in
 * Qase). They belong to a workspace (as projects do) and apply to all of its projects or to the
 * ones listed by code. `id` only orders them; the API shows `uuid`.
 */
export const sharedParameters = sqliteTable("tms_shared_parameters", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  uuid: text("uuid").notNull().unique(),
  workspaceId: integer("workspace_id").notNull().references(() => workspaces.id),
  title: text("title").notNull(),
  type: text("type", { enum: ["single", "group"] }).notNull(),
  /** `[{title, values}]`: one entry for `single`, two or more for `group`. */
  parameters: text("parameters", { mode: "json" }).$type<ParameterValues[]>().notNull(),
  isEnabledForAllProjects: integer("is_enabled_for_all_projects", { mode: "boolean" }).notNull(),
  /** Upper-case codes of projects of the same workspace. */
  projectCodes: text("project_codes", { mode: "json" }).$type<string[]>().notNull().default([]),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [index("tms_shared_parameters_workspace").on(t.workspaceId)]);
