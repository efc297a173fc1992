import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { projects } from "../projects/tables";

export const milestones = sqliteTable("tms_milestones", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  description: text("description"),
  status: text("status", { enum: ["active", "completed"] }).notNull().default("active"),
  dueDate: text("due_date"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [index("tms_milestones_project").on(t.projectId)]);
