/**
 * Users of the organization: their state, the spec's rules on it (part 2.1, 8), and how a state
 * is written — uniqueness, seats, the e-mail index rows, deactivation. SCIM, the admin API and
 * the test-management API all go through here; none of them writes `users` on its own.
 * Callers own the write transaction (`writeTransaction`, naming `userCreateKeys` or
 * `userUpdateKeys` in its `serializeOn`), so a rule check and its write are atomic on either
 * engine; userNames are held by their unique index, whose refusal answers as the check does.
 * A state's own rules (`validateUser`) run once, before the transaction; the rules that read the
 * database (uniqueness, seats, who may reactivate) run in it. Which attributes are columns, and
 * how each maps, is the column map (user-columns.ts).
 */
import { count, eq, getTableColumns } from "drizzle-orm";
import type { Config } from "../config";
import type { AppContext } from "../context";
import type { Db, Tx } from "../db/connection";
import { fastInserter } from "../db/fast-insert";
import { violatesUnique } from "../db/constraint";
import { preparedQuery } from "../db/statement";
import { first } from "../db/transaction";
import { duplicate, invalidUser, noFreeSeat, notYours } from "./errors";
import { removeUserFromAllGroups } from "./groups";
import { isPlainText } from "./names";
import { DEPARTURES_KEY, SEATS_KEY, userKey } from "./rule-keys";
import { caseFoldKey, userEmails, users } from "./tables";
import { MAX_TEXT, USER_COLUMN_MAP, type EmailState, type UserColumn, type UserColumnEntry, type UserState, type UserType } from "./user-columns";

// The state's types live with the column map that names their fields; re-exported for callers.
export { USER_TYPES, type EmailState, type UserState, type UserType } from "./user-columns";
import { ORGANIZATION, type Scope } from "./workspaces";

/** The profile document's largest JSON size: far above any real person, far below the body limit. */
const MAX_PROFILE_JSON = 200_000;



declare const checked: unique symbol;
/**
 * A state that passed `validateUser` (e-mails normalised). The directory writes only these, and
 * `validateUser` is the one way to make one, so every write is checked exactly once.
 */
export type ValidUserState = UserState & { readonly [checked]: true };

// Deliberately simple: one @, something on both sides, no whitespace. IdPs send UPNs and mail
// addresses; full RFC 5322 would only let through strings no mail system delivers to.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const isEmail = (s: string) => EMAIL.test(s) && s.length <= 320;

const plainText = isPlainText;

/** Length limits of the column map, name parts (code points) before the others (UTF-16 units). */
const LIMITED = [
  ...USER_COLUMN_MAP.filter((c) => "max" in c && c.max.unit === "codePoints"),
  ...USER_COLUMN_MAP.filter((c) => "max" in c && c.max.unit === "units"),
] as readonly UserColumn[];

/**
 * Where a state holds a NUL character (a key or a string value, at any depth), or null. No stored
 * text may: PostgreSQL's `text` and `jsonb` cannot hold it, and no IdP sends one.
 */
function nulIn(value: unknown, path = "The user"): string | null {
  if (typeof value === "string") return value.includes("\u0000") ? path : null;
  if (value === null || typeof value !== "object") return null;
  for (const [key, v] of Object.entries(value)) {
    const where = Array.isArray(value) ? `${path}[${key}]` : key.includes("\u0000") ? path : path === "The user" ? key : `${path}.${key}`;
    if (key.includes("\u0000")) return where;
    const found = nulIn(v, where);
    if (found !== null) return found;
  }
  return null;
}

/** Checks every rule; returns the state with e-mails normalised (one primary at most). */
export function validateUser(s: UserState): ValidUserState {
  if (typeof s.userName !== "string" || s.userName.trim() === "") throw invalidUser("userName is required");
  const userName = s.userName.trim();
  if (!plainText(s.userName)) throw invalidUser("userName must not contain control characters or unpaired surrogates");
  if (!isEmail(userName)) throw invalidUser(`userName ${JSON.stringify(s.userName)} must be an e-mail address`);
  for (const c of LIMITED) {
    const v = s[c.field] as string | null;
    if (v !== null && (c.max!.unit === "codePoints" ? [...v].length : v.length) > c.max!.length) throw invalidUser(`${c.attribute} is longer than ${c.max!.length} characters`);
  }
  if (s.emails.length > 100) throw invalidUser("At most 100 emails");
  let primarySeen = false;
  const emails = s.emails.map((e) => {
    if (typeof e.value === "string" && !plainText(e.value)) throw invalidUser("emails.value must not contain control characters or unpaired surrogates");
    if (typeof e.value !== "string" || !isEmail(e.value.trim())) throw invalidUser(`emails: ${JSON.stringify(e.value)} is not an e-mail address`);
    if (e.type !== null && e.type.length > 64) throw invalidUser("emails.type is longer than 64 characters");
    if (e.display !== undefined && e.display.length > MAX_TEXT) throw invalidUser(`emails.display is longer than ${MAX_TEXT} characters`);
    const primary = e.primary && !primarySeen;
    primarySeen ||= primary;
    return { value: e.value.trim(), type: e.type, primary, ...(e.display !== undefined ? { display: e.display } : {}) };
  });
  if (JSON.stringify(s.profile).length > MAX_PROFILE_JSON) throw invalidUser(`The user's attributes exceed ${MAX_PROFILE_JSON} characters of JSON`);
  const withNul = nulIn(s);
  if (withNul !== null) throw invalidUser(`${withNul} must not contain NUL (U+0000)`);
  return { ...s, userName, emails } as ValidUserState;
}

/** Whether two states store the same: the column fields, the e-mails and the profile document. */
export function sameUserState(a: UserState, b: UserState): boolean {
  for (const c of USER_COLUMN_MAP) if (a[c.field] !== b[c.field]) return false;
  return JSON.stringify(a.emails) === JSON.stringify(b.emails) && JSON.stringify(a.profile) === JSON.stringify(b.profile);
}

/**
 * Spec 2.1's display-name rule, read as: the IdP's `displayName` when given; else `name.formatted`
 * when not empty; else given and family name joined (each used when not empty); else the userName.
 */
export function resolveDisplayName(s: Pick<UserState, "displayNameGiven" | "formattedName" | "givenName" | "familyName" | "userName">): string {
  const nonEmpty = (v: string | null) => (v && v.trim() !== "" ? v.trim() : null);
  return nonEmpty(s.displayNameGiven) ?? nonEmpty(s.formattedName) ?? ([nonEmpty(s.givenName), nonEmpty(s.familyName)].filter(Boolean).join(" ") || s.userName);
}

/**
 * A `users` row as read with `USER_COLUMNS`: the column map's columns by their SQL names, and
 * the rest of what a resource renders (plain rows: the hot read paths skip drizzle's mapping).
 */
export type UserDbRow = { [C in UserColumnEntry as C["column"]]: C["kind"] extends "boolean" ? number : C["kind"] extends "userType" ? UserType : C["field"] extends "userName" ? string : string | null } & {
  id: number; display_name: string; emails: string; profile: string; created_at: string; updated_at: string;
};
/** The columns of `UserDbRow`, for a query that aliases `users` as `u`. */
export const USER_COLUMNS = ["id", ...USER_COLUMN_MAP.map((c) => c.column), "display_name", "emails", "profile", "created_at", "updated_at"].map((c) => `u.${c}`).join(", ");

/** What a response renders: each column attribute's rendered column (`display_name`, not the one the IdP sent). */
const RESOURCE_COLUMN_NAMES = ["id", ...USER_COLUMN_MAP.map((c) => ("rendered" in c ? c.rendered : c.column)), "emails", "profile", "created_at", "updated_at"];
/** A `users` row as a SCIM response reads it (`USER_RESOURCE_COLUMNS`): a page materialises 1000 of these, so no column more. */
export type UserResourceRow = Omit<UserDbRow, "display_name_given">;
/** The columns of `UserResourceRow`, for a query that aliases `users` as `u`. */
export const USER_RESOURCE_COLUMNS = RESOURCE_COLUMN_NAMES.map((c) => `u.${c}`).join(", ");

/** One entry of `users.emails`: a SCIM `emails` item as responses carry it. */
type RenderedEmail = { value: string; type?: string; primary: boolean; display?: string };

/** `users.emails` for a state's e-mails: the SCIM rendering, `type` and `display` omitted when unset. */
function renderEmails(emails: UserState["emails"]): string {
  return JSON.stringify(
    emails.map((e): RenderedEmail => {
      const out: RenderedEmail = e.type !== null ? { value: e.value, type: e.type, primary: e.primary } : { value: e.value, primary: e.primary };
      if (e.display !== undefined) out.display = e.display;
      return out;
    }),
  );
}

/** The stored state of a row (it passed the rules when it was written). */
export function stateOfRow(r: UserDbRow): ValidUserState {
  const row = r as unknown as Record<string, unknown>;
  const state: Record<string, unknown> = {};
  for (const c of USER_COLUMN_MAP) state[c.field] = c.kind === "boolean" ? row[c.column] === 1 : row[c.column];
  state.emails = (JSON.parse(r.emails) as RenderedEmail[]).map((e) => ({ value: e.value, type: e.type ?? null, primary: e.primary, ...(e.display !== undefined ? { display: e.display } : {}) }));
  state.profile = JSON.parse(r.profile) as Record<string, unknown>;
  return state as ValidUserState;
}

/** drizzle's key for each `users` column the map names (checked once: a map entry must name a real column). */
const DRIZZLE_KEY = new Map(Object.entries(getTableColumns(users)).map(([key, column]) => [column.name, key]));
for (const c of USER_COLUMN_MAP) if (!DRIZZLE_KEY.has(c.column) || ("rendered" in c && !DRIZZLE_KEY.has(c.rendered))) throw new Error(`users has no column ${c.column}`);

/** The `users` values a state writes: the map's columns, the derived keys, the rendered e-mails, the profile. */
function columnsOf(s: ValidUserState): Omit<typeof users.$inferInsert, "createdAt" | "updatedAt"> {
  const out: Record<string, unknown> = {};
  for (const c of USER_COLUMN_MAP) out[DRIZZLE_KEY.get(c.column)!] = s[c.field];
  return Object.assign(out, { userNameKey: caseFoldKey(s.userName), displayName: resolveDisplayName(s), emails: renderEmails(s.emails), profile: JSON.stringify(s.profile) }) as never;
}

// ---------------------------------------------------------------------------------------------
// Deactivation hook: features outside the directory react to a user being deactivated inside
// the same transaction, without the directory importing them.

export type UserDeactivatedHook = (tx: Tx, userId: number) => void | Promise<void>;
const deactivationHooks: UserDeactivatedHook[] = [];

/**
 * Registers `fn` to run inside the transaction that deactivates a user (DELETE /Users/{id},
 * PATCH/PUT active=false, `deactivateUser`), after the user has left every group. Throwing
 * aborts the deactivation. Returns an unregister function.
 */
export function onUserDeactivated(fn: UserDeactivatedHook): () => void {
  if (!deactivationHooks.includes(fn)) deactivationHooks.push(fn);
  return () => {
    const i = deactivationHooks.indexOf(fn);
    if (i >= 0) deactivationHooks.splice(i, 1);
  };
}

/** What deactivation does beyond `active = 0`, in the deactivating transaction. Reactivation restores nothing. */
async function afterDeactivation(tx: Tx, userId: number): Promise<void> {
  await removeUserFromAllGroups(tx, userId);
  for (const hook of deactivationHooks) await hook(tx, userId);
}

/**
 * Deactivates user `userId` inside an existing transaction (for other features, e.g. an admin
 * action); the same effects as DELETE /Users/{id}. Returns false when no such user exists. The
 * transaction names `userKey(userId)` and `DEPARTURES_KEY` (rule-keys.ts), as `userUpdateKeys` does.
 */
export async function deactivateUser(tx: Tx, userId: number): Promise<boolean> {
  const row = await first(tx.select({ active: users.active }).from(users).where(eq(users.id, userId)));
  if (!row) return false;
  if (row.active) {
    await tx.update(users).set({ active: false, deactivatedBy: deactivatorOf(ORGANIZATION), updatedAt: new Date().toISOString() }).where(eq(users.id, userId));
    await afterDeactivation(tx, userId);
  }
  return true;
}

/** `users.deactivated_by` for a deactivation through `scope`: its workspace, 0 for the organization. */
const deactivatorOf = (scope: Scope) => scope.workspaceId ?? 0;

// ---------------------------------------------------------------------------------------------

// A create's inserts skip drizzle's query builder (statements prepared once per connection):
// building their SQL per request was a quarter of a POST /Users (docs/benchmarks/read-path.md).
const insertUser = fastInserter(users);
const insertEmail = fastInserter(userEmails);

// The directory's hot reads, prepared once. Each runs where `db` routes it: inside the caller's
// write transaction when there is one (a rule check sees that transaction's rows), else the reader.
const byId = preparedQuery<UserDbRow, [number]>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?1`);
const idByUserNameKey = preparedQuery<{ id: number }, [string]>("SELECT id FROM users WHERE user_name_key = ?1");
const deactivatedByOf = preparedQuery<{ deactivator: number | null }, [number]>("SELECT deactivated_by AS deactivator FROM users WHERE id = ?1");
const activeRegularOthers = preparedQuery<{ n: number }, [number]>("SELECT count(*) AS n FROM users WHERE active = 1 AND user_type = 'regular' AND id <> ?1");

/** Whether `after` holds a seat `before` did not (an active regular user; `before` null: a create). */
const takesSeat = (before: UserState | null, after: UserState) =>
  after.active && after.userType === "regular" && !(before && before.active && before.userType === "regular");

/**
 * The `serializeOn` keys of a user create: with GATEHOUSE_LICENSE_SEATS, the seats key when the
 * new user takes a seat (a count no constraint can hold). No key for the userName: its unique
 * index holds it, so creates run side by side.
 */
export function userCreateKeys(config: Pick<Config, "licenseSeats">, state: UserState): string[] {
  return config.licenseSeats !== null && takesSeat(null, state) ? [SEATS_KEY] : [];
}

/**
 * The `serializeOn` keys of a write of user `id` from `before` to `after`: the user's own key
 * (a read-modify-write; group adds of the user name it too), the departures key when the user
 * leaves (deactivation, or `leaves` a workspace), the seats key when the write takes a seat
 * under a limit. The caller learns `before` and `after` inside its transaction: it opens it with
 * `[userKey(id)]`, and when these keys are more, starts again naming them (`KeysMissing`).
 */
export function userUpdateKeys(config: Pick<Config, "licenseSeats">, id: number, before: UserState, after: UserState, leaves = false): string[] {
  return [
    userKey(id),
    ...((before.active && !after.active) || leaves ? [DEPARTURES_KEY] : []),
    ...(config.licenseSeats !== null && takesSeat(before, after) ? [SEATS_KEY] : []),
  ];
}

/**
 * Thrown inside a write transaction that needs `serializeOn` keys it did not name (known only once
 * it read the state): its caller rolls back and runs it again naming `keys`. Before any write.
 */
export class KeysMissing extends Error {
  constructor(readonly keys: string[]) {
    super(`the write needs serializeOn ${keys.join(", ")}`);
  }
}

/** Throws `KeysMissing` when `needed` has a key `named` lacks. */
export function assertNamed(named: readonly string[], needed: readonly string[]): void {
  if (needed.some((k) => !named.includes(k))) throw new KeysMissing([...new Set([...named, ...needed])]);
}

/** Reading and writing user states, with every rule. `db` routes each read to the open transaction, if any. */
export function createUserDirectory(ctx: Pick<AppContext, "db" | "config">) {
  const { config, db } = ctx;

  const userNameTaken = (userName: string) =>
    duplicate(config.scimDuplicateStatus, `userName ${JSON.stringify(userName)} is already taken (user names are unique, compared case-insensitively after Unicode normalization)`);

  /**
   * The userName rule's check, for the common case's clear answer; a write racing it (another
   * transaction's uncommitted user of the same folded name) is refused by the unique index
   * instead, with the same error (`unlessNameTaken`).
   */
  const assertUniqueUserName = async (userName: string, selfId: number | null) => {
    const hit = await idByUserNameKey.get(db, caseFoldKey(userName));
    if (hit && hit.id !== selfId) throw userNameTaken(userName);
  };

  /** `write`, with the unique index's refusal of `userName` answered as the duplicate error. */
  const unlessNameTaken = async <T>(userName: string, write: () => Promise<T>): Promise<T> => {
    try {
      return await write();
    } catch (e) {
      if (violatesUnique(e, "users_user_name_key_unique", "users.user_name_key")) throw userNameTaken(userName);
      throw e;
    }
  };

  /** Seat rule: an active `regular` user needs a free seat; only a transition into that state checks. */
  const assertSeat = async (before: UserState | null, after: UserState, selfId: number) => {
    if (config.licenseSeats === null || !after.active || after.userType !== "regular") return;
    if (before && before.active && before.userType === "regular") return;
    const used = Number((await activeRegularOthers.get(db, selfId))!.n);
    if (used >= config.licenseSeats)
      throw noFreeSeat(`No free license seat: ${used} of ${config.licenseSeats} regular seats are in use (GATEHOUSE_LICENSE_SEATS); deactivate a user or provision this one as read-only`);
  };

  const writeEmails = async (tx: Tx, userId: number, emails: UserState["emails"], fresh = false) => {
    if (!fresh) await tx.delete(userEmails).where(eq(userEmails.userId, userId));
    for (const [i, e] of emails.entries()) await insertEmail(tx, { userId, position: i, value: e.value, valueKey: caseFoldKey(e.value), type: e.type, primary: e.primary, display: e.display ?? null });
  };

  /**
   * Reactivation undoes a deactivation only where it was decided: a workspace's token reactivates
   * whom its own workspace deactivated (or whom no one is recorded to have); the organization
   * reactivates anyone. Else another workspace, or the organization, would find its
   * de-provisioning quietly undone.
   */
  const assertMayReactivate = async (id: number, by: Scope) => {
    if (by.workspaceId === null) return;
    const deactivator = (await deactivatedByOf.get(db, id))?.deactivator ?? null;
    if (deactivator !== null && deactivator !== by.workspaceId)
      throw notYours(`User ${id} was deactivated by ${deactivator === 0 ? "the organization" : "another workspace's provisioning"}; only ${deactivator === 0 ? "the organization SCIM token" : "that workspace's token or the organization SCIM token"} can reactivate them (docs/directory.md)`);
  };

  return {
    /** Whether `after` differs from `before` as stored; false for a no-op write. */
    changes(before: UserState, after: ValidUserState): boolean {
      return !sameUserState(after, before);
    },

    /** The id of the user called `userName` (compared as userNames are unique), or null. */
    async idOfUserName(userName: string): Promise<number | null> {
      return (await idByUserNameKey.get(db, caseFoldKey(userName.trim())))?.id ?? null;
    },

    /** The stored state of user `id` (null when none). */
    async load(id: number): Promise<ValidUserState | null> {
      const r = await byId.get(db, id);
      return r ? stateOfRow(r) : null;
    },

    /** Creates a user from `state`, with the rules that read the database (uniqueness, seats); returns the new id. In a transaction serialized on `userCreateKeys`. */
    async create(tx: Tx, state: ValidUserState): Promise<number> {
      await assertUniqueUserName(state.userName, null);
      await assertSeat(null, state, 0);
      const now = new Date().toISOString();
      const row = await unlessNameTaken(state.userName, () => insertUser(tx, { ...columnsOf(state), role: "member", createdAt: now, updatedAt: now }));
      await writeEmails(tx, row.id, state.emails, true);
      return row.id;
    },

    /** Writes `next` over user `id` (state `before`), with the rules that read the database; `by` is who writes (deactivation and reactivation record and check it). In a transaction serialized on `userUpdateKeys`. */
    async save(tx: Tx, id: number, before: UserState, next: ValidUserState, by: Scope = ORGANIZATION): Promise<void> {
      if (sameUserState(next, before)) return; // nothing changed: keep lastModified
      const renamed = next.userName !== before.userName;
      if (renamed && caseFoldKey(next.userName) !== caseFoldKey(before.userName)) await assertUniqueUserName(next.userName, id);
      if (!before.active && next.active) await assertMayReactivate(id, by);
      await assertSeat(before, next, id);
      // An unchanged name keeps its stored key: one of a collision pair left by the key
      // migration (src/directory/refold.ts) must stay writable.
      const { userNameKey, ...columns } = columnsOf(next);
      const deactivatedBy = before.active === next.active ? {} : { deactivatedBy: next.active ? null : deactivatorOf(by) };
      await unlessNameTaken(next.userName, () => tx.update(users).set({ ...columns, ...(renamed ? { userNameKey } : {}), ...deactivatedBy, updatedAt: new Date().toISOString() }).where(eq(users.id, id)));
      if (JSON.stringify(next.emails) !== JSON.stringify(before.emails)) await writeEmails(tx, id, next.emails);
      if (before.active && !next.active) await afterDeactivation(tx, id);
    },
  };
}

export type UserDirectory = ReturnType<typeof createUserDirectory>;

export type SeatUsage = { limit: number | null; regular: number; readOnly: number; billing: number };

/** Active users per seat type; only `regular` counts against GATEHOUSE_LICENSE_SEATS. */
export async function seatUsage(db: Db, config: Config): Promise<SeatUsage> {
  const rows = await db.select({ type: users.userType, n: count() }).from(users).where(eq(users.active, true)).groupBy(users.userType);
  const by = (t: string) => rows.find((r) => r.type === t)?.n ?? 0;
  return { limit: config.licenseSeats, regular: by("regular"), readOnly: by("read-only"), billing: by("billing") };
}
