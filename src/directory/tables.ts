import { index, integer, primaryKey, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/*
 * The directory: who belongs to the organization (users, their e-mails) and its teams (groups,
 * memberships). SCIM provisions it, the test-management API attributes work to its users, the
 * admin API reads it; none of them owns it.
 */

/**
 * Workspace users, provisioned by SCIM. The integer `id` is the SCIM User id (as a decimal
 * string) and the group member `value`. Deactivation flips `active`; rows are never deleted,
 * because authored test-management history keeps pointing at them.
 *
 * `user_name_key` is `caseFoldKey(userName)` (NFC and full case folding, which SQLite's
 * `lower()`/NOCASE do not do); its unique index makes userName unique under that folding and
 * serves `userName eq` filters without a scan.
 */
export const users = sqliteTable(
  "users",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userName: text("user_name").notNull(),
    userNameKey: text("user_name_key").notNull(),
    externalId: text("external_id"),
    givenName: text("given_name"),
    familyName: text("family_name"),
    formattedName: text("formatted_name"),
    /** displayName exactly as the IdP sent it (null when it sent none). */
    displayNameGiven: text("display_name_given"),
    /** The name shown in the product, derived by the spec 2.1 rule (see service.ts `resolveDisplayName`). */
    displayName: text("display_name").notNull(),
    title: text("title"),
    /**
     * The user's `emails` exactly as a SCIM response renders them (JSON), written in the same
     * transaction as `user_emails`. Reads render from this column (one row, no second
     * statement on the hot lookup); filters and sorts on emails use `user_emails`' indexes.
     */
    emails: text("emails").notNull().default("[]"),
    userType: text("user_type", { enum: ["regular", "read-only", "billing"] }).notNull().default("regular"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    /**
     * Who deactivated the user: the workspace whose SCIM token did (its id), 0 for the
     * organization (its token or the admin API); null while active, and for users deactivated
     * before this was recorded. A workspace token reactivates only what it (or no one known)
     * deactivated (docs/directory.md, "A person in several workspaces").
     */
    deactivatedBy: integer("deactivated_by"),
    /**
     * Every other attribute of the SCIM User schema and the enterprise extension (nickName,
     * phoneNumbers, addresses, department, manager, …) as one JSON document in the SCIM shape,
     * returned as stored; filters reach into it with SQLite's JSON functions.
     */
    profile: text("profile").notNull().default("{}"),
    /** Workspace role; every provisioned user starts with the default role. */
    role: text("role").notNull().default("member"),
    /** ISO 8601 UTC with milliseconds, so text order is time order (sortBy/filters on meta.*). */
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (u) => [
    uniqueIndex("users_user_name_key_unique").on(u.userNameKey),
    index("users_external_id_idx").on(u.externalId),
    index("users_active_type_idx").on(u.active, u.userType),
    index("users_created_at_idx").on(u.createdAt),
  ],
);

/** A user's e-mail addresses (multi-valued `emails`), in the order the IdP sent them. */
export const userEmails = sqliteTable(
  "user_emails",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    value: text("value").notNull(),
    /** `caseFoldKey(value)`; e-mail filters compare case-insensitively on it. */
    valueKey: text("value_key").notNull(),
    type: text("type"),
    primary: integer("is_primary", { mode: "boolean" }).notNull().default(false),
    display: text("display"),
  },
  (e) => [
    index("user_emails_value_key_idx").on(e.valueKey),
    // Covering (every column a read needs), so fetching a user's e-mails is one index range
    // scan with no table lookups: it runs on every user read.
    index("user_emails_user_cover_idx").on(e.userId, e.position, e.value, e.type, e.primary),
  ],
);


/**
 * Workspace teams, provisioned as SCIM Groups. `id` is an opaque random hash (the spec calls
 * the group id a hash; nothing about it may leak ordering or counts).
 *
 * `displayNameKey` is `displayName` case-folded in JavaScript (see `displayNameKey()`), with a
 * unique index: SQLite's `lower()` and `COLLATE NOCASE` fold ASCII only, so "Équipe" and
 * "ÉQUIPE" would both pass them. The same key serves case-insensitive filtering and sorting,
 * so uniqueness, `displayName eq` and `sortBy=displayName` all agree on what "same" means.
 */
export const groups = sqliteTable(
  "groups",
  {
    id: text("id").primaryKey(),
    /**
     * The workspace the team belongs to. No foreign key (SQLite cannot add one with a non-NULL
     * default to an existing table); workspaces are never deleted, only archived.
     */
    workspaceId: integer("workspace_id").notNull().default(1),
    displayName: text("display_name").notNull(),
    displayNameKey: text("display_name_key").notNull(),
    externalId: text("external_id"),
    /** ISO 8601 UTC with milliseconds (as users have), so text order is time order. */
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  // names are unique within a workspace; the key leads so `displayName eq` is a probe in any scope
  (g) => [uniqueIndex("groups_display_name_key_workspace_unique").on(g.displayNameKey, g.workspaceId)],
);

/** The workspace every installation has; data from before workspaces existed lives in it. */
export const DEFAULT_WORKSPACE_ID = 1;

/**
 * An organization (this instance) has one or more workspaces. Users are organization-wide and
 * members of workspaces; groups belong to one workspace. Archived workspaces keep their data;
 * their SCIM tokens stop working. `name_key` is `caseFoldKey(name)`: names are unique
 * case-insensitively.
 */
export const workspaces = sqliteTable(
  "workspaces",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    nameKey: text("name_key").notNull(),
    archivedAt: text("archived_at"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (w) => [uniqueIndex("workspaces_name_key_unique").on(w.nameKey)],
);

/**
 * Which users belong to which workspace. Deactivation is organization-wide and keeps the rows; a
 * row goes only when a workspace withdraws a person who stays in other workspaces (`leaveWorkspace`).
 */
export const workspaceMembers = sqliteTable(
  "workspace_members",
  {
    workspaceId: integer("workspace_id").notNull().references(() => workspaces.id),
    userId: integer("user_id").notNull().references(() => users.id),
    createdAt: text("created_at").notNull(),
  },
  (m) => [primaryKey({ columns: [m.workspaceId, m.userId] }), index("workspace_members_user_id_idx").on(m.userId)],
);

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

/**
 * The key under which user names (and e-mail addresses) are unique and compared: Unicode NFKC,
 * then full case folding, so "josé" in NFC and NFD, "straße"/"STRASSE", "ﬁle"/"file" and the
 * fullwidth "ａｌｉｃｅ" / "alice" are one name (NFC alone would let a look-alike sit beside a
 * person). Full folding is upper- then lower-casing (ß → SS → ss, ﬁ → FI → fi, ς → Σ → σ); it
 * also folds the Turkish dotless ı with i, which only makes uniqueness stricter. Keys stored
 * under an older folding are re-keyed at start (src/directory/refold.ts).
 */
export function caseFoldKey(value: string): string {
  return value.normalize("NFKC").toUpperCase().toLowerCase().normalize("NFKC");
}

/** The case-folded form under which display names are unique and compared. */
export function displayNameKey(displayName: string): string {
  return displayName.normalize("NFC").toLowerCase();
}

export type UserRow = typeof users.$inferSelect;
export type UserEmailRow = typeof userEmails.$inferSelect;
export type GroupRow = typeof groups.$inferSelect;
