import { sql } from "drizzle-orm";
import { integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";

/**
 * Admin API tokens for scripts: named, scoped to one role, with an expiry; created by an owner and
 * shown once. Only the SHA-256 of the token is kept. Revoking sets `revokedAt` (the row stays, so
 * the audit log's names keep meaning something). Times are Unix milliseconds.
 */
export const adminTokens = sqliteTable(
  "admin_tokens",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    name: text("name").notNull(),
    role: text("role", { enum: ["viewer", "operator", "owner"] }).notNull(),
    tokenHash: text("token_hash").notNull(),
    createdBy: text("created_by").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
    lastUsedAt: integer("last_used_at"),
    revokedAt: integer("revoked_at"),
  },
  (t) => [
    uniqueIndex("admin_tokens_token_hash_unique").on(t.tokenHash),
    // A name tells the audit log's readers which script acted: unique among tokens not revoked.
    uniqueIndex("admin_tokens_live_name_unique").on(sql`lower(${t.name})`).where(sql`${t.revokedAt} IS NULL`),
  ],
);
