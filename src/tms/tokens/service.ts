import { and, eq, isNull } from "drizzle-orm";
import { onUserDeactivated } from "../../directory/users";
import type { Db } from "../../db/connection";
import { first, writeTransaction } from "../../db/transaction";
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
onUserDeactivated(async (tx, userId) => {
  await tx.update(apiTokens).set({ revokedAt: isoMicro() }).where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)));
});

/** A user who leaves a workspace (and stays in others) loses their API tokens of that workspace. */
onUserLeftWorkspace(async (tx, workspaceId, userId) => {
  await tx.update(apiTokens).set({ revokedAt: isoMicro() }).where(and(eq(apiTokens.userId, userId), eq(apiTokens.workspaceId, workspaceId), isNull(apiTokens.revokedAt)));
});

/** Creates a token; the plaintext is returned here once and only its hash is stored. */
export function createApiToken(db: Db, body: ApiTokenCreateBody) {
  const badName = plainTextProblem("name", body.name);
  if (badName) throw badRequest(badName, "name");
  const token = generateToken("gh_api");
  return writeTransaction(db, async (tx) => {
    const workspaceId = body.workspaceId ?? DEFAULT_WORKSPACE_ID;
    const workspace = await getWorkspace(tx, workspaceId);
    if (workspace.archived) throw conflict(`Workspace ${workspaceId} is archived`);
    let userName: string | null = null;
    if (body.userId != null) {
      const u = await first(tx.select({ userName: users.userName, active: users.active }).from(users).where(eq(users.id, body.userId)));
      if (!u) throw badRequest(`No SCIM user with id ${body.userId}`, "userId");
      if (!u.active) throw conflict(`User ${body.userId} is deactivated: a token for them could never be used`);
      if (!(await isMember(tx, workspaceId, body.userId))) throw badRequest(`User ${body.userId} is not a member of workspace ${workspaceId}`, "userId");
      userName = u.userName;
    }
    const [row] = await tx.insert(apiTokens).values({ name: body.name, tokenHash: hashToken(token), userId: body.userId ?? null, workspaceId, createdAt: isoMicro() }).returning();
    return { ...view(row!, userName), token };
  });
}

export async function listApiTokens(db: Db) {
  const rows = await db
    .select({ t: apiTokens, userName: users.userName })
    .from(apiTokens)
    .leftJoin(users, eq(users.id, apiTokens.userId))
    .orderBy(apiTokens.id);
  return rows.map((r) => view(r.t, r.userName));
}

/** Revokes (idempotently); the row stays so the token's name remains in the audit trail. */
export async function revokeApiToken(db: Db, id: number): Promise<void> {
  await writeTransaction(db, async (tx) => {
    const row = await first(tx.select({ revokedAt: apiTokens.revokedAt }).from(apiTokens).where(eq(apiTokens.id, id)));
    if (!row) throw notFound(`API token ${id}`);
    // Only an unrevoked row changes: the first revocation's time stays, even under concurrent revokes.
    await tx.update(apiTokens).set({ revokedAt: isoMicro() }).where(and(eq(apiTokens.id, id), isNull(apiTokens.revokedAt)));
  });
}
