/**
 * /Users as SCIM sees the directory: rendering, list queries, and PUT/PATCH/DELETE translated
 * into directory writes (src/directory/users.ts holds the rules and the storage). No Elysia
 * here; index.ts is the HTTP edge. Writes run in write transactions serialized on the
 * directory's user rules (read-then-write); hot reads are statements prepared once, because
 * every IdP sync is mostly lookups.
 */
import type { AppContext } from "../../context";
import { preparedQuery, type Param, type PreparedQuery } from "../../db/statement";
import { inListText, listParam, orderedConcatenationText, parsedJsonSourceText, queryText } from "../../db/dialect";
import { caseFoldKey } from "../../directory/tables";
import { assertNamed, createUserDirectory, KeysMissing, USER_RESOURCE_COLUMNS, userCreateKeys, userUpdateKeys, validateUser, type UserResourceRow, type UserState } from "../../directory/users";
import { userKey } from "../../directory/rule-keys";
import { notYours } from "../../directory/errors";
import { homeWorkspace, joinWorkspace, leaveWorkspace, memberElsewhere, ORGANIZATION, type Scope } from "../../directory/workspaces";
import { scimNotFound } from "../errors";
import { assertFilterCost, compileFilter, parseFilter, type AttrPath, type FilterNode, type IsIndexProbe } from "../filter";
import { resourceLocation, SCHEMA_LIST_RESPONSE, SCHEMA_USER } from "../protocol";
import { listResponse, projectResource, type ListParams } from "../query";
import { PROFILE_ALIAS, userFilterResolverFor, userSortExpression } from "./attributes";
import { applyUserPatch, type PatchOp } from "./patch";
import { managerOf, mergeProfile, userRenderer, userResourceJsonText, type UserResource } from "./render";
import { writeTransaction } from "../../db/transaction";

const LIST_RESPONSE_SCHEMA_JSON = JSON.stringify(SCHEMA_LIST_RESPONSE);

type Projection = Pick<ListParams, "attributes" | "excludedAttributes">;

const isGroupsPath = (p: AttrPath) => (!p.uri || p.uri.toLowerCase() === SCHEMA_USER.toLowerCase()) && p.name.toLowerCase() === "groups";

// One row is a whole user: their e-mails are rendered into `users.emails` on write (see
// tables.ts), so every read is one statement. (Outside a transaction each statement is its own
// read transaction, and a second statement for the e-mails measured as costly as the lookup.)
const byId = preparedQuery<UserResourceRow, [number]>(`SELECT ${USER_RESOURCE_COLUMNS} FROM users u WHERE u.id = ?1`);
const byUserNameKey = preparedQuery<UserResourceRow, [string]>(`SELECT ${USER_RESOURCE_COLUMNS} FROM users u WHERE u.user_name_key = ?1`);
// max(id) is a b-tree edge read, and never less than the number of users.
const userRowsBound = preparedQuery<{ n: number }, []>("SELECT coalesce(max(id), 0) AS n FROM users");
const memberOf = preparedQuery<{ one: number }, [number, number]>("SELECT 1 AS one FROM workspace_members WHERE workspace_id = ?1 AND user_id = ?2");
// The display names of the users in list `?1` that scope `?2` sees (null: the organization,
// everyone). Its text holds a dialect fragment, so it is built per use (and prepared per text).
const managersSeenText = () =>
  `SELECT u.id, u.display_name FROM users u WHERE ${inListText("u.id", "?1")}
   AND (CAST(?2 AS BIGINT) IS NULL OR u.id IN (SELECT wm.user_id FROM workspace_members wm WHERE wm.workspace_id = ?2))`;
// `?2` null: the organization, every group; else the workspace's groups only.
const groupsOfText = () =>
  `SELECT gm.user_id, g.id, g.display_name FROM group_members gm JOIN groups g ON g.id = gm.group_id
   WHERE ${inListText("gm.user_id", "?1")} AND (CAST(?2 AS BIGINT) IS NULL OR g.workspace_id = ?2) ORDER BY gm.user_id, g.display_name_key`;

/** Statements of list queries kept by SQL text, least recently used dropped. */
const LIST_STATEMENTS = 256;
export function createUsersService(ctx: AppContext) {
  const { db, config } = ctx;
  /**
   * A page's select list when the engine writes each resource's JSON (its first parameter: the
   * location prefix); built on first use by this app, whose engine is chosen by then (kept per app,
   * not per module: a test process runs apps of both engines).
   */
  let resourceTextSelect: string | null = null;
  const textPageSelect = () => (resourceTextSelect ??= `${userResourceJsonText("?")} AS resource, u.profile`);
  // One user as the engine writes it (`?1` the location prefix), for GET /Users/{id} and the
  // userName lookup: no object, no render, no serialisation for a user without a profile document.
  type TextRow = { resource: string; profile: string };
  let oneAsText: { byId: PreparedQuery<TextRow, [string, number]>; byUserNameKey: PreparedQuery<TextRow & { id: number }, [string, string]> } | null = null;
  const textStatements = () =>
    (oneAsText ??= {
      byId: preparedQuery(`SELECT ${userResourceJsonText("?1")} AS resource, u.profile FROM users u WHERE u.id = ?2`),
      byUserNameKey: preparedQuery(`SELECT u.id, ${userResourceJsonText("?1")} AS resource, u.profile FROM users u WHERE u.user_name_key = ?2`),
    });
  // List SQL varies with the filter's shape (values are bound): statements are kept by SQL text,
  // so repeated shapes are prepared once and an IdP sending endless shapes cannot grow memory
  // without bound. Statements whose text holds dialect fragments are kept here too.
  const listStatements = new Map<string, PreparedQuery<Record<string, unknown>, Param[]>>();
  const statement = (text: string) => {
    let q = listStatements.get(text);
    if (q) listStatements.delete(text);
    else {
      q = preparedQuery(text);
      if (listStatements.size >= LIST_STATEMENTS) listStatements.delete(listStatements.keys().next().value!);
    }
    listStatements.set(text, q);
    return q;
  };
  const directory = createUserDirectory(ctx);

  /** Whether `scope` sees user `id`: the organization sees everyone, a workspace its members. */
  const sees = (scope: Scope, id: number): boolean | Promise<boolean> =>
    // the organization's answer without a promise: it is every read by an organization token
    scope.workspaceId === null || memberOf.get(db, scope.workspaceId, id).then((row) => row !== undefined);

  const renderRow = userRenderer(config.baseUrl);
  /**
   * Renders a page of rows. manager.$ref and manager.displayName are read-only: computed when
   * manager.value names a user the scope sees, for the whole page in one query. A manager outside
   * a workspace token's workspace is unknown to it: the value shows as stored, nothing of that person.
   */
  const render = async (rows: UserResourceRow[], scope: Scope): Promise<UserResource[]> => {
    const resources = rows.map(renderRow);
    await withManagers(resources, scope);
    return resources;
  };
  /** Adds the computed `$ref`/`displayName` to the managers of `resources` (one query for all of them). */
  const withManagers = async (resources: UserResource[], scope: Scope): Promise<void> => {
    const managed = resources.map(managerOf).filter((m) => m !== null);
    if (managed.length === 0) return;
    const seen = (await statement(managersSeenText()).all(db, listParam([...new Set(managed.map((m) => m.id))]), scope.workspaceId)) as { id: number; display_name: string }[];
    const names = new Map(seen.map((r) => [Number(r.id), r.display_name]));
    for (const { extension, manager, id } of managed) {
      const displayName = names.get(id);
      if (displayName !== undefined) extension.manager = { ...manager, $ref: resourceLocation(config.baseUrl, "Users", manager.value), displayName };
    }
  };
  // `{base}/scim/v2/Users/`: the location prefix the engine joins to each id in a text page.
  const locationPrefix = resourceLocation(config.baseUrl, "Users", "");

  /**
   * Engine-written resources as the answer's JSON texts: those of users with a profile document
   * (the extension, other attributes, a manager) are finished as objects — the profile merged,
   * the managers of all of them resolved in one query — and serialised; the others are copied.
   */
  const finishTexts = (rows: { resource: string; profile: string }[], scope: Scope): string[] | Promise<string[]> =>
    // most users have no profile document: their texts as they are, without a promise
    rows.every((r) => r.profile === "{}") ? rows.map((r) => r.resource) : finishProfiles(rows, scope);
  const finishProfiles = async (rows: { resource: string; profile: string }[], scope: Scope): Promise<string[]> => {
    const texts = rows.map((r) => r.resource);
    const finished: { at: number; resource: UserResource }[] = [];
    rows.forEach((r, at) => {
      if (r.profile === "{}") return;
      const resource = JSON.parse(r.resource) as UserResource;
      mergeProfile(resource, resource.name as Record<string, unknown>, r.profile);
      finished.push({ at, resource });
    });
    await withManagers(finished.map((f) => f.resource), scope);
    for (const { at, resource } of finished) texts[at] = JSON.stringify(resource);
    return texts;
  };
  /**
   * A ListResponse's JSON text up to its resources: `listResponse`'s members in its order
   * (`Resources` last), written directly — the numbers are integers (test/scim/users/page-text.test.ts
   * holds the texts to the objects).
   */
  const listHead = (total: number, startIndex: number, items: number): string =>
    `{"schemas":[${LIST_RESPONSE_SCHEMA_JSON}],"totalResults":${total},"itemsPerPage":${items},"startIndex":${startIndex},"Resources":[`;
  /** A ListResponse's JSON text around resources already JSON text. */
  const listText = (texts: string[], total: number, startIndex: number): string => `${listHead(total, startIndex, texts.length)}${texts.join(",")}]}`;

  /** How a list request reads its page: the select list, parameters before the filter's, the statement run. */
  type PageRead<Page> = { select: () => string; leading: Param[]; fetch: (sql: string, params: Param[]) => Promise<{ page: Page; length: number }>; none: Page };
  const rowsOf = async <Row>(sql: string, params: Param[]) => {
    const rows = (await statement(sql).all(db, ...params)) as Row[];
    return { page: rows, length: rows.length };
  };
  const objectRows: PageRead<UserResourceRow[]> = { select: () => USER_RESOURCE_COLUMNS, leading: [], fetch: rowsOf, none: [] };
  /** Each row the resource's JSON text and the profile (`userResourceJsonText`). */
  const textRows: PageRead<TextRow[]> = { select: textPageSelect, leading: [locationPrefix], fetch: rowsOf, none: [] };
  type TextPage = { text: string | null; n: number } | { rows: TextRow[] };
  /**
   * The page's texts joined by the engine into one (`orderedConcatenationText`) when no user
   * of it has a profile document; else (and where the engine does not offer it) its text rows.
   */
  const textBytes: PageRead<TextPage> = {
    select: textPageSelect,
    leading: [locationPrefix],
    fetch: async (sql, params) => {
      const joined = orderedConcatenationText(sql, "resource", "sum(profile <> '{}') AS profiled");
      if (joined !== null) {
        const r = (await statement(joined).get(db, ...params)) as { text: string | null; n: number; profiled: number | null };
        if (!r.profiled) return { page: { text: r.text, n: Number(r.n) }, length: Number(r.n) };
      }
      const { page, length } = await rowsOf<TextRow>(sql, params);
      return { page: { rows: page }, length };
    },
    none: { text: null, n: 0 },
  };

  /** A list request's page and total (filter bounded, count skipped when the first page tells it). */
  const pageOf = async <Page>(params: ListParams, filter: FilterNode | undefined, scope: Scope, read: PageRead<Page>): Promise<{ page: Page; total: number }> => {
    // Every filter is bounded before it runs (a running statement cannot be stopped).
    if (filter) assertFilterCost(filter, Number((await userRowsBound.get(db))!.n), isUserIndexProbe);
    const { countQuery, pageQuery } = userListQueries(params, filter, scope.workspaceId, read.select());
    const pageRead = () => read.fetch(pageQuery.sql, [...read.leading, ...(pageQuery.params as Param[])]);
    const countAll = async () => Number((await statement(countQuery.sql).get(db, ...(countQuery.params as Param[])))!.n);
    if (params.count > 0 && params.startIndex === 1) {
      // A first page that is not full already tells the total: skip the count query.
      const { page, length } = await pageRead();
      return { page, total: length < params.count ? length : await countAll() };
    }
    const total = await countAll();
    return { page: params.count > 0 && params.startIndex <= total ? (await pageRead()).page : read.none, total };
  };
  /**
   * `groups` is `returned: "request"` (schema.ts): read from the memberships, for a whole page in
   * one query, only when `attributes` names it — no IdP reads it, and every read would pay. A
   * workspace token sees its own workspace's groups only.
   */
  const present = async (resources: UserResource[], projection: Projection, scope: Scope): Promise<Record<string, unknown>[]> => {
    if (projection.attributes?.some(isGroupsPath) && resources.length) {
      const byUser = new Map<string, Record<string, unknown>[]>();
      const rows = (await statement(groupsOfText()).all(db, listParam(resources.map((r) => Number(r.id))), scope.workspaceId)) as { user_id: number; id: string; display_name: string }[];
      for (const g of rows) {
        const list = byUser.get(String(g.user_id)) ?? byUser.set(String(g.user_id), []).get(String(g.user_id))!;
        list.push({ value: g.id, $ref: resourceLocation(config.baseUrl, "Groups", g.id), display: g.display_name, type: "direct" });
      }
      for (const r of resources) {
        const groups = byUser.get(r.id);
        if (groups) r.groups = groups;
      }
    }
    return resources.map((r) => projectResource(r, projection, SCHEMA_USER));
  };

  const parseId = (id: string): number | null => (/^\d{1,15}$/.test(id) ? Number(id) : null);

  const getResource = async (id: number, scope: Scope): Promise<UserResource | null> => {
    const r = await byId.get(db, id);
    return r ? (await render([r], scope))[0]! : null;
  };

  const mustGet = async (idText: string, scope: Scope): Promise<UserResource> => {
    const id = parseId(idText);
    const r = id === null || !(await sees(scope, id)) ? null : await getResource(id, scope);
    if (!r) throw scimNotFound("User", idText);
    return r;
  };

  /**
   * Runs `fn` on user `idText`'s state in one immediate transaction; 404 when unknown or out of
   * scope. A workspace token writing a person who also belongs to other workspaces changes
   * nothing of them (400 mutability), except that deactivating withdraws them from its own
   * workspace only; the answer then shows them as that workspace last saw them, inactive.
   */
  const update = async (idText: string, scope: Scope, fn: (before: UserState) => UserState): Promise<UserResource> => {
    const id = parseId(idText);
    if (id === null) throw scimNotFound("User", idText);
    let withdrawn: UserResource | null = null;
    // The user's own key first; a write that turns out to need more (a departure, a seat) starts
    // again naming them, before it has written anything (`KeysMissing`).
    let keys = [userKey(id)];
    for (;;) {
      const named = keys;
      try {
        await writeTransaction(db, async (tx) => {
          const before = await directory.load(id);
          if (!before || !(await sees(scope, id))) throw scimNotFound("User", idText);
          const after = validateUser(fn(before));
          if (scope.workspaceId !== null && directory.changes(before, after) && (await memberElsewhere(tx, scope.workspaceId, id))) {
            if (before.active && !after.active && !directory.changes({ ...before, active: false }, after)) {
              assertNamed(named, userUpdateKeys(config, id, before, after, true));
              withdrawn = { ...(await getResource(id, scope))!, active: false };
              await leaveWorkspace(tx, scope.workspaceId, id);
              return;
            }
            throw notYours(`User ${id} also belongs to other workspaces: their attributes are the organization's, changed only through the organization SCIM token; this workspace's token can deactivate them, which withdraws them from this workspace only (docs/directory.md)`);
          }
          assertNamed(named, userUpdateKeys(config, id, before, after));
          await directory.save(tx, id, before, after, scope);
        }, { serializeOn: named });
        break;
      } catch (e) {
        if (!(e instanceof KeysMissing)) throw e;
        keys = e.keys;
      }
    }
    return withdrawn ?? (await getResource(id, scope))!;
  };

  return {
    /** A user as the client asked for it (`attributes`/`excludedAttributes`). */
    view: async (resource: UserResource, projection: Projection, scope: Scope = ORGANIZATION) => (await present([resource], projection, scope))[0]!,

    get: async (idText: string, projection: Projection = {}, scope: Scope = ORGANIZATION) => (await present([await mustGet(idText, scope)], projection, scope))[0]!,

    /**
     * GET /Users/{id}'s answer: `get`'s, as the JSON text the engine writes when no projection is
     * asked for (test/scim/users/page-text.test.ts holds the two together).
     */
    async getAnswer(idText: string, projection: Projection = {}, scope: Scope = ORGANIZATION): Promise<string | Record<string, unknown>> {
      if (projection.attributes?.length || projection.excludedAttributes?.length) return this.get(idText, projection, scope);
      const id = parseId(idText);
      const row = id === null || !(await sees(scope, id)) ? undefined : await textStatements().byId.get(db, locationPrefix, id);
      if (!row) throw scimNotFound("User", idText);
      return (await finishTexts([row], scope))[0]!;
    },

    async list(params: ListParams, scope: Scope = ORGANIZATION) {
      const filter = params.filter ? parseFilter(params.filter) : undefined;
      // Fast path for the lookup every IdP sends before creating or matching a user,
      // `userName eq "…"` (unique, so 0 or 1 user): one prepared statement, no SQL building.
      // Same answer as the general path (test/scim/users/filter.test.ts compares them).
      if (filter && isUserNameLookup(filter, params)) {
        const hit = await byUserNameKey.get(db, caseFoldKey((filter as { value: string }).value));
        const found = hit && (await sees(scope, hit.id)) ? hit : null;
        const total = found ? 1 : 0;
        const page = found && params.count > 0 && params.startIndex === 1 ? await present(await render([found], scope), params, scope) : [];
        return listResponse<Record<string, unknown>>(page, total, params.startIndex);
      }
      const { page: rows, total } = await pageOf(params, filter, scope, objectRows);
      return listResponse(await present(await render(rows, scope), params, scope), total, params.startIndex);
    },

    /**
     * GET /Users's answer: `list`'s, as JSON when no projection is asked for — the engine writes
     * each resource's JSON (`userResourceJsonText`) and, on SQLite, joins a page of them into one
     * text, so a 1000-user page makes no object and no string per row. A page holding a user
     * with a profile document (the extension, other attributes, a manager) is read row by row and
     * those users are finished as objects, as `list` does.
     */
    async listAnswer(params: ListParams, scope: Scope = ORGANIZATION): Promise<string | Record<string, unknown>> {
      if (params.attributes?.length || params.excludedAttributes?.length || params.count === 0) return this.list(params, scope);
      const filter = params.filter ? parseFilter(params.filter) : undefined;
      if (filter && isUserNameLookup(filter, params)) {
        // `list`'s fast path, as text
        const hit = await textStatements().byUserNameKey.get(db, locationPrefix, caseFoldKey((filter as { value: string }).value));
        const found = hit && (await sees(scope, hit.id)) ? hit : null;
        return listText(found && params.startIndex === 1 ? await finishTexts([found], scope) : [], found ? 1 : 0, params.startIndex);
      }
      const { page, total } = await pageOf(params, filter, scope, textBytes);
      if ("rows" in page) return listText(await finishTexts(page.rows, scope), total, params.startIndex);
      return `${listHead(total, params.startIndex, page.n)}${page.text ?? ""}]}`;
    },

    /**
     * POST: a new user becomes a member of the scope's workspace (an organization token's: the
     * default one). A userName taken anywhere in the organization is a duplicate, whoever sees
     * it: a workspace token learns that the name is taken and nothing else (docs/directory.md).
     */
    async create(input: UserState, scope: Scope = ORGANIZATION): Promise<UserResource> {
      const state = validateUser(input); // the state's own rules, once, outside the write lock
      const workspaceId = homeWorkspace(scope);
      const id = await writeTransaction(db, async (tx) => {
        const created = await directory.create(tx, state);
        await joinWorkspace(tx, workspaceId, created);
        return created;
      }, { serializeOn: userCreateKeys(config, state) });
      return (await getResource(id, scope))!;
    },

    /** PUT: `next` is built from the body and the current state (see index.ts). */
    replace: (idText: string, build: (before: UserState) => UserState, scope: Scope = ORGANIZATION) => update(idText, scope, build),

    patch: (idText: string, operations: PatchOp[], scope: Scope = ORGANIZATION) => update(idText, scope, (before) => applyUserPatch(before, operations)),

    /**
     * DELETE: deactivate (spec part 3) — the record, its history and its seat type stay. Through
     * any token, deactivation is organization-wide (the directory's `save`).
     */
    async deactivate(idText: string, scope: Scope = ORGANIZATION): Promise<void> {
      await update(idText, scope, (before) => ({ ...before, active: false }));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

/** `userName eq "…"` without a sort: the lookup every IdP sends before it creates or matches a user (0 or 1 user). */
function isUserNameLookup(filter: FilterNode, params: ListParams): boolean {
  return !params.sortBy && filter.op === "compare" && filter.compare === "eq" && typeof filter.value === "string" && !filter.attr.sub &&
    filter.attr.name.toLowerCase() === "username" && (!filter.attr.uri || filter.attr.uri.toLowerCase() === SCHEMA_USER.toLowerCase());
}

/** Equalities the user filter compiles to an index probe (key columns, the rowid, e-mail keys). */
const isUserIndexProbe: IsIndexProbe = (n) => {
  if (n.compare !== "eq" || n.value === null || typeof n.value === "boolean") return false;
  if (n.attr.uri && n.attr.uri.toLowerCase() !== SCHEMA_USER.toLowerCase()) return false;
  const name = n.attr.name.toLowerCase();
  const sub = n.attr.sub?.toLowerCase();
  if (!sub) return name === "username" || name === "externalid" || name === "id" || name === "emails";
  return name === "emails" && sub === "value";
};

/**
 * The two SQL statements of a list request (count and page), with bound parameters. Exported so
 * a test can EXPLAIN them and prove the indexed lookups do not scan.
 */
export function userListQueries(params: ListParams, parsed?: FilterNode, workspaceId: number | null = null, select = USER_RESOURCE_COLUMNS): { countQuery: { sql: string; params: unknown[] }; pageQuery: { sql: string; params: unknown[] } } {
  // One drizzle → SQL conversion (of the WHERE fragment); the two statements are plain strings
  // around it, so their text only depends on the filter's shape and the statement
  // cache (keyed by SQL text) serves repeated shapes.
  const node = parsed ?? (params.filter ? parseFilter(params.filter) : undefined);
  const where = node ? queryText(compileFilter(node, userFilterResolverFor(workspaceId))) : null;
  // a workspace token sees its workspace's members only
  const member = workspaceId === null ? null : "u.id IN (SELECT wm.user_id FROM workspace_members wm WHERE wm.workspace_id = ?)";
  const conditions = [where ? `(${where.sql})` : null, member].filter((c) => c !== null);
  const whereClause = conditions.length ? ` WHERE ${conditions.join(" AND ")}` : ""; // no WHERE at all: lets SQLite answer count(*) from the b-tree size
  const whereParams = [...(where ? where.params : []), ...(workspaceId === null ? [] : [workspaceId])];
  let order = "u.id ASC";
  if (params.sortBy) {
    const expr = queryText(userSortExpression(params.sortBy, workspaceId)).sql;
    order = `${expr} ${params.sortOrder === "descending" ? "DESC" : "ASC"} NULLS LAST, u.id ASC`;
  }
  // the profile parsed once per row when the filter or the sort reads it (dialect parsedJsonText)
  const countFrom = `users u${parsedJsonSourceText("u.profile", PROFILE_ALIAS, whereClause)}`;
  const pageFrom = `users u${parsedJsonSourceText("u.profile", PROFILE_ALIAS, whereClause + order)}`;
  return {
    countQuery: { sql: `SELECT count(*) AS n FROM ${countFrom}${whereClause}`, params: whereParams },
    // LIMIT is written as a literal (an integer 0…1000 from parseListParams): with a bound LIMIT,
    // SQLite cannot plan the top-N sort and an indexed one-row lookup costs several times more.
    pageQuery: { sql: `SELECT ${select} FROM ${pageFrom}${whereClause} ORDER BY ${order} LIMIT ${Math.trunc(params.count)} OFFSET ?`, params: [...whereParams, params.startIndex - 1] },
  };
}
