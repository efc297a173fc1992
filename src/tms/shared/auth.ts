import { eq } from "drizzle-orm";
import { noteTokenUse } from "../../db/last-used";
import { first } from "../../db/transaction";
import { ApiError } from "../../http/errors";
import { constantTimeEqual, hashToken } from "../../lib/tokens";
import type { AppContext } from "../../context";
import { users, workspaces } from "../../directory/tables";
import { apiTokens } from "../tokens/tables";
import { isoMicro } from "./time";

/** Who is calling: the API token, the SCIM user it is attributed to (null when none), and the workspace it reaches. */
export type Caller = { tokenId: number; userId: number | null; workspaceId: number };

const LAST_USED_RESOLUTION_MS = 5 * 60 * 1000;

const unauthorized = () =>
  new ApiError(401, "unauthorized", "A valid API token is required in the `Token` header", undefined, { "www-authenticate": "Token" });

const callers = new WeakMap<Request, Promise<Caller>>();

/** `authenticate`, once per request: the body parser and the route's derive both ask. */
export function callerOf(ctx: AppContext, request: Request): Promise<Caller> {
  let caller = callers.get(request);
  if (!caller) callers.set(request, (caller = authenticate(ctx, request)));
  return caller;
}

/**
 * Authenticates a `/api/v1` or `/api/v2` request by its `Token` header (as Qase clients send it).
 * The token is looked up by its SHA-256 (the stored hash is unique and indexed); tokens are 256-bit
 * random, so the lookup leaks nothing useful, and the hash is never compared character by
 * character in JavaScript.
 */
export async function authenticate(ctx: AppContext, request: Request): Promise<Caller> {
  const token = request.headers.get("token")?.trim();
  if (!token || token.length > 512) throw unauthorized();
  const hash = hashToken(token);
  const row = await first(ctx.db
    .select({
      id: apiTokens.id, userId: apiTokens.userId, tokenHash: apiTokens.tokenHash, revokedAt: apiTokens.revokedAt, lastUsedAt: apiTokens.lastUsedAt,
      userActive: users.active, workspaceId: apiTokens.workspaceId, workspaceArchivedAt: workspaces.archivedAt,
    })
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .leftJoin(workspaces, eq(workspaces.id, apiTokens.workspaceId))
    .where(eq(apiTokens.tokenHash, hash)));
  if (!row || !constantTimeEqual(row.tokenHash, hash) || row.revokedAt) throw unauthorized();
  // De-provisioning a user in the IdP must cut their API access too; what they wrote stays.
  if (row.userId !== null && row.userActive === false)
    throw new ApiError(401, "unauthorized", "The user this API token belongs to is deactivated", undefined, { "www-authenticate": "Token" });
  if (row.workspaceArchivedAt) throw new ApiError(403, "workspace_archived", `Workspace ${row.workspaceId} is archived`);
  // "Last used" for the admin list, at most every few minutes, and never on the request path:
  // a locked or full database must not stall or fail a read.
  if (!row.lastUsedAt || Date.now() - Date.parse(row.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    noteTokenUse(ctx.db, "api_tokens", row.id, isoMicro());
  }
  return { tokenId: row.id, userId: row.userId, workspaceId: row.workspaceId };
}
