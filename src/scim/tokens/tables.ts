import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { workspaces } from "../../directory/tables";

/**
 * SCIM bearer tokens. Only the SHA-256 of a token is stored; the token itself is shown once,
 * on create. Revoking sets `revoked_at` (kept for the audit trail, never reused). A live token's
 * name is unique (case-insensitively): the provisioning log names IdP connections by it.
 */
export const scimTokens = sqliteTable(
  "scim_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: text("created_at").notNull(),
    lastUsedAt: text("last_used_at"),
    revokedAt: text("revoked_at"),
    /** NULL: an organization token (sees every workspace); else the one workspace it provisions. */
    workspaceId: integer("workspace_id").references(() => workspaces.id),
  },
  (t) => [
    uniqueIndex("scim_tokens_token_hash_unique").on(t.tokenHash),
    uniqueIndex("scim_tokens_live_name_unique").on(sql`lower(${t.name})`).where(sql`${t.revokedAt} IS NULL`),
  ],
);

export type ScimTokenRow = typeof scimTokens.$inferSelect;
