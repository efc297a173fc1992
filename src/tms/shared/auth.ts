import { noteTokenUse } from "../../db/last-used";
import { preparedQuery } from "../../db/statement";
import { ApiError } from "../../http/errors";
import { constantTimeEqual, hashToken } from "../../lib/tokens";
import type { AppContext } from "../../context";
import { isoMicro } from "./time";

/** Who is calling: the API token, the SCIM user it is attributed to (null when none), and the workspace it reaches. */
export type Caller = { tokenId: number; userId: number | null; workspaceId: number };

const LAST_USED_RESOLUTION_MS = 5 * 60 * 1000;

const unauthorized = () =>
  new ApiError(401, "unauthorized", "A valid API token is required in the `Token` header", undefined, { "www-authenticate": "Token" });

const callers = new WeakMap<Request, Promise<Caller>>();

/** A token's row as every request's lookup reads it: its user's state and its workspace's. `userActive` is the stored 0/1 (null: no user). */
export type TokenRow = {
  id: number; userId: number | null; tokenHash: string; revokedAt: string | null; lastUsedAt: string | null; userActive: number | null; workspaceId: number; workspaceArchivedAt: string | null;
};

/**
 * The token lookup's columns and tables (`t`, `u`, `w`), for statements that read more with it
 * (src/tms/shared/api.ts: a project route's project in the same statement).
 */
export const TOKEN_LOOKUP = {
  columns: `t.id, t.user_id AS "userId", t.token_hash AS "tokenHash", t.revoked_at AS "revokedAt", t.last_used_at AS "lastUsedAt",
          u.active AS "userActive", t.workspace_id AS "workspaceId", w.archived_at AS "workspaceArchivedAt"`,
  tables: "api_tokens t LEFT JOIN users u ON u.id = t.user_id LEFT JOIN workspaces w ON w.id = t.workspace_id",
};

/**
 * Every request's token lookup, prepared once: built by drizzle per request, this three-table
 * select cost ~0.2 ms of CPU on each call (docs/benchmarks/postgres.md).
 */
const tokenByHash = preparedQuery<TokenRow, [string]>(`SELECT ${TOKEN_LOOKUP.columns} FROM ${TOKEN_LOOKUP.tables} WHERE t.token_hash = ?1`);

/** `authenticate`, once per request: the body parser and the route's derive both ask. */
export function callerOf(ctx: AppContext, request: Request): Promise<Caller> {
  let caller = callers.get(request);
  if (!caller) callers.set(request, (caller = authenticate(ctx, request)));
  return caller;
}

/** Whether the request's caller is known (or being looked up) already. */
export const callerKnown = (request: Request): boolean => callers.has(request);

/**
 * Authenticates the request with `lookup` — a statement that reads the token's row (`TOKEN_LOOKUP`)
 * and what else the request needs — and remembers the caller for `callerOf`. Resolves to the caller
 * and the row; rejects as `authenticate` does.
 */
export function authenticateWith<R extends TokenRow>(ctx: AppContext, request: Request, lookup: (hash: string) => Promise<R | undefined>): Promise<{ caller: Caller; row: R }> {
  const found = (async () => {
    const hash = tokenHashOf(request);
    const row = await lookup(hash);
    return { caller: callerFrom(ctx, hash, row), row: row! };
  })();
  const caller = found.then((f) => f.caller);
  // Handled here too: a request answered from `found` (401, 403) may never ask `callerOf`.
  void caller.catch(() => {});
  callers.set(request, caller);
  return found;
}

/** The SHA-256 of the request's `Token` header, or 401. */
function tokenHashOf(request: Request): string {
  const token = request.headers.get("token")?.trim();
  if (!token || token.length > 512) throw unauthorized();
  return hashToken(token);
}

/**
 * Authenticates a `/api/v1` or `/api/v2` request by its `Token` header (as Qase clients send it).
 * The token is looked up by its SHA-256 (the stored hash is unique and indexed); tokens are 256-bit
 * random, so the lookup leaks nothing useful, and the hash is never compared character by
 * character in JavaScript.
 */
export async function authenticate(ctx: AppContext, request: Request): Promise<Caller> {
  const hash = tokenHashOf(request);
  return callerFrom(ctx, hash, await tokenByHash.get(ctx.db, hash));
}

/** The caller a token's row (or none) makes of the request: 401, 403, or who it is. */
function callerFrom(ctx: AppContext, hash: string, row: TokenRow | undefined): Caller {
  if (!row || !constantTimeEqual(row.tokenHash, hash) || row.revokedAt) throw unauthorized();
  // De-provisioning a user in the IdP must cut their API access too; what they wrote stays.
  if (row.userId !== null && row.userActive === 0)
    throw new ApiError(401, "unauthorized", "The user this API token belongs to is deactivated", undefined, { "www-authenticate": "Token" });
  if (row.workspaceArchivedAt) throw new ApiError(403, "workspace_archived", `Workspace ${row.workspaceId} is archived`);
  // "Last used" for the admin list, at most every few minutes, and never on the request path:
  // a locked or full database must not stall or fail a read.
  if (!row.lastUsedAt || Date.now() - Date.parse(row.lastUsedAt) > LAST_USED_RESOLUTION_MS) {
    noteTokenUse(ctx.db, "api_tokens", row.id, isoMicro());
  }
  return { tokenId: row.id, userId: row.userId, workspaceId: row.workspaceId };
}
