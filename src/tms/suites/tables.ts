import { index, integer, sqliteTable, text, uniqueIndex, type AnySQLiteColumn } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { projects } from "../projects/tables";

/** Suites form a tree per project through `parentId` (null at the root). */
export const suites = sqliteTable("tms_suites", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  /** The entity's number within its project: what the API and webhook payloads call its `id` (src/tms/shared/numbers.ts). */
  number: integer("number").notNull(),
  parentId: integer("parent_id").references((): AnySQLiteColumn => suites.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  description: text("description"),
  preconditions: text("preconditions"),
  position: integer("position").notNull(),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [uniqueIndex("tms_suites_number").on(t.projectId, t.number), index("tms_suites_project").on(t.projectId), index("tms_suites_parent").on(t.parentId)]);
