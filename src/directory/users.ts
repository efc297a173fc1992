/**
 * Users of the organization: their state, the spec's rules on it (part 2.1, 8), and how a state
 * is written — uniqueness, seats, the e-mail index rows, deactivation. SCIM, the admin API and
 * the test-management API all go through here; none of them writes `users` on its own.
 * Callers own the transaction (`BEGIN IMMEDIATE`), so a rule check and its write are atomic.
 */
import { count, eq } from "drizzle-orm";
import type { Config } from "../config";
import type { AppContext } from "../context";
import type { Db, Tx } from "../db/connection";
import { duplicate, invalidUser, noFreeSeat, notYours } from "./errors";
import { removeUserFromAllGroups } from "./groups";
import { isPlainText } from "./names";
import { caseFoldKey, userEmails, users } from "./tables";
import { ORGANIZATION, type Scope } from "./workspaces";

export const USER_TYPES = ["regular", "read-only", "billing"] as const;
export type UserType = (typeof USER_TYPES)[number];
export const MAX_NAME_PART = 60;
const MAX_TEXT = 1024;
/** The profile document's largest JSON size: far above any real person, far below the body limit. */
const MAX_PROFILE_JSON = 200_000;

export type EmailState = { value: string; type: string | null; primary: boolean; display?: string };

export type UserState = {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayNameGiven: string | null;
  title: string | null;
  userType: UserType;
  active: boolean;
  emails: EmailState[];
  /**
   * Every other attribute the IdP sent, in the SCIM shape (nickName, phoneNumbers, addresses,
   * the enterprise extension under its URN, …). The directory stores and returns it as given;
   * SCIM normalises it against the User schema (src/scim/users/schema.ts) before it gets here.
   */
  profile: Record<string, unknown>;
};

// Deliberately simple: one @, something on both sides, no whitespace. IdPs send UPNs and mail
// addresses; full RFC 5322 would only let through strings no mail system delivers to.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const isEmail = (s: string) => EMAIL.test(s) && s.length <= 320;

const plainText = isPlainText;

/** Checks every rule; returns the state with e-mails normalised (one primary at most). */
export function validateUser(s: UserState): UserState {
  if (typeof s.userName !== "string" || s.userName.trim() === "") throw invalidUser("userName is required");
  const userName = s.userName.trim();
  if (!plainText(s.userName)) throw invalidUser("userName must not contain control characters or unpaired surrogates");
  if (!isEmail(userName)) throw invalidUser(`userName ${JSON.stringify(s.userName)} must be an e-mail address`);
  for (const [label, v] of [["name.givenName", s.givenName], ["name.familyName", s.familyName]] as const)
    if (v !== null && [...v].length > MAX_NAME_PART) throw invalidUser(`${label} is longer than ${MAX_NAME_PART} characters`);
  for (const [label, v] of [["externalId", s.externalId], ["name.formatted", s.formattedName], ["displayName", s.displayNameGiven], ["title", s.title]] as const)
    if (v !== null && v.length > MAX_TEXT) throw invalidUser(`${label} is longer than ${MAX_TEXT} characters`);
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
  return { ...s, userName, emails };
}

/**
 * Spec 2.1's display-name rule, read as: the IdP's `displayName` when given; else `name.formatted`
 * when not empty; else given and family name joined (each used when not empty); else the userName.
 */
export function resolveDisplayName(s: Pick<UserState, "displayNameGiven" | "formattedName" | "givenName" | "familyName" | "userName">): string {
  const nonEmpty = (v: string | null) => (v && v.trim() !== "" ? v.trim() : null);
  return nonEmpty(s.displayNameGiven) ?? nonEmpty(s.formattedName) ?? ([nonEmpty(s.givenName), nonEmpty(s.familyName)].filter(Boolean).join(" ") || s.userName);
}

/** A `users` row as read with `USER_COLUMNS` (plain bun:sqlite rows: the hot read paths skip drizzle's mapping). */
export type UserDbRow = {
  id: number; user_name: string; external_id: string | null; given_name: string | null; family_name: string | null;
  formatted_name: string | null; display_name_given: string | null; display_name: string; title: string | null; emails: string;
  user_type: UserType; active: number; profile: string; created_at: string; updated_at: string;
};
/** The columns of `UserDbRow`, for a query that aliases `users` as `u`. */
export const USER_COLUMNS = "u.id, u.user_name, u.external_id, u.given_name, u.family_name, u.formatted_name, u.display_name_given, u.display_name, u.title, u.emails, u.user_type, u.active, u.profile, u.created_at, u.updated_at";

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

export function stateOfRow(r: UserDbRow): UserState {
  return {
    userName: r.user_name, externalId: r.external_id, givenName: r.given_name, familyName: r.family_name,
    formattedName: r.formatted_name, displayNameGiven: r.display_name_given, title: r.title, userType: r.user_type,
    active: r.active === 1,
    emails: (JSON.parse(r.emails) as RenderedEmail[]).map((e) => ({ value: e.value, type: e.type ?? null, primary: e.primary, ...(e.display !== undefined ? { display: e.display } : {}) })),
    profile: JSON.parse(r.profile) as Record<string, unknown>,
  };
}

// ---------------------------------------------------------------------------------------------
// Deactivation hook: features outside the directory react to a user being deactivated inside
// the same transaction, without the directory importing them.

export type UserDeactivatedHook = (tx: Tx, userId: number) => void;
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
function afterDeactivation(tx: Tx, userId: number): void {
  removeUserFromAllGroups(tx, userId);
  for (const hook of deactivationHooks) hook(tx, userId);
}

/**
 * Deactivates user `userId` inside an existing transaction (for other features, e.g. an admin
 * action); the same effects as DELETE /Users/{id}. Returns false when no such user exists.
 */
export function deactivateUser(tx: Tx, userId: number): boolean {
  const row = tx.select({ active: users.active }).from(users).where(eq(users.id, userId)).get();
  if (!row) return false;
  if (row.active) {
    tx.update(users).set({ active: false, deactivatedBy: deactivatorOf(ORGANIZATION), updatedAt: new Date().toISOString() }).where(eq(users.id, userId)).run();
    afterDeactivation(tx, userId);
  }
  return true;
}

/** `users.deactivated_by` for a deactivation through `scope`: its workspace, 0 for the organization. */
const deactivatorOf = (scope: Scope) => scope.workspaceId ?? 0;

// ---------------------------------------------------------------------------------------------

/** Reading and writing user states, with every rule. Statements are prepared once per context. */
export function createUserDirectory(ctx: Pick<AppContext, "sqlite" | "config">) {
  const { sqlite, config } = ctx;
  const byId = sqlite.query<UserDbRow, [number]>(`SELECT ${USER_COLUMNS} FROM users u WHERE u.id = ?`);
  const idByUserNameKey = sqlite.query<{ id: number }, [string]>("SELECT id FROM users WHERE user_name_key = ?");
  const deactivatedByOf = sqlite.query<{ by: number | null }, [number]>("SELECT deactivated_by AS by FROM users WHERE id = ?");
  const activeRegularOthers = sqlite.query<{ n: number }, [number]>("SELECT count(*) AS n FROM users WHERE active = 1 AND user_type = 'regular' AND id <> ?");

  const assertUniqueUserName = (userName: string, selfId: number | null) => {
    const hit = idByUserNameKey.get(caseFoldKey(userName));
    if (hit && hit.id !== selfId) throw duplicate(config.scimDuplicateStatus, `userName ${JSON.stringify(userName)} is already taken (user names are unique, compared case-insensitively after Unicode normalization)`);
  };

  /** Seat rule: an active `regular` user needs a free seat; only a transition into that state checks. */
  const assertSeat = (before: UserState | null, after: UserState, selfId: number) => {
    if (config.licenseSeats === null || !after.active || after.userType !== "regular") return;
    if (before && before.active && before.userType === "regular") return;
    const used = activeRegularOthers.get(selfId)!.n;
    if (used >= config.licenseSeats)
      throw noFreeSeat(`No free license seat: ${used} of ${config.licenseSeats} regular seats are in use (GATEHOUSE_LICENSE_SEATS); deactivate a user or provision this one as read-only`);
  };

  const columnsOf = (s: UserState) => ({
    userName: s.userName,
    userNameKey: caseFoldKey(s.userName),
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
    profile: JSON.stringify(s.profile),
  });

  const writeEmails = (tx: Tx, userId: number, emails: UserState["emails"], fresh = false) => {
    if (!fresh) tx.delete(userEmails).where(eq(userEmails.userId, userId)).run();
    if (emails.length)
      tx.insert(userEmails).values(emails.map((e, i) => ({ userId, position: i, value: e.value, valueKey: caseFoldKey(e.value), type: e.type, primary: e.primary, display: e.display ?? null }))).run();
  };

  /**
   * Reactivation undoes a deactivation only where it was decided: a workspace's token reactivates
   * whom its own workspace deactivated (or whom no one is recorded to have); the organization
   * reactivates anyone. Else another workspace, or the organization, would find its
   * de-provisioning quietly undone.
   */
  const assertMayReactivate = (id: number, by: Scope) => {
    if (by.workspaceId === null) return;
    const deactivator = deactivatedByOf.get(id)?.by ?? null;
    if (deactivator !== null && deactivator !== by.workspaceId)
      throw notYours(`User ${id} was deactivated by ${deactivator === 0 ? "the organization" : "another workspace's provisioning"}; only ${deactivator === 0 ? "the organization SCIM token" : "that workspace's token or the organization SCIM token"} can reactivate them (docs/directory.md)`);
  };

  return {
    /** Whether `after` differs from `before` as stored (after validation); false for a no-op write. */
    changes(before: UserState, after: UserState): boolean {
      return JSON.stringify(validateUser(after)) !== JSON.stringify(before);
    },

    /** The id of the user called `userName` (compared as userNames are unique), or null. */
    idOfUserName(userName: string): number | null {
      return idByUserNameKey.get(caseFoldKey(userName.trim()))?.id ?? null;
    },

    /** The stored state of user `id` (null when none). */
    load(id: number): UserState | null {
      const r = byId.get(id);
      return r ? stateOfRow(r) : null;
    },

    /** Creates a user from `input` (validated here); returns the new id. */
    create(tx: Tx, input: UserState): number {
      const state = validateUser(input);
      assertUniqueUserName(state.userName, null);
      assertSeat(null, state, 0);
      const now = new Date().toISOString();
      const row = tx.insert(users).values({ ...columnsOf(state), role: "member", createdAt: now, updatedAt: now }).returning({ id: users.id }).get();
      writeEmails(tx, row.id, state.emails, true);
      return row.id;
    },

    /** Writes `after` over user `id` (state `before`), with every rule; `by` is who writes (deactivation and reactivation record and check it). */
    save(tx: Tx, id: number, before: UserState, after: UserState, by: Scope = ORGANIZATION): void {
      const next = validateUser(after);
      if (JSON.stringify(next) === JSON.stringify(before)) return; // nothing changed: keep lastModified
      const renamed = next.userName !== before.userName;
      if (renamed && caseFoldKey(next.userName) !== caseFoldKey(before.userName)) assertUniqueUserName(next.userName, id);
      if (!before.active && next.active) assertMayReactivate(id, by);
      assertSeat(before, next, id);
      // An unchanged name keeps its stored key: one of a collision pair left by the key
      // migration (src/directory/refold.ts) must stay writable.
      const { userNameKey, ...columns } = columnsOf(next);
      const deactivatedBy = before.active === next.active ? {} : { deactivatedBy: next.active ? null : deactivatorOf(by) };
      tx.update(users).set({ ...columns, ...(renamed ? { userNameKey } : {}), ...deactivatedBy, updatedAt: new Date().toISOString() }).where(eq(users.id, id)).run();
      if (JSON.stringify(next.emails) !== JSON.stringify(before.emails)) writeEmails(tx, id, next.emails);
      if (before.active && !next.active) afterDeactivation(tx, id);
    },
  };
}

export type UserDirectory = ReturnType<typeof createUserDirectory>;

export type SeatUsage = { limit: number | null; regular: number; readOnly: number; billing: number };

/** Active users per seat type; only `regular` counts against GATEHOUSE_LICENSE_SEATS. */
export function seatUsage(db: Db, config: Config): SeatUsage {
  const rows = db.select({ type: users.userType, n: count() }).from(users).where(eq(users.active, true)).groupBy(users.userType).all();
  const by = (t: string) => rows.find((r) => r.type === t)?.n ?? 0;
  return { limit: config.licenseSeats, regular: by("regular"), readOnly: by("read-only"), billing: by("billing") };
}
