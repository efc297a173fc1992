/**
 * Teams of the organization (SCIM Groups) and their membership, as set-based statements whose
 * cost follows the request, not the team: adding 100 members to a 10 000-member team touches
 * 100 rows. Callers own the write transaction (`writeTransaction`).
 */
import { randomBytes } from "node:crypto";
import { and, eq, ne, sql } from "drizzle-orm";
import type { Tx } from "../db/connection";
import { execute } from "../db/statement";
import { first } from "../db/transaction";
import { inList, joinInOrder, listEntry, listTable, notInList } from "../db/dialect";
import { duplicate } from "./errors";
import { displayNameKey, groupMembers, groups, users, workspaceMembers } from "./tables";

/** A fresh opaque group id: 128 random bits, hex. Reveals nothing about order or count. */
export function newGroupId(): string {
  return randomBytes(16).toString("hex");
}

/** Group display names are unique within a workspace, case-insensitively (with full Unicode folding: `displayNameKey`). */
export async function assertDisplayNameFree(tx: Tx, duplicateStatus: 400 | 409, displayName: string, exceptId: string | null, workspaceId: number): Promise<void> {
  const key = displayNameKey(displayName);
  const clash = await first(
    tx
      .select({ id: groups.id })
      .from(groups)
      .where(exceptId === null ? and(eq(groups.displayNameKey, key), eq(groups.workspaceId, workspaceId)) : and(eq(groups.displayNameKey, key), eq(groups.workspaceId, workspaceId), ne(groups.id, exceptId))),
  );
  if (clash) throw duplicate(duplicateStatus, `A group with displayName ${JSON.stringify(displayName)} already exists`);
}

/**
 * Adds the named users that exist, are active and are members of the group's workspace; the rest
 * are skipped silently (spec 2.2: to this group they are unknown).
 * One statement whatever the count: the ids travel as one JSON array parameter and the
 * existence/active check is the join, so there is no race between "check" and "insert".
 * CROSS JOIN pins the join order (SQLite never reorders it): ids first, then a rowid probe per
 * id. Left to itself the planner walked every active user through the `active` index and
 * scanned the id list for each — 100 ms instead of 2 ms for 100 ids into a 10 000-user table.
 */
export async function addMembers(tx: Tx, groupId: string, userIds: number[], workspaceId: number): Promise<void> {
  if (userIds.length === 0) return;
  await execute(tx, sql`INSERT INTO ${groupMembers} (group_id, user_id)
    SELECT ${groupId}, ${users.id} FROM ${listTable(userIds, "j")}
    ${joinInOrder()} ${users} ON ${users.id} = ${listEntry("j")}
    ${joinInOrder()} ${workspaceMembers} wm ON wm.workspace_id = ${workspaceId} AND wm.user_id = ${users.id}
    WHERE ${users.active} = 1
    ON CONFLICT DO NOTHING`);
}

export async function removeMembers(tx: Tx, groupId: string, userIds: number[]): Promise<void> {
  if (userIds.length === 0) return;
  await execute(tx, sql`DELETE FROM ${groupMembers} WHERE group_id = ${groupId} AND ${inList(sql`user_id`, userIds)}`);
}

/** Full replacement: drop who is not named, then add who is (no churn for members who stay). */
export async function replaceMembers(tx: Tx, groupId: string, userIds: number[], workspaceId: number): Promise<void> {
  if (userIds.length === 0) {
    await tx.delete(groupMembers).where(eq(groupMembers.groupId, groupId));
    return;
  }
  await execute(tx, sql`DELETE FROM ${groupMembers} WHERE group_id = ${groupId} AND ${notInList(sql`user_id`, userIds)}`);
  await addMembers(tx, groupId, userIds, workspaceId);
}

/**
 * A deactivated user leaves every team, inside the deactivation's own transaction so no reader
 * ever sees an inactive member. Reactivation does not restore anything — the IdP's next group
 * push rebuilds membership.
 */
export async function removeUserFromAllGroups(tx: Tx, userId: number): Promise<void> {
  // The teams' member lists change, so their meta.lastModified moves too (IdPs and audits read it).
  await execute(tx, sql`UPDATE ${groups} SET updated_at = ${new Date().toISOString()}
    WHERE id IN (SELECT group_id FROM ${groupMembers} WHERE user_id = ${userId})`);
  await tx.delete(groupMembers).where(eq(groupMembers.userId, userId));
}

/** Removes user `userId` from every group of one workspace (they leave that workspace only). */
export async function removeUserFromWorkspaceGroups(tx: Tx, workspaceId: number, userId: number): Promise<void> {
  const theirs = sql`SELECT gm.group_id FROM ${groupMembers} gm JOIN ${groups} g ON g.id = gm.group_id WHERE gm.user_id = ${userId} AND g.workspace_id = ${workspaceId}`;
  await execute(tx, sql`UPDATE ${groups} SET updated_at = ${new Date().toISOString()} WHERE id IN (${theirs})`);
  await execute(tx, sql`DELETE FROM ${groupMembers} WHERE user_id = ${userId} AND group_id IN (SELECT id FROM ${groups} WHERE workspace_id = ${workspaceId})`);
}
