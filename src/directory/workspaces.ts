/**
 * Workspaces of the organization and who belongs to them. An instance is one organization with
 * one or more workspaces; the default one (id 1) always exists and cannot be archived, so a
 * single-workspace installation behaves as before workspaces existed. Users are
 * organization-wide and members of workspaces; groups belong to one workspace.
 */
import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import { perConnection, type Db, type Tx } from "../db/connection";
import { DirectoryError } from "./errors";
import { removeUserFromWorkspaceGroups } from "./groups";
import { plainTextProblem } from "./names";
import { caseFoldKey, DEFAULT_WORKSPACE_ID, users, workspaceMembers, workspaces } from "./tables";
import { writeTransaction } from "../db/transaction";

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

function assertNameFree(tx: Tx, name: string, exceptId: number | null): void {
  const hit = tx.select({ id: workspaces.id }).from(workspaces).where(eq(workspaces.nameKey, caseFoldKey(name))).get();
  if (hit && hit.id !== exceptId) throw new DirectoryError(409, `A workspace named ${JSON.stringify(name)} already exists`, "uniqueness", "conflict");
}

export function listWorkspaces(db: Db | Tx): Workspace[] {
  const members = new Map(db.select({ id: workspaceMembers.workspaceId, n: count() }).from(workspaceMembers).groupBy(workspaceMembers.workspaceId).all().map((r) => [r.id, r.n]));
  return db.select().from(workspaces).orderBy(asc(workspaces.id)).all().map((w) => ({
    id: w.id, name: w.name, archived: w.archivedAt !== null, archivedAt: w.archivedAt, members: members.get(w.id) ?? 0, createdAt: w.createdAt, updatedAt: w.updatedAt,
  }));
}

export function getWorkspace(db: Db | Tx, id: number): Workspace {
  const found = listWorkspaces(db).find((w) => w.id === id);
  if (!found) throw notFound(id);
  return found;
}

export function createWorkspace(db: Db, name: string): Workspace {
  const n = checkName(name);
  return writeTransaction(db, (tx) => {
    assertNameFree(tx, n, null);
    const now = new Date().toISOString();
    const row = tx.insert(workspaces).values({ name: n, nameKey: caseFoldKey(n), createdAt: now, updatedAt: now }).returning({ id: workspaces.id }).get();
    return getWorkspace(tx, row.id);
  });
}

/** Renames and/or archives (or unarchives). The default workspace cannot be archived. */
export function updateWorkspace(db: Db, id: number, change: { name?: string; archived?: boolean }): Workspace {
  return writeTransaction(db, (tx) => {
    const row = tx.select().from(workspaces).where(eq(workspaces.id, id)).get();
    if (!row) throw notFound(id);
    const now = new Date().toISOString();
    const set: Partial<typeof workspaces.$inferInsert> = {};
    if (change.name !== undefined) {
      const n = checkName(change.name);
      assertNameFree(tx, n, id);
      Object.assign(set, { name: n, nameKey: caseFoldKey(n) });
    }
    if (change.archived !== undefined && change.archived !== (row.archivedAt !== null)) {
      if (change.archived && id === DEFAULT_WORKSPACE_ID) throw new DirectoryError(409, "The default workspace cannot be archived", undefined, "conflict");
      set.archivedAt = change.archived ? now : null;
    }
    if (Object.keys(set).length) tx.update(workspaces).set({ ...set, updatedAt: now }).where(eq(workspaces.id, id)).run();
    return getWorkspace(tx, id);
  });
}

/** Prepared once per connection: every POST /Users runs it (drizzle's builder cost more than the insert). */
const insertMembership = perConnection((connection) =>
  connection.query<unknown, [number, number, string]>("INSERT INTO workspace_members (workspace_id, user_id, created_at) VALUES (?1, ?2, ?3) ON CONFLICT DO NOTHING"),
);

/** Makes user `userId` a member of workspace `workspaceId` (idempotent). */
export function joinWorkspace(tx: Tx, workspaceId: number, userId: number): void {
  insertMembership(tx).run(workspaceId, userId, new Date().toISOString());
}

export function isMember(db: Db | Tx, workspaceId: number, userId: number): boolean {
  return !!db.select({ one: sql`1` }).from(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))).get();
}

/** Whether user `userId` is also a member of a workspace other than `workspaceId` (a person shared between workspaces). */
export function memberElsewhere(db: Db | Tx, workspaceId: number, userId: number): boolean {
  return !!db.select({ one: sql`1` }).from(workspaceMembers).where(and(eq(workspaceMembers.userId, userId), ne(workspaceMembers.workspaceId, workspaceId))).get();
}

export type UserLeftWorkspaceHook = (tx: Tx, workspaceId: number, userId: number) => void;
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
export function leaveWorkspace(tx: Tx, workspaceId: number, userId: number): void {
  removeUserFromWorkspaceGroups(tx, workspaceId, userId);
  tx.delete(workspaceMembers).where(and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, userId))).run();
  for (const hook of leftHooks) hook(tx, workspaceId, userId);
}

/**
 * The organization puts an existing user into a workspace (the admin API): the one way a person
 * comes to belong to several workspaces, since a workspace's own SCIM token cannot take over a
 * person provisioned elsewhere. Idempotent; 404 for an unknown workspace or user, 409 archived.
 */
export function addWorkspaceMember(db: Db, workspaceId: number, userId: number): void {
  writeTransaction(db, (tx) => {
    if (getWorkspace(tx, workspaceId).archived) throw new DirectoryError(409, `Workspace ${workspaceId} is archived`, undefined, "conflict");
    if (!tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).get()) throw new DirectoryError(404, `User ${userId} not found`, undefined, "not_found");
    joinWorkspace(tx, workspaceId, userId);
  });
}

/** The organization takes a user out of a workspace (as that workspace's de-provisioning of a shared person does). 404 when not a member. */
export function removeWorkspaceMember(db: Db, workspaceId: number, userId: number): void {
  writeTransaction(db, (tx) => {
    if (!isMember(tx, workspaceId, userId)) throw new DirectoryError(404, `User ${userId} is not a member of workspace ${workspaceId}`, undefined, "not_found");
    leaveWorkspace(tx, workspaceId, userId);
  });
}
