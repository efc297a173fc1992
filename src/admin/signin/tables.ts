import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Console sessions of people signed in through the organization's IdP. The browser holds only an
 * opaque random id in an HttpOnly cookie; the row is found by its SHA-256 (`idHash`), so a copy of
 * the database holds no usable session. Deleting the row ends the session (sign-out, revocation).
 * Times are Unix milliseconds.
 */
export const adminSessions = sqliteTable(
  "admin_sessions",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    idHash: text("id_hash").notNull().unique(),
    /** Sent by the console as `x-csrf-token` on every state change; compared in constant time. */
    csrfToken: text("csrf_token").notNull(),
    /** The IdP's `sub` and issuer: who this is, whatever their name says. */
    subject: text("subject").notNull(),
    issuer: text("issuer").notNull(),
    /** What the audit log shows: e-mail, else preferred_username, else name, else sub. */
    name: text("name").notNull(),
    role: text("role", { enum: ["viewer", "operator", "owner"] }).notNull(),
    /** For RP-initiated logout (`id_token_hint`). */
    idToken: text("id_token"),
    sourceIp: text("source_ip"),
    userAgent: text("user_agent"),
    createdAt: integer("created_at").notNull(),
    lastSeenAt: integer("last_seen_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("admin_sessions_expires").on(t.expiresAt)],
);

export type AdminSessionRow = typeof adminSessions.$inferSelect;

/**
 * States of sign-ins whose callback has been taken (SHA-256 of the state), kept until the sign-in
 * would have expired: the pending sign-in travels in a cookie any node can open, so the database
 * is what makes a callback single-use across nodes (the primary key refuses the second).
 */
export const adminSignInUsedStates = sqliteTable(
  "admin_signin_used_states",
  {
    stateHash: text("state_hash").primaryKey(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("admin_signin_used_states_expires").on(t.expiresAt)],
);
