import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The audit log: one row per admin action (and per sign-in, sign-out, failed sign-in and refused
 * request), written in the same transaction as the action it records. Who acted is kept by name
 * (a person's or a token's), so the log reads on its own after the token or session is gone.
 * Rows are appended in time order (id order), which the retention purge relies on; times are Unix
 * milliseconds. No secret is ever stored: summaries are redacted before they are written.
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    /** person | env-token | admin-token | anonymous */
    actorKind: text("actor_kind").notNull(),
    actorName: text("actor_name").notNull(),
    /** viewer | operator | owner; null for an anonymous attempt. */
    actorRole: text("actor_role"),
    /** The TCP peer's address (null through app.handle in tests). */
    sourceIp: text("source_ip"),
    userAgent: text("user_agent"),
    requestId: text("request_id"),
    /** e.g. webhook.update, scim.disable, session.sign_in */
    action: text("action").notNull(),
    resourceType: text("resource_type"),
    resourceId: text("resource_id"),
    /** JSON `{before?, after?}`, secrets redacted. */
    summary: text("summary"),
    /** success | failure | denied */
    outcome: text("outcome").notNull(),
    /** Why a failure or denial happened. */
    detail: text("detail"),
  },
  (t) => [index("audit_log_at").on(t.at), index("audit_log_actor").on(t.actorName), index("audit_log_resource").on(t.resourceType, t.resourceId)],
);

export type AuditRow = typeof auditLog.$inferSelect;
