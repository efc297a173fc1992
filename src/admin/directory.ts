import { adminAccess } from "./access";
import { and, asc, count, eq, exists, inArray, or, sql } from "drizzle-orm";
import { adminResponses } from "./auth";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { containsText } from "../db/contains";
import { first } from "../db/transaction";
import { notFound } from "../http/errors";
import { NumericId, PageLimit, PageOffset } from "../http/paging";
import { groupMembers, groups, userEmails, users, workspaceMembers, workspaces } from "../directory/tables";
import { apiTokens } from "../tms/tokens/tables";

/**
 * The directory as the admin sees it, read-only (the IdP owns users and groups; SCIM writes
 * them): users with search, filters and paging, a user with their workspaces, groups and API
 * tokens, groups (each in its workspace) with their members. GET /api/admin/directory/…
 */

const tags = ["Admin: directory"];
const UserType = t.Union([t.Literal("regular"), t.Literal("read-only"), t.Literal("billing")]);
const Paging = {
  limit: PageLimit,
  offset: PageOffset,
};
const UserListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: "Substring of the userName, display name or an e-mail (case-insensitive)" })),
  active: t.Optional(t.Union([t.Literal("true"), t.Literal("false")])),
  userType: t.Optional(UserType),
  workspaceId: t.Optional(t.Integer({ minimum: 1, description: "Only members of this workspace" })),
  ...Paging,
});
const GroupListQuery = t.Object({
  q: t.Optional(t.String({ maxLength: 200, description: "Substring of the displayName (case-insensitive)" })),
  workspaceId: t.Optional(t.Integer({ minimum: 1, description: "Only this workspace's groups" })),
  ...Paging,
});
const WorkspaceRef = t.Object({ id: t.Integer(), name: t.String() });

const UserSummary = t.Object({
  id: t.Integer(),
  userName: t.String(),
  displayName: t.String(),
  emails: t.Array(t.String()),
  userType: UserType,
  active: t.Boolean(),
  externalId: t.Union([t.String(), t.Null()]),
  createdAt: t.String(),
  updatedAt: t.String(),
});
const GroupSummary = t.Object({ id: t.String(), displayName: t.String(), externalId: t.Union([t.String(), t.Null()]), workspace: WorkspaceRef, members: t.Integer() });
const UserDetail = t.Composite([
  UserSummary,
  t.Object({
    workspaces: t.Array(WorkspaceRef),
    groups: t.Array(t.Object({ id: t.String(), displayName: t.String(), workspace: WorkspaceRef })),
    apiTokens: t.Array(t.Object({ id: t.Integer(), name: t.String(), createdAt: t.String(), lastUsedAt: t.Union([t.String(), t.Null()]), revokedAt: t.Union([t.String(), t.Null()]) })),
  }),
]);
const GroupDetail = t.Composite([GroupSummary, t.Object({ memberList: t.Array(t.Object({ id: t.Integer(), userName: t.String(), displayName: t.String(), active: t.Boolean() })) })]);
const page = <T extends ReturnType<typeof t.Object>>(item: T) => t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer(), items: t.Array(item) });

type UserRow = typeof users.$inferSelect;
async function emailsOf(ctx: AppContext, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (ids.length === 0) return out;
  for (const e of await ctx.db.select({ userId: userEmails.userId, value: userEmails.value }).from(userEmails).where(inArray(userEmails.userId, ids)).orderBy(userEmails.userId, userEmails.position))
    out.set(e.userId, [...(out.get(e.userId) ?? []), e.value]);
  return out;
}
const userView = (u: UserRow, emails: string[]) => ({
  id: u.id,
  userName: u.userName,
  displayName: u.displayName,
  emails,
  userType: u.userType,
  active: u.active,
  externalId: u.externalId,
  createdAt: u.createdAt,
  updatedAt: u.updatedAt,
});

/** A group row with its workspace's id and name flattened (as selected), nested for the answer. */
function groupView<R extends { workspaceId: number; workspaceName: string }>(r: R): Omit<R, "workspaceId" | "workspaceName"> & { workspace: { id: number; name: string } } {
  const { workspaceId, workspaceName, ...rest } = r;
  return { ...rest, workspace: { id: workspaceId, name: workspaceName } };
}

const groupColumns = {
  id: groups.id,
  displayName: groups.displayName,
  externalId: groups.externalId,
  workspaceId: workspaces.id,
  workspaceName: workspaces.name,
  members: sql<number>`(SELECT count(*) FROM ${groupMembers} WHERE ${groupMembers.groupId} = ${groups.id})`.mapWith(Number),
};

export function directoryAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-directory", prefix: "/directory" })
    .use(adminAccess(ctx))
    .get(
      "/users",
      async ({ query }) => {
        const limit = query.limit ?? 50;
        const offset = query.offset ?? 0;
        const where = and(
          query.q
            ? or(containsText(users.userName, query.q), containsText(users.displayName, query.q),
                exists(ctx.db.select({ one: sql`1` }).from(userEmails).where(and(eq(userEmails.userId, users.id), containsText(userEmails.value, query.q)))))
            : undefined,
          query.active ? eq(users.active, query.active === "true") : undefined,
          query.userType ? eq(users.userType, query.userType) : undefined,
          query.workspaceId !== undefined
            ? exists(ctx.db.select({ one: sql`1` }).from(workspaceMembers).where(and(eq(workspaceMembers.userId, users.id), eq(workspaceMembers.workspaceId, query.workspaceId))))
            : undefined,
        );
        const rows = await ctx.db.select().from(users).where(where).orderBy(asc(users.id)).limit(limit).offset(offset);
        const total = (await first(ctx.db.select({ n: count() }).from(users).where(where)))!.n;
        const emails = await emailsOf(ctx, rows.map((r) => r.id));
        return { total, limit, offset, items: rows.map((r) => userView(r, emails.get(r.id) ?? [])) };
      },
      { role: "viewer", query: UserListQuery, response: adminResponses({ 200: page(UserSummary) }, [400]), detail: { tags, summary: "Users (search by name or e-mail, filter by active and type, paging)" } },
    )
    .get(
      "/users/:id",
      async ({ params }) => {
        const u = await first(ctx.db.select().from(users).where(eq(users.id, params.id)));
        if (!u) throw notFound(`User ${params.id}`);
        const [emails, memberOf, groupRows, tokens] = await Promise.all([
          emailsOf(ctx, [u.id]),
          ctx.db
            .select({ id: workspaces.id, name: workspaces.name })
            .from(workspaceMembers)
            .innerJoin(workspaces, eq(workspaces.id, workspaceMembers.workspaceId))
            .where(eq(workspaceMembers.userId, u.id))
            .orderBy(asc(workspaces.id)),
          ctx.db
            .select({ id: groups.id, displayName: groups.displayName, workspaceId: workspaces.id, workspaceName: workspaces.name })
            .from(groupMembers)
            .innerJoin(groups, eq(groups.id, groupMembers.groupId))
            .innerJoin(workspaces, eq(workspaces.id, groups.workspaceId))
            .where(eq(groupMembers.userId, u.id))
            .orderBy(asc(groups.displayName)),
          ctx.db
            .select({ id: apiTokens.id, name: apiTokens.name, createdAt: apiTokens.createdAt, lastUsedAt: apiTokens.lastUsedAt, revokedAt: apiTokens.revokedAt })
            .from(apiTokens)
            .where(eq(apiTokens.userId, u.id))
            .orderBy(asc(apiTokens.id)),
        ]);
        return { ...userView(u, emails.get(u.id) ?? []), workspaces: memberOf, groups: groupRows.map(groupView), apiTokens: tokens };
      },
      { role: "viewer", params: t.Object({ id: NumericId }), response: adminResponses({ 200: UserDetail }, [400, 404]), detail: { tags, summary: "A user with their groups, API tokens and status" } },
    )
    .get(
      "/groups",
      async ({ query }) => {
        const limit = query.limit ?? 50;
        const offset = query.offset ?? 0;
        const where = and(
          query.q ? containsText(groups.displayName, query.q) : undefined,
          query.workspaceId !== undefined ? eq(groups.workspaceId, query.workspaceId) : undefined,
        );
        const items = (
          await ctx.db
            .select(groupColumns)
            .from(groups)
            .innerJoin(workspaces, eq(workspaces.id, groups.workspaceId))
            .where(where)
            .orderBy(asc(groups.displayNameKey), asc(groups.workspaceId))
            .limit(limit)
            .offset(offset)
        ).map(groupView);
        const total = (await first(ctx.db.select({ n: count() }).from(groups).where(where)))!.n;
        return { total, limit, offset, items };
      },
      { role: "viewer", query: GroupListQuery, response: adminResponses({ 200: page(GroupSummary) }, [400]), detail: { tags, summary: "Groups (teams) with their member counts" } },
    )
    .get(
      "/groups/:id",
      async ({ params }) => {
        const row = await first(ctx.db.select(groupColumns).from(groups).innerJoin(workspaces, eq(workspaces.id, groups.workspaceId)).where(eq(groups.id, params.id)));
        if (!row) throw notFound(`Group ${params.id}`);
        const g = groupView(row);
        const memberList = await ctx.db
          .select({ id: users.id, userName: users.userName, displayName: users.displayName, active: users.active })
          .from(groupMembers)
          .innerJoin(users, eq(users.id, groupMembers.userId))
          .where(eq(groupMembers.groupId, g.id))
          .orderBy(asc(users.userName));
        return { ...g, memberList };
      },
      { role: "viewer", params: t.Object({ id: t.String({ maxLength: 200 }) }), response: adminResponses({ 200: GroupDetail }, [400, 404]), detail: { tags, summary: "A group with its members" } },
    );
}
