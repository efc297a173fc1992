/**
 * Workspaces of the organization and who belongs to them. An instance is one organization with
 * one or more workspaces; the default one (id 1) always exists and cannot be archived, so a
 * single-workspace installation behaves as before workspaces existed. Users are
 * organization-wide and members of workspaces; groups belong to one workspace.
 */
import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import type { Db, Tx } from "../db/connection";
import { preparedQuery } from "../db/statement";
import { DirectoryError } from "./errors";
import { removeUserFromWorkspaceGroups } from "./groups";
import { plainTextProblem } from "./names";
import { DEPARTURES_KEY, userKey, WORKSPACE_NAMES_KEY } from "./rule-keys";
import { caseFoldKey, DEFAULT_WORKSPACE_ID, users, workspaceMembers, workspaces } from "./tables";
import { first, writeTransaction } from "../db/transaction";

export type Workspace = { id: number; name: string; archived: boolean; archivedAt: string | null; members: number; createdAt: string; updatedAt: string };

/**
 * Who a request acts for. `workspaceId` null: the organization (an organization SCIM token or
 * the admin API) — sees every workspace and creates in the default one.
 */
export type Scope = { workspaceId: number | null };
export const ORGANIZATION: Scope = { workspaceId: null };

/** The workspace new users and groups go to for `scope`. */
export const homeWorkspace = (scope: Scope) => scope.workspaceId ?? DEFAULT_WORKSPACE_ID;

const MAX_NAME = 200;
const notFound = (id: number) => new DirectoryError(404, `Workspace ${id} not found`, undefined, "not_found");

function checkName(name: string): string {
  const n = name.trim();
  if (n === "" || n.length > MAX_NAME) throw new DirectoryError(400, `A workspace name is 1–${MAX_NAME} characters`, "invalidValue", "invalid_request");
  const problem = plainTextProblem("A workspace name", n);
  if (problem) throw new DirectoryError(400, problem, "invalidValue", "invalid_request");
  return n;
}

/**
 * Workspace names are unique, case-folded: the unique index holds the rule, and the transactions
 * that check it first serialize on WORKSPACE_NAMES_KEY so the loser gets the 409, not a constraint error.
 */
async function assertNameFree(tx: Tx, name: string, exceptId: number | null): Promise<void> {
  const hit = await first(tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.nameKey, caseFoldKey(name))));
  if (hit && hit.id !== exceptId) throw new DirectoryError(409, `A workspace named ${JSON.stringify(name)} already exists`, "uniqueness", "conflict");
}

export async function listWorkspaces(db: Db | Tx): Promise<Workspace[]> {
  const members = new Map((await db.select({ id: workspaceMembers.workspaceId, n: count() }).from(workspaceMembers).groupBy(workspaceMembers.workspaceId)).map((r) => [r.id, r.n]));
  return (await db.select().from(workspaces).orderBy(asc(workspaces.id))).map((w) => ({
    id: w.id, name: w.name, archived: w.archivedAt !== null, archivedAt: w.archivedAt, members: members.get(w.id) ?? 0, createdAt: w.createdAt, updatedAt: w.updatedAt,
  }));
}

export async function getWorkspace(db: Db | Tx, id: number): Promise<Workspace> {
  const found = (await listWorkspaces(db)).find((w) => w.id === id);
  if (!found) throw notFound(id);
  return found;
}

export async function createWorkspace(db: Db, name: string): Promise<Workspace> {
  const n = checkName(name);
  return writeTransaction(db, async (tx) => {
    await assertNameFree(tx, n, null);
    const now = new Date().toISOString();
    const [row] = await tx.insert(workspaces).values({ name: n, nameKey: caseFoldKey(n), createdAt: now, updatedAt: now }).returning({ id: workspaces.id });
    return getWorkspace(tx, row!.id);
  }, { serializeOn: [WORKSPACE_NAMES_KEY] });
}

/** Renames and/or archives (or unarchives). The default workspace cannot be archived. */
export async function updateWorkspace(db: Db, id: number, change: { name?: string; archived?: boolean }): Promise<Workspace> {
  return writeTransaction(db, async (tx) => {
    const row = await first(tx.select().from(workspaces).where(eq(workspaces.id, id)));
    if (!row) throw notFound(id);
    const now = new Date().toISOString();
    const set: Partial<typeof workspaces.$inferInsert> = {};
    if (change.name !== undefined) {
      const n = checkName(change.name);
      await assertNameFree(tx, n, id);
      Object.assign(set, { name: n, nameKey: caseFoldKey(n) });
    }
    if (change.archived !== undefined && change.archived !== (row.archivedAt !== null)) {
      if (change.archived && id === DEFAULT_WORKSPACE_ID) throw new DirectoryError(409, "The default workspace cannot be archived", undefined, "conflict");
      set.archivedAt = change.archived ? now : null;
    }
    if (Object.keys(set).length) await tx.update(workspaces).set({ ...set, updatedAt: now }).where(eq(workspaces.id, id));
    return getWorkspace(tx, id);
  }, change.name !== undefined ? { serializeOn: [WORKSPACE_NAMES_KEY] } : {});
}

/** Prepared once: every POST /Users runs it (drizzle's builder cost more than the insert). */
const insertMembership = preparedQuery<unknown, [number, number, string]>("INSERT INTO workspace_members (workspace_id, user_id, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING");

/** Makes user `userId` a member of workspace `workspaceId` (idempotent). */
export async function joinWorkspace(tx: Tx, workspaceId: number, userId: number): Promise<void> {
  await insertMembership.run(tx, workspaceId, userId, new Date().toISOString());
}

export async function isMember(db: Db | Tx, workspaceId: number, userId: number): Promise<boolean> {
  return !!(await first(db.select({ one: sql`1` }).from(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)))));
}

/** Whether user `userId` is also a member of a workspace other than `workspaceId` (a person shared between workspaces). */
export async function memberElsewhere(db: Db | Tx, workspaceId: number, userId: number): Promise<boolean> {
  return !!(await first(db.select({ one: sql`1` }).from(workspaceMembers).where(and(eq(workspaceMembers.userId, userId), ne(workspaceMembers.workspaceId, workspaceId))).limit(1)));
}

export type UserLeftWorkspaceHook = (tx: Tx, workspaceId: number, userId: number) => void | Promise<void>;
const leftHooks: UserLeftWorkspaceHook[] = [];

/** Registers `fn` to run inside the transaction in which a user leaves one workspace (e.g. revoking their API tokens there). */
export function onUserLeftWorkspace(fn: UserLeftWorkspaceHook): void {
  if (!leftHooks.includes(fn)) leftHooks.push(fn);
}

/**
 * User `userId` leaves workspace `workspaceId` and stays in the others: the membership goes, so do
 * the workspace's group memberships, and the hooks run (all in `tx`). What a workspace's
 * de-provisioning of a person shared with other workspaces does (docs/directory.md).
 */
export async function leaveWorkspace(tx: Tx, workspaceId: number, userId: number): Promise<void> {
  await removeUserFromWorkspaceGroups(tx, workspaceId, userId);
  await tx.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId)));
  for (const hook of leftHooks) await hook(tx, workspaceId, userId);
}

/**
 * The organization puts an existing user into a workspace (the admin API): the one way a person
 * comes to belong to several workspaces, since a workspace's own SCIM token cannot take over a
 * person provisioned elsewhere. Idempotent; 404 for an unknown workspace or user, 409 archived.
 */
export async function addWorkspaceMember(db: Db, workspaceId: number, userId: number): Promise<void> {
  await writeTransaction(db, async (tx) => {
    if ((await getWorkspace(tx, workspaceId)).archived) throw new DirectoryError(409, `Workspace ${workspaceId} is archived`, undefined, "conflict");
    if (!(await first(tx.select({ id: users.id }).from(users).where(eq(users.id, userId))))) throw new DirectoryError(404, `User ${userId} not found`, undefined, "not_found");
    await joinWorkspace(tx, workspaceId, userId);
  });
}

/** The organization takes a user out of a workspace (as that workspace's de-provisioning of a shared person does). 404 when not a member. */
export async function removeWorkspaceMember(db: Db, workspaceId: number, userId: number): Promise<void> {
  await writeTransaction(db, async (tx) => {
    if (!(await isMember(tx, workspaceId, userId))) throw new DirectoryError(404, `User ${userId} is not a member of workspace ${workspaceId}`, undefined, "not_found");
    await leaveWorkspace(tx, workspaceId, userId);
  }, { serializeOn: [userKey(userId), DEPARTURES_KEY] });
}
