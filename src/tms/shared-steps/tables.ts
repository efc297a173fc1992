import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { projects } from "../projects/tables";

/** Shared steps are addressed by an opaque hash (as in Qase), referenced from case steps by `shared_hash`. */
export const sharedSteps = sqliteTable("tms_shared_steps", {
  hash: text("hash").primaryKey(),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  action: text("action").notNull(),
  expectedResult: text("expected_result"),
  data: text("data"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [index("tms_shared_steps_project").on(t.projectId)]);
