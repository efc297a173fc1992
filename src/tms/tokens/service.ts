import { and, eq, isNull } from "drizzle-orm";
import { onUserDeactivated } from "../../directory/users";
import type { Db } from "../../db/connection";
import { writeTransaction } from "../../db/transaction";
import { badRequest, conflict, notFound } from "../../http/errors";
import { generateToken, hashToken } from "../../lib/tokens";
import { DEFAULT_WORKSPACE_ID, users } from "../../directory/tables";
import { getWorkspace, isMember, onUserLeftWorkspace } from "../../directory/workspaces";
import { plainTextProblem } from "../../directory/names";
import { isoMicro } from "../shared/time";
import type { ApiTokenCreateBody } from "./model";
import { apiTokens } from "./tables";

const view = (r: typeof apiTokens.$inferSelect, userName: string | null) => ({
  id: r.id, name: r.name, userId: r.userId, userName, workspaceId: r.workspaceId, createdAt: r.createdAt, lastUsedAt: r.lastUsedAt, revokedAt: r.revokedAt,
});

/**
 * Deactivating a user revokes their API tokens in the same transaction, so reactivating the user
 * later does not silently bring back credentials issued before (an admin issues new ones).
 */
onUserDeactivated((tx, userId) => {
  tx.update(apiTokens).set({ revokedAt: isoMicro() }).where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt))).run();
});

/** A user who leaves a workspace (and stays in others) loses their API tokens of that workspace. */
onUserLeftWorkspace((tx, workspaceId, userId) => {
  tx.update(apiTokens).set({ revokedAt: isoMicro() }).where(and(eq(apiTokens.userId, userId), eq(apiTokens.workspaceId, workspaceId), isNull(apiTokens.revokedAt))).run();
});

/** Creates a token; the plaintext is returned here once and only its hash is stored. */
export function createApiToken(db: Db, body: ApiTokenCreateBody) {
  const badName = plainTextProblem("name", body.name);
  if (badName) throw badRequest(badName, "name");
  const token = generateToken("gh_api");
  return writeTransaction(db, (tx) => {
    const workspaceId = body.workspaceId ?? DEFAULT_WORKSPACE_ID;
    const workspace = getWorkspace(tx, workspaceId);
    if (workspace.archived) throw conflict(`Workspace ${workspaceId} is archived`);
    let userName: string | null = null;
    if (body.userId != null) {
      const u = tx.select({ userName: users.userName, active: users.active }).from(users).where(eq(users.id, body.userId)).get();
      if (!u) throw badRequest(`No SCIM user with id ${body.userId}`, "userId");
      if (!u.active) throw conflict(`User ${body.userId} is deactivated: a token for them could never be used`);
      if (!isMember(tx, workspaceId, body.userId)) throw badRequest(`User ${body.userId} is not a member of workspace ${workspaceId}`, "userId");
      userName = u.userName;
    }
    const row = tx.insert(apiTokens).values({ name: body.name, tokenHash: hashToken(token), userId: body.userId ?? null, workspaceId, createdAt: isoMicro() }).returning().get();
    return { ...view(row, userName), token };
  });
}

export function listApiTokens(db: Db) {
  return db
    .select({ t: apiTokens, userName: users.userName })
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .orderBy(apiTokens.id)
    .all()
    .map((r) => view(r.t, r.userName));
}

/** Revokes (idempotently); the row stays so the token's name remains in the audit trail. */
export function revokeApiToken(db: Db, id: number): void {
  writeTransaction(db, (tx) => {
    const row = tx.select({ revokedAt: apiTokens.revokedAt }).from(apiTokens).where(eq(apiTokens.id, id)).get();
    if (!row) throw notFound(`API token ${id}`);
    if (!row.revokedAt) tx.update(apiTokens).set({ revokedAt: isoMicro() }).where(eq(apiTokens.id, id)).run();
  });
}
