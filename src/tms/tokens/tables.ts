import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { users } from "../../directory/tables";

/**
 * API tokens for /api/v1 (`Token: <token>` header), created by admins. Only the SHA-256 of the
 * token is kept; `userId` attributes everything written with it to a SCIM-provisioned user.
 * Revoking sets `revokedAt` (the row stays so the audit trail keeps its name).
 */
export const apiTokens = sqliteTable("api_tokens", {
  id: integer("id").primaryKey({ autoIncrement: true }),
  name: text("name").notNull(),
  tokenHash: text("token_hash").notNull().unique(),
  userId: integer("user_id").references(() => users.id),
  /** The workspace whose projects the token reaches (the default one for tokens made before workspaces). */
  workspaceId: integer("workspace_id").notNull().default(1),
  createdAt: text("created_at").notNull(),
  lastUsedAt: text("last_used_at"),
  revokedAt: text("revoked_at"),
});
