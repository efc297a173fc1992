import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";

/** Projects: every other test-management entity belongs to one, addressed by its `code`. */
export const projects = sqliteTable("tms_projects", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  code: text("code").notNull().unique(),
  title: text("title").notNull(),
  description: text("description"),
  access: text("access").notNull().default("all"),
  /** The workspace the project (and so every entity in it) belongs to; API tokens of other workspaces do not see it. */
  workspaceId: integer("workspace_id").notNull().default(1),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
});
