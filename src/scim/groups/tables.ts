import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../users/tables";

/**
 * Workspace teams, provisioned as SCIM Groups. `id` is an opaque random hash (the spec calls
 * the group id a hash; nothing about it may leak ordering or counts).
 *
 * `displayNameKey` is `displayName` case-folded in JavaScript (see `displayNameKey()`), with a
 * unique index: SQLite's `lower()` and `COLLATE NOCASE` fold ASCII only, so "Équipe" and
 * "ÉQUIPE" would both pass them. The same key serves case-insensitive filtering and sorting,
 * so uniqueness, `displayName eq` and `sortBy=displayName` all agree on what "same" means.
 */
export const groups = sqliteTable("groups", {
  id: text("id").primaryKey(),
  displayName: text("display_name").notNull(),
  displayNameKey: text("display_name_key").notNull().unique("groups_display_name_key_unique"),
  externalId: text("external_id"),
  /** ISO 8601 UTC with milliseconds (as users have), so text order is time order. */
  createdAt: text("created_at").notNull(),
  updatedAt: text("updated_at").notNull(),
});

/**
 * Membership. Only active users are ever inserted (the service checks in the same statement),
 * and deactivating a user deletes their rows in the deactivation's transaction. The foreign
 * keys (enforced: `PRAGMA foreign_keys = ON`) make a row pointing at nothing impossible.
 * The primary key (group_id, user_id) serves "members of a group" in id order; the user_id
 * index serves "remove this user from every group".
 */
export const groupMembers = sqliteTable(
  "group_members",
  {
    groupId: text("group_id").notNull().references(() => groups.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index("group_members_user_id_idx").on(t.userId)],
);

/** The case-folded form under which display names are unique and compared. */
export function displayNameKey(displayName: string): string {
  return displayName.normalize("NFC").toLowerCase();
}
