import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { projects } from "../projects/tables";

export const milestones = sqliteTable("tms_milestones", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  /** The entity's number within its project: what the API and webhook payloads call its `id` (src/tms/shared/numbers.ts). */
  number: integer("number").notNull(),
  title: text("title").notNull(),
  description: text("description"),
  status: text("status", { enum: ["active", "completed"] }).notNull().default("active"),
  dueDate: text("due_date"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [uniqueIndex("tms_milestones_number").on(t.projectId, t.number), index("tms_milestones_project").on(t.projectId)]);
