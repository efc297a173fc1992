import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { projects } from "../projects/tables";

/** Qase environments: where a run ran (`staging`, `prod-eu`…), named by a slug unique in the project. */
export const environments = sqliteTable("tms_environments", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  title: text("title").notNull(),
  slug: text("slug").notNull(),
  description: text("description"),
  host: text("host"),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
  updated: text("updated").notNull(),
}, (t) => [uniqueIndex("tms_environments_slug").on(t.projectId, t.slug)]);
