import { blob, index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";
import { projects } from "../projects/tables";

/**
 * Uploaded files (Qase attachments), their bytes in the database itself: a backup of the database
 * file carries them, and a write is durable the same way as every other row. `hash` is the decimal
 * id (what results, steps and cases reference in `attachments`).
 */
export const attachments = sqliteTable("tms_attachments", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  projectId: integer("project_id").notNull().references(() => projects.id, { onDelete: "cascade" }),
  filename: text("filename").notNull(),
  /** Sniffed from the bytes, never taken from the upload. */
  mime: text("mime").notNull(),
  size: integer("size").notNull(),
  content: blob("content", { mode: "buffer" }).notNull(),
  authorId: integer("author_id").references(() => users.id),
  created: text("created").notNull(),
}, (t) => [index("tms_attachments_project").on(t.projectId)]);
