/**
 * /Users logic: storage, rules, deactivation. No Elysia here; index.ts is the HTTP edge.
 * Writes run in `BEGIN IMMEDIATE` transactions (read-then-write); hot reads use prepared
 * bun:sqlite statements (cached by SQL text) because every IdP sync is mostly lookups.
 */
import { eq } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import type { AppContext } from "../../context";
import type { Tx } from "../../db/connection";
import { duplicateError, ScimError, scimNotFound } from "../errors";
import { compileFilter, parseFilter, type FilterNode } from "../filter";
import { resourceLocation, SCHEMA_USER } from "../protocol";
import { listResponse, projectResource, type ListParams } from "../query";
import { userFilterResolver, userSortExpression } from "./attributes";
import { applyUserPatch, type PatchOp } from "./patch";
import { resolveDisplayName, validateUser, type UserState } from "./rules";
import { userEmails, users } from "./tables";

// ---------------------------------------------------------------------------------------------
// Deactivation hook: other features (groups) react to a user being deactivated inside the same
// transaction, without users importing them (no circular dependency; user tests stand alone).

export type UserDeactivatedHook = (tx: Tx, userId: number) => void;
const deactivationHooks: UserDeactivatedHook[] = [];

/**
 * Registers `fn` to run inside the transaction that deactivates a user (DELETE /Users/{id} or
 * PATCH/PUT active=false). Throwing aborts the deactivation. Returns an unregister function.
 * The groups feature registers `removeUserFromAllGroups` here at module load.
 */
export function onUserDeactivated(fn: UserDeactivatedHook): () => void {
  if (!deactivationHooks.includes(fn)) deactivationHooks.push(fn);
  return () => {
    const i = deactivationHooks.indexOf(fn);
    if (i >= 0) deactivationHooks.splice(i, 1);
  };
}

// ---------------------------------------------------------------------------------------------

type UserDbRow = {
  id: number; user_name: string; external_id: string | null; given_name: string | null; family_name: string | null;
  formatted_name: string | null; display_name_given: string | null; display_name: string; title: string | null; emails: string;
  user_type: UserState["userType"]; active: number; created_at: string; updated_at: string;
};
/** One entry of `users.emails`: a SCIM `emails` item as responses carry it. */
type RenderedEmail = { value: string; type?: string; primary: boolean };

const USER_COLUMNS = "u.id, u.user_name, u.external_id, u.given_name, u.family_name, u.formatted_name, u.display_name_given, u.display_name, u.title, u.emails, u.user_type, u.active, u.created_at, u.updated_at";

/** `users.emails` for a state's e-mails: the SCIM rendering, `type` omitted when unset. */
function renderEmails(emails: UserState["emails"]): string {
  return JSON.stringify(emails.map((e): RenderedEmail => (e.type !== null ? { value: e.value, type: e.type, primary: e.primary } : { value: e.value, primary: e.primary })));
}

export type UserResource = Record<string, unknown> & { id: string };

const dialect = new SQLiteSyncDialect();

/**
 * Prepared statements by SQL text, least recently used evicted beyond `max`. List SQL varies
 * with the filter's shape (values are bound), so the set is small in practice but not bounded
 * by us: an IdP could send endless shapes, hence the cap.
 */
function statementCache(sqlite: AppContext["sqlite"], max: number) {
  const cache = new Map<string, ReturnType<AppContext["sqlite"]["prepare"]>>();
  return (text: string) => {
    let st = cache.get(text);
    if (st) {
      cache.delete(text);
      cache.set(text, st);
      return st;
    }
    st = sqlite.prepare(text);
    cache.set(text, st);
    if (cache.size > max) {
      const [oldest, old] = cache.entries().next().value!;
      cache.delete(oldest);
      old.finalize();
    }
    return st;
  };
}

export function createUsersService(ctx: AppContext) {
  const { sqlite, db, config } = ctx;
  // One row is a whole user: their e-mails are rendered into `users.emails` on write (see
  // tables.ts), so every read is one statement. (Outside a transaction each statement is its
  // own WAL read transaction — two fcntl locks and an fstat — and a second statement for the
  // e-mails measured as costly as the lookup itself.)
  const byId = sqlite.query<UserDbRow, [number]>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`);
  const byUserNameKey = sqlite.query<UserDbRow, [string]>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.user_name_key = ?`);
  const statements = statementCache(sqlite, 256);
  const idByUserNameKey = sqlite.query<{ id: number }, [string]>("SELECT id FROM users WHERE user_name_key = ?");
  const activeRegularOthers = sqlite.query<{ n: number }, [number]>("SELECT count(*) AS n FROM users WHERE active = 1 AND user_type = 'regular' AND id <> ?");

  const render = (r: UserDbRow): UserResource => {
    const name: Record<string, string> = {};
    if (r.given_name !== null) name.givenName = r.given_name;
    if (r.family_name !== null) name.familyName = r.family_name;
    if (r.formatted_name !== null) name.formatted = r.formatted_name;
    const out: UserResource = { schemas: [SCHEMA_USER], id: String(r.id) };
    if (r.external_id !== null) out.externalId = r.external_id;
    out.userName = r.user_name;
    out.name = name;
    out.displayName = r.display_name;
    out.active = r.active === 1;
    out.userType = r.user_type;
    if (r.title !== null) out.title = r.title;
    if (r.emails !== "[]") out.emails = JSON.parse(r.emails);
    out.meta = { resourceType: "User", created: r.created_at, lastModified: r.updated_at, location: resourceLocation(config.baseUrl, "Users", r.id) };
    return out;
  };

  const parseId = (id: string): number | null => (/^\d{1,15}$/.test(id) ? Number(id) : null);

  const loadState = (id: number): UserState | null => {
    const r = byId.get(id);
    if (!r) return null;
    return {
      userName: r.user_name, externalId: r.external_id, givenName: r.given_name, familyName: r.family_name,
      formattedName: r.formatted_name, displayNameGiven: r.display_name_given, title: r.title, userType: r.user_type,
      active: r.active === 1, emails: (JSON.parse(r.emails) as RenderedEmail[]).map((e) => ({ value: e.value, type: e.type ?? null, primary: e.primary })),
    };
  };

  const assertUniqueUserName = (userName: string, selfId: number | null) => {
    const hit = idByUserNameKey.get(userName.toLowerCase());
    if (hit && hit.id !== selfId) throw duplicateError(config.scimDuplicateStatus, `userName ${JSON.stringify(userName)} is already taken (user names are unique, case-insensitively)`);
  };

  /** Seat rule: an active `regular` user needs a free seat; only a transition into that state checks. */
  const assertSeat = (before: UserState | null, after: UserState, selfId: number) => {
    if (config.licenseSeats === null || !after.active || after.userType !== "regular") return;
    if (before && before.active && before.userType === "regular") return;
    const used = activeRegularOthers.get(selfId)!.n;
    if (used >= config.licenseSeats)
      throw new ScimError(409, `No free license seat: ${used} of ${config.licenseSeats} regular seats are in use (GATEHOUSE_LICENSE_SEATS); deactivate a user or provision this one as read-only`);
  };

  const columnsOf = (s: UserState) => ({
    userName: s.userName,
    userNameKey: s.userName.toLowerCase(),
    externalId: s.externalId,
    givenName: s.givenName,
    familyName: s.familyName,
    formattedName: s.formattedName,
    displayNameGiven: s.displayNameGiven,
    displayName: resolveDisplayName(s),
    title: s.title,
    userType: s.userType,
    active: s.active,
    emails: renderEmails(s.emails),
  });

  const writeEmails = (tx: Tx, userId: number, emails: UserState["emails"], fresh = false) => {
    if (!fresh) tx.delete(userEmails).where(eq(userEmails.userId, userId)).run();
    if (emails.length)
      tx.insert(userEmails).values(emails.map((e, i) => ({ userId, position: i, value: e.value, valueKey: e.value.toLowerCase(), type: e.type, primary: e.primary }))).run();
  };

  /** Writes `after` over user `id` (state `before`), with every rule; in the caller's transaction. */
  const save = (tx: Tx, id: number, before: UserState, after: UserState) => {
    const next = validateUser(after);
    if (JSON.stringify(next) === JSON.stringify(before)) return; // nothing changed: keep lastModified
    if (next.userName.toLowerCase() !== before.userName.toLowerCase()) assertUniqueUserName(next.userName, id);
    assertSeat(before, next, id);
    tx.update(users).set({ ...columnsOf(next), updatedAt: new Date().toISOString() }).where(eq(users.id, id)).run();
    if (JSON.stringify(next.emails) !== JSON.stringify(before.emails)) writeEmails(tx, id, next.emails);
    if (before.active && !next.active) for (const hook of deactivationHooks) hook(tx, id);
  };

  const getResource = (id: number): UserResource | null => {
    const r = byId.get(id);
    return r ? render(r) : null;
  };

  const mustGet = (idText: string): UserResource => {
    const id = parseId(idText);
    const r = id === null ? null : getResource(id);
    if (!r) throw scimNotFound("User", idText);
    return r;
  };

  /** Runs `fn` on user `idText`'s state in one immediate transaction; 404 when unknown. */
  const update = (idText: string, fn: (before: UserState) => UserState): UserResource => {
    const id = parseId(idText);
    if (id === null) throw scimNotFound("User", idText);
    db.transaction((tx) => {
      const before = loadState(id);
      if (!before) throw scimNotFound("User", idText);
      save(tx, id, before, fn(before));
    }, { behavior: "immediate" });
    return getResource(id)!;
  };

  return {
    get: mustGet,

    list(params: ListParams) {
      const filter = params.filter ? parseFilter(params.filter) : undefined;
      // Fast path for the lookup every IdP sends before creating or matching a user,
      // `userName eq "…"` (unique, so 0 or 1 user): one prepared statement, no SQL building.
      // Same answer as the general path (test/scim/users/filter.test.ts compares them).
      if (filter && !params.sortBy && filter.op === "compare" && filter.compare === "eq" && typeof filter.value === "string" &&
        !filter.attr.sub && filter.attr.name.toLowerCase() === "username" && (!filter.attr.uri || filter.attr.uri.toLowerCase() === SCHEMA_USER.toLowerCase())) {
        const found = byUserNameKey.get(filter.value.toLowerCase());
        const total = found ? 1 : 0;
        const page = found && params.count > 0 && params.startIndex === 1 ? [projectResource(render(found), params, SCHEMA_USER)] : [];
        return listResponse<Record<string, unknown>>(page, total, params.startIndex);
      }
      const { countQuery, pageQuery } = userListQueries(params, filter);
      const pageRows = (): UserDbRow[] => statements(pageQuery.sql).all(...(pageQuery.params as never[])) as UserDbRow[];
      const countAll = () => (statements(countQuery.sql).get(...(countQuery.params as never[])) as { n: number }).n;
      let rows: UserDbRow[] = [];
      let total: number;
      if (params.count > 0 && params.startIndex === 1) {
        // A first page that is not full already tells the total: skip the count query (the
        // common IdP lookup `userName eq "…"` is then one indexed probe).
        rows = pageRows();
        total = rows.length < params.count ? rows.length : countAll();
      } else {
        total = countAll();
        if (params.count > 0 && params.startIndex <= total) rows = pageRows();
      }
      const resources = rows.map((r) => projectResource(render(r), params, SCHEMA_USER));
      return listResponse(resources, total, params.startIndex);
    },

    create(input: UserState): UserResource {
      const state = validateUser(input);
      const id = db.transaction((tx) => {
        assertUniqueUserName(state.userName, null);
        assertSeat(null, state, 0);
        const now = new Date().toISOString();
        const row = tx.insert(users).values({ ...columnsOf(state), role: "member", createdAt: now, updatedAt: now }).returning({ id: users.id }).get();
        writeEmails(tx, row.id, state.emails, true);
        return row.id;
      }, { behavior: "immediate" });
      return getResource(id)!;
    },

    /** PUT: `next` is built from the body and the current state (see index.ts). */
    replace: (idText: string, build: (before: UserState) => UserState) => update(idText, build),

    patch: (idText: string, operations: PatchOp[]) => update(idText, (before) => applyUserPatch(before, operations)),

    /** DELETE: deactivate (spec part 3) — the record, its history and its seat type stay. */
    deactivate(idText: string): void {
      update(idText, (before) => ({ ...before, active: false }));
    },
  };
}

export type UsersService = ReturnType<typeof createUsersService>;

/**
 * The two SQL statements of a list request (count and page), with bound parameters. Exported so
 * a test can EXPLAIN them and prove the indexed lookups do not scan.
 */
export function userListQueries(params: ListParams, parsed?: FilterNode): { countQuery: { sql: string; params: unknown[] }; pageQuery: { sql: string; params: unknown[] } } {
  // One drizzle → SQL conversion (of the WHERE fragment); the two statements are plain strings
  // around it, so their text only depends on the filter's shape and bun:sqlite's statement
  // cache (keyed by SQL text) serves repeated shapes.
  const node = parsed ?? (params.filter ? parseFilter(params.filter) : undefined);
  const where = node ? dialect.sqlToQuery(compileFilter(node, userFilterResolver)) : null;
  const whereClause = where ? ` WHERE ${where.sql}` : ""; // no WHERE at all: lets SQLite answer count(*) from the b-tree size
  const whereParams = where ? where.params : [];
  let order = "u.id ASC";
  if (params.sortBy) {
    const expr = dialect.sqlToQuery(userSortExpression(params.sortBy)).sql;
    order = `${expr} ${params.sortOrder === "descending" ? "DESC" : "ASC"} NULLS LAST, u.id ASC`;
  }
  return {
    countQuery: { sql: `SELECT count(*) AS n FROM users u${whereClause}`, params: whereParams },
    // LIMIT is written as a literal (an integer 0…1000 from parseListParams): with a bound LIMIT,
    // SQLite cannot plan the top-N sort and an indexed one-row lookup costs several times more.
    pageQuery: { sql: `SELECT ${USER_COLUMNS} FROM users u${whereClause} ORDER BY ${order} LIMIT ${Math.trunc(params.count)} OFFSET ?`, params: [...whereParams, params.startIndex - 1] },
  };
}

/**
 * Deactivates user `userId` inside an existing transaction (for other features, e.g. an admin
 * action); runs the same hooks as DELETE /Users/{id}. Returns false when no such user exists.
 */
export function deactivateUser(tx: Tx, userId: number): boolean {
  const row = tx.select({ active: users.active }).from(users).where(eq(users.id, userId)).get();
  if (!row) return false;
  if (row.active) {
    tx.update(users).set({ active: false, updatedAt: new Date().toISOString() }).where(eq(users.id, userId)).run();
    for (const hook of deactivationHooks) hook(tx, userId);
  }
  return true;
}
