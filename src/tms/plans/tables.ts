import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { cases } from "../cases/tables";
import { projects } from "../projects/tables";

export const plans = sqliteTable("tms_plans", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  /** The entity's number within its project: what the API and webhook payloads call its `id` (src/tms/shared/numbers.ts). */
  number: integer("number").notNull(),
  title: text("title").notNull(),
  description: text("description"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [uniqueIndex("tms_plans_number").on(t.projectId, t.number), index("tms_plans_project").on(t.projectId)]);

/** The plan's case list, in the order given. */
export const planCases = sqliteTable("tms_plan_cases", {
  planId: integer("plan_id").notNull().references(() => plans.id, { onDelete: "cascade" }),
  caseId: integer("case_id").notNull().references(() => cases.id),
  position: integer("position").notNull(),
}, (t) => [primaryKey({ columns: [t.planId, t.caseId] })]);
