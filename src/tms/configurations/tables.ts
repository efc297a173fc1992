import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { projects } from "../projects/tables";

/** Qase configuration groups ("Browser", "OS"): each holds configurations ("Chrome", "Linux"). */
export const configurationGroups = sqliteTable("tms_configuration_groups", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  created: text("created").notNull(),
}, (t) => [uniqueIndex("tms_configuration_groups_title").on(t.projectId, t.title)]);

/** A configuration value of a group; runs name the configurations they ran with (`tms_runs.configurations`). */
export const configurations = sqliteTable("tms_configurations", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  groupId: integer("group_id").notNull().references(() => configurationGroups.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  created: text("created").notNull(),
}, (t) => [uniqueIndex("tms_configurations_title").on(t.groupId, t.title), index("tms_configurations_project").on(t.projectId)]);
