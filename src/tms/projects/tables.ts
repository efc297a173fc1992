import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
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

/**
 * The last number handed out per project and entity kind (`case`, `suite`, `milestone`, `plan`,
 * `run`, `defect`; src/tms/shared/numbers.ts). A counter rather than `max(number) + 1`: a number
 * is never handed out twice, even after its entity is deleted, so an old reference can never
 * point at a newer entity. A table of its own rather than six columns on tms_projects: one upsert
 * statement allocates for any kind, and a new numbered entity needs no change to projects.
 */
export const projectCounters = sqliteTable("tms_project_counters", {
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  entity: text("entity").notNull(),
  last: integer("last").notNull(),
}, (t) => [primaryKey({ columns: [t.projectId, t.entity] })]);

/** A project as stored; every project-scoped route resolves one (src/tms/shared/api.ts). */
export type ProjectRow = typeof projects.$inferSelect;
