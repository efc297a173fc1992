import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Workspace users, provisioned by SCIM. The integer `id` is the SCIM User id (as a decimal
 * string) and the group member `value`. Deactivation flips `active`; rows are never deleted,
 * because authored test-management history keeps pointing at them.
 * (Minimal shape from the skeleton; the SCIM users feature owns and extends it.)
 */
export const users = sqliteTable("users", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  userName: text("user_name").notNull(),
  active: integer("active", { mode: "boolean" }).notNull().default(true),
});
