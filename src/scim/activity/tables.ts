import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The provisioning activity log: one row per SCIM write (POST, PUT, PATCH, DELETE on /Users and
 * /Groups) by an authenticated token, with its outcome. A summary only: no request or response
 * body, and of the person only the resource id and userName (users) or displayName (groups).
 * Rows are appended in time order (id order), which the retention purge relies on; times are
 * Unix milliseconds.
 */
export const scimActivity = sqliteTable(
  "scim_activity",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    tokenId: integer("token_id").notNull(),
    /** The token's name at the time (tokens are never renamed or deleted, but the log must read on its own). */
    tokenName: text("token_name").notNull(),
    /** create | replace | update | delete */
    operation: text("operation").notNull(),
    /** User | Group */
    resourceType: text("resource_type").notNull(),
    /** Null for a create that failed (nothing was made). */
    resourceId: text("resource_id"),
    /** userName of a user, displayName of a group, when known. */
    resourceName: text("resource_name"),
    status: integer("status").notNull(),
    scimType: text("scim_type"),
    detail: text("detail"),
    /** The `x-request-id` of the call, to find its line in the request log. */
    requestId: text("request_id").notNull(),
  },
  (t) => [index("scim_activity_resource").on(t.resourceType, t.resourceId)],
);

export type ScimActivityRow = typeof scimActivity.$inferSelect;
