import { and, asc, count, desc, eq, sql, type SQL } from "drizzle-orm";
import { inList, joinedText } from "../../db/dialect";
import type { AppContext } from "../../context";
import type { Db, Tx } from "../../db/connection";
import { addMembers, assertDisplayNameFree, newGroupId, removeMembers, replaceMembers } from "../../directory/groups";
import { displayNameKey, groupMembers, groups, users, type GroupRow } from "../../directory/tables";
import { homeWorkspace, ORGANIZATION, type Scope } from "../../directory/workspaces";
import { groupNamesKey, membershipWriteKeys } from "../../directory/rule-keys";

/** The groups `scope` sees: a workspace token its workspace's, the organization all. */
const inScope = (scope: Scope) => (scope.workspaceId === null ? undefined : eq(groups.workspaceId, scope.workspaceId));
import { plainTextProblem } from "../../directory/names";
import { ScimError } from "../errors";
import { compileFilter, parseFilter, type AttrPath, type AttributeResolver } from "../filter";
import { SCHEMA_GROUP } from "../protocol";
import { listResponse, projectResource, type ListParams } from "../query";
import { type GroupMember, type GroupResource, type GroupWrite } from "./model";
import { memberIds, planGroupPatch, type GroupPatchStep } from "./patch";
import { rowsOf } from "../../db/statement";
import { first, writeTransaction } from "../../db/transaction";
/** Either the database or an open transaction: reads work on both. */
type Reader = Db | Tx;

const groupNotFound = (id: string) => new ScimError(404, `Group ${JSON.stringify(id)} not found`);

/** The workspace of group `id` (a group never moves), to name its key before the transaction. */
const workspaceOfGroup = (db: Db, id: string) => first(db.select({ workspaceId: groups.workspaceId }).from(groups).where(eq(groups.id, id)));

/**
 * Group persistence and membership rules. Every write is one write transaction that reads the
 * group, applies set-based membership statements and reads the answer back, so the response is
 * exactly what was committed and a failure leaves nothing half-written.
 */
export function createGroupService(ctx: Pick<AppContext, "db" | "config">) {
  const { db, config } = ctx;
  const userLocationPrefix = `${config.baseUrl}/scim/v2/Users/`;
  const groupLocationPrefix = `${config.baseUrl}/scim/v2/Groups/`;

  function render(row: GroupRow, members: GroupMember[] | undefined): GroupResource {
    const resource: GroupResource = {
      schemas: [SCHEMA_GROUP],
      id: row.id,
      ...(row.externalId !== null ? { externalId: row.externalId } : {}),
      displayName: row.displayName,
      ...(members ? { members } : {}),
      meta: {
        resourceType: "Group",
        created: row.createdAt,
        lastModified: row.updatedAt,
        location: groupLocationPrefix + row.id,
      },
    };
    return resource;
  }

  /**
   * Members of many groups with ONE query (a page of 100 groups is one round trip, not 100),
   * ordered by user id so output is stable. By default a member is `{ value, type }` — the
   * spec's shape — read from the membership primary key alone (no join: the foreign key and the
   * deactivation hook already guarantee every row is an existing, active user). `display` and
   * `$ref` are `returned: "request"` sub-attributes: the users join runs only when a client names
   * them in `attributes`. A 10 000-member team is then ~250 KB of JSON instead of ~1 MB.
   */
  async function membersOf(reader: Reader, groupIds: string[], view: MemberView): Promise<Map<string, GroupMember[]>> {
    const out = new Map<string, GroupMember[]>(groupIds.map((id) => [id, []]));
    if (groupIds.length === 0) return out;
    const inGroups =
      groupIds.length === 1 ? sql`gm.group_id = ${groupIds[0]}` : inList(sql`gm.group_id`, groupIds);
    // Plain rows (no drizzle result mapping, which cost more than the query itself at this size).
    if (!view.display) {
      const rows = await rowsOf<{ group_id: string; user_id: number }>(
        reader,
        sql`SELECT gm.group_id, gm.user_id FROM ${groupMembers} gm WHERE ${inGroups} ORDER BY gm.group_id, gm.user_id`,
      );
      for (const r of rows) {
        const m: GroupMember = { value: r.user_id, type: "User" };
        if (view.ref) m.$ref = userLocationPrefix + r.user_id;
        out.get(r.group_id)!.push(m);
      }
      return out;
    }
    const rows = await rowsOf<{ group_id: string; user_id: number; display: string }>(
      reader,
      sql`SELECT gm.group_id, gm.user_id, u.display_name AS display FROM ${groupMembers} gm
          JOIN ${users} u ON u.id = gm.user_id WHERE ${inGroups} ORDER BY gm.group_id, gm.user_id`,
    );
    for (const r of rows) {
      const m: GroupMember = { value: r.user_id, display: r.display, type: "User" };
      if (view.ref) m.$ref = userLocationPrefix + r.user_id;
      out.get(r.group_id)!.push(m);
    }
    return out;
  }

  /**
   * One group as the client asked for it. Without `attributes`/`excludedAttributes` — what every
   * GET, PUT and PATCH from Entra and Okta looks like — the answer is serialised here as JSON
   * text: the database hands over the member ids as one comma-separated string (`string_agg`) and each becomes
   * `{"value":<id>,"type":"User"}` by string substitution. For a 10 000-member team that skips
   * 10 000 row objects, 10 000 member objects and their generic serialisation, about half the
   * time of a PATCH. The text is exactly `JSON.stringify` of the object form (a test compares
   * both); ids are integers, so nothing needs escaping.
   */
  async function present(reader: Reader, row: GroupRow, projection: Projection): Promise<Record<string, unknown> | string> {
    if (!projection.attributes?.length && !projection.excludedAttributes?.length && !projection.echo?.display && !projection.echo?.ref) {
      const [{ ids }] = (await rowsOf<{ ids: string | null }>(
        reader,
        sql`SELECT ${joinedText(sql`user_id`, ",", sql`user_id`)} AS ids FROM ${groupMembers} WHERE group_id = ${row.id}`,
      )) as [{ ids: string | null }];
      const members = ids === null ? "[]" : `[{"value":${ids.replaceAll(",", ',"type":"User"},{"value":')},"type":"User"}]`;
      const { meta, ...head } = render(row, undefined);
      return `${JSON.stringify(head).slice(0, -1)},"members":${members},"meta":${JSON.stringify(meta)}}`;
    }
    return presentObject(reader, row, projection);
  }

  /** The object form: members read only if the projection keeps them, then projected. */
  async function presentObject(reader: Reader, row: GroupRow, projection: Projection): Promise<Record<string, unknown>> {
    const view = memberView(projection);
    const resource = render(row, view ? (await membersOf(reader, [row.id], view)).get(row.id)! : undefined);
    return projectResource(resource, projection, SCHEMA_GROUP);
  }

  /** The group `id` if `scope` can see it (a workspace token sees its workspace's groups only). */
  function findRow(reader: Reader, id: string, scope: Scope): Promise<GroupRow | undefined> {
    return first(reader.select().from(groups).where(and(eq(groups.id, id), inScope(scope))));
  }

  /**
   * The `serializeOn` keys of a write to group `id`: its workspace's name key when it may rename
   * (a workspace token's group is in its workspace, or not found), the keys of the users it adds.
   */
  async function writeKeys(id: string, scope: Scope, renames: boolean, adds: readonly number[]): Promise<{ serializeOn: string[] }> {
    const keys = membershipWriteKeys(adds);
    if (renames) {
      const workspaceId = scope.workspaceId ?? (await workspaceOfGroup(db, id))?.workspaceId;
      if (workspaceId !== undefined) keys.push(groupNamesKey(workspaceId));
    }
    return { serializeOn: keys };
  }

  async function runStep(tx: Tx, group: GroupRow, step: GroupPatchStep): Promise<void> {
    switch (step.kind) {
      case "setDisplayName":
        if (step.displayName === group.displayName) return;
        await assertDisplayNameFree(tx, config.scimDuplicateStatus, step.displayName, group.id, group.workspaceId);
        await tx.update(groups).set({ displayName: step.displayName, displayNameKey: displayNameKey(step.displayName) }).where(eq(groups.id, group.id));
        group.displayName = step.displayName;
        return;
      case "setExternalId":
        await tx.update(groups).set({ externalId: checkedExternalId(step.externalId) }).where(eq(groups.id, group.id));
        group.externalId = step.externalId;
        return;
      case "addMembers":
        return addMembers(tx, group.id, step.userIds, group.workspaceId);
      case "removeMembers":
        return removeMembers(tx, group.id, step.userIds);
      case "replaceMembers":
        return replaceMembers(tx, group.id, step.userIds, group.workspaceId);
    }
  }

  async function touch(tx: Tx, row: GroupRow): Promise<GroupRow> {
    const now = new Date().toISOString();
    await tx.update(groups).set({ updatedAt: now }).where(eq(groups.id, row.id));
    return { ...row, updatedAt: now };
  }

  return {
    render,
    membersOf,
    presentObject,

    /**
     * GET /Groups: one COUNT, one page query and — unless members are projected away, as
     * Entra always asks — one query for the members of the whole page.
     */
    async list(params: ListParams, scope: Scope = ORGANIZATION) {
      const filter = params.filter ? compileFilter(parseFilter(params.filter), resolveGroupFilterAttribute, { allowNot: false }) : undefined;
      const where = and(filter, inScope(scope));
      const total = (await first(db.select({ n: count() }).from(groups).where(where)))!.n;
      if (params.count === 0) return listResponse([], total, params.startIndex);
      const direction = params.sortOrder === "descending" ? desc : asc;
      const order: SQL[] = params.sortBy
        ? [direction(sortColumn(params.sortBy)), direction(groups.id)]
        : [asc(groups.createdAt), asc(groups.id)];
      const rows = await db.select().from(groups).where(where).orderBy(...order).limit(params.count).offset(params.startIndex - 1);
      const view = memberView(params);
      const members = view ? await membersOf(db, rows.map((r) => r.id), view) : undefined;
      const resources = rows.map((r) => projectResource(render(r, members?.get(r.id)), params, SCHEMA_GROUP));
      return listResponse(resources, total, params.startIndex);
    },

    async get(id: string, projection: Projection = {}, scope: Scope = ORGANIZATION) {
      const row = await findRow(db, id, scope);
      if (!row) throw groupNotFound(id);
      return present(db, row, projection);
    },

    /** Creates the group in the scope's workspace (an organization token: the default one). */
    async create(body: GroupWrite, projection: Projection = {}, scope: Scope = ORGANIZATION) {
      const workspaceId = homeWorkspace(scope);
      const displayName = requireDisplayName(body.displayName);
      const userIds = memberIds(body.members ?? [], "members");
      return writeTransaction(db,
        async (tx) => {
          await assertDisplayNameFree(tx, config.scimDuplicateStatus, displayName, null, workspaceId);
          const now = new Date().toISOString();
          const row: GroupRow = {
            id: newGroupId(),
            workspaceId,
            displayName,
            displayNameKey: displayNameKey(displayName),
            externalId: checkedExternalId(body.externalId),
            createdAt: now,
            updatedAt: now,
          };
          await tx.insert(groups).values(row);
          await addMembers(tx, row.id, userIds, workspaceId);
          return { id: row.id, resource: await present(tx, row, projection) };
        },
        { serializeOn: [groupNamesKey(workspaceId), ...membershipWriteKeys(userIds)] },
      );
    },

    /** PUT: displayName, externalId and the whole member list; omitted members → none. */
    async replace(id: string, body: GroupWrite, projection: Projection = {}, scope: Scope = ORGANIZATION) {
      const displayName = requireDisplayName(body.displayName);
      const userIds = memberIds(body.members ?? [], "members");
      return writeTransaction(db,
        async (tx) => {
          const row = await findRow(tx, id, scope);
          if (!row) throw groupNotFound(id);
          if (displayName !== row.displayName) await assertDisplayNameFree(tx, config.scimDuplicateStatus, displayName, id, row.workspaceId);
          const now = new Date().toISOString();
          const next: GroupRow = { ...row, displayName, displayNameKey: displayNameKey(displayName), externalId: checkedExternalId(body.externalId), updatedAt: now };
          await tx.update(groups).set({ displayName, displayNameKey: next.displayNameKey, externalId: next.externalId, updatedAt: now }).where(eq(groups.id, id));
          await replaceMembers(tx, id, userIds, row.workspaceId);
          return present(tx, next, projection);
        },
        await writeKeys(id, scope, true, userIds),
      );
    },

    /** PATCH: the planned steps in order, then the group with its full member list. */
    async patch(id: string, operations: Parameters<typeof planGroupPatch>[0], projection: Projection = {}, scope: Scope = ORGANIZATION) {
      const steps = planGroupPatch(operations);
      // Membership-only PATCHes (what IdPs send most) check no name rule: no name key to wait on.
      const renames = steps.some((s) => s.kind === "setDisplayName");
      const adds = steps.flatMap((s) => (s.kind === "addMembers" || s.kind === "replaceMembers" ? s.userIds : []));
      return writeTransaction(db,
        async (tx) => {
          const row = await findRow(tx, id, scope);
          if (!row) throw groupNotFound(id);
          // The group's row before its member rows, as every write takes them (PUT, a
          // deactivation's sweep): on PostgreSQL two writes taking them in opposite orders deadlock.
          const updated = await touch(tx, row);
          for (const step of steps) await runStep(tx, updated, step);
          return present(tx, updated, projection);
        },
        await writeKeys(id, scope, renames, adds),
      );
    },

    async delete(id: string, scope: Scope = ORGANIZATION): Promise<void> {
      await writeTransaction(db,
        async (tx) => {
          const gone = await tx.delete(groups).where(and(eq(groups.id, id), inScope(scope))).returning({ id: groups.id });
          if (gone.length === 0) throw groupNotFound(id);
        },
      );
    },
  };
}

export type GroupService = ReturnType<typeof createGroupService>;


const isGroupPath = (p: AttrPath) => !p.uri || p.uri.toLowerCase() === SCHEMA_GROUP.toLowerCase();

/**
 * Groups filter on `displayName` only (spec 4.2 rule 3). It compares case-insensitively on the
 * folded key column, the same key that makes names unique, so `eq` is an index probe.
 */
const resolveGroupFilterAttribute: AttributeResolver = (path) => {
  if (isGroupPath(path) && !path.sub && path.name.toLowerCase() === "displayname")
    return {
      kind: "scalar",
      type: "string",
      column: sql`${groups.displayNameKey}`,
      folded: displayNameKey,
      toParam: (v) => {
        if (typeof v !== "string") throw new ScimError(400, "displayName is a string; write the value in double quotes", "invalidFilter");
        return v.normalize("NFC");
      },
    };
  throw new ScimError(400, `Groups can only be filtered by displayName (got "${path.name}${path.sub ? "." + path.sub : ""}")`, "invalidFilter");
};

/** sortBy: displayName sorts case-insensitively (caseExact false), like it compares. */
function sortColumn(path: AttrPath) {
  const name = `${path.name}${path.sub ? "." + path.sub : ""}`.toLowerCase();
  if (isGroupPath(path)) {
    if (name === "displayname") return groups.displayNameKey;
    if (name === "id") return groups.id;
    if (name === "externalid") return groups.externalId;
    if (name === "meta.created") return groups.createdAt;
    if (name === "meta.lastmodified") return groups.updatedAt;
  }
  throw new ScimError(400, `Groups cannot be sorted by "${name}" (displayName, id, externalId, meta.created, meta.lastModified)`, "invalidValue");
}

export type Projection = Pick<ListParams, "attributes" | "excludedAttributes"> & {
  /**
   * The `returned: "request"` member sub-attributes the request itself sent (RFC 7643 §7: such
   * an attribute is returned in the response to the request that carried it).
   */
  echo?: MemberView;
};
/** Which parts of the member list a response needs; null = no members at all. */
export type MemberView = { display: boolean; ref: boolean };

/**
 * Members are read only when the projection keeps them (Entra sends excludedAttributes=members
 * on every lookup). `display`/`$ref` are added only when `attributes` names them.
 */
function memberView(p: Projection): MemberView | null {
  const isMembers = (a: AttrPath) => isGroupPath(a) && a.name.toLowerCase() === "members";
  const names = (a: AttrPath, sub: string) => isMembers(a) && a.sub?.toLowerCase() === sub;
  const echo = p.echo ?? { display: false, ref: false };
  if (p.attributes?.length) {
    if (!p.attributes.some(isMembers)) return null;
    return { display: echo.display || p.attributes.some((a) => names(a, "display")), ref: echo.ref || p.attributes.some((a) => names(a, "$ref")) };
  }
  if (p.excludedAttributes?.some((a) => isMembers(a) && !a.sub)) return null;
  return { ...echo };
}

/** Which `returned: "request"` member sub-attributes (display, $ref) a request body's members carry. */
export function echoedMemberSubs(members: unknown): MemberView {
  const view = { display: false, ref: false };
  const scan = (list: unknown) => {
    if (!Array.isArray(list)) return;
    for (const m of list) {
      if (!m || typeof m !== "object") continue;
      for (const [k, v] of Object.entries(m)) {
        if (v === null || v === undefined) continue;
        if (k.toLowerCase() === "display") view.display = true;
        if (k.toLowerCase() === "$ref") view.ref = true;
      }
    }
  };
  scan(members);
  return view;
}

/** An externalId as stored: any text but NUL (PostgreSQL's text cannot hold it). */
function checkedExternalId(v: string | null | undefined): string | null {
  if (typeof v === "string" && v.includes("\u0000")) throw new ScimError(400, "externalId must not contain NUL (U+0000)", "invalidValue");
  return v ?? null;
}

function requireDisplayName(v: string): string {
  if (v.trim() === "") throw new ScimError(400, "displayName must be a non-empty string", "invalidValue");
  const problem = plainTextProblem("displayName", v);
  if (problem) throw new ScimError(400, problem, "invalidValue");
  return v;
}
