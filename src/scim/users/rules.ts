/**
 * The user as Gatehouse stores it, and the spec's rules on it (part 2.1, 8). Pure: POST, PUT and
 * PATCH all end in `validateUser`, so a rule cannot be bypassed by choosing another verb.
 */
import { ScimError } from "../errors";

export const USER_TYPES = ["regular", "read-only", "billing"] as const;
export type UserType = (typeof USER_TYPES)[number];
export const MAX_NAME_PART = 60;
const MAX_TEXT = 1024;

export type EmailState = { value: string; type: string | null; primary: boolean };

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
};

const invalid = (detail: string) => new ScimError(400, detail, "invalidValue");

// Deliberately simple: one @, something on both sides, no whitespace. IdPs send UPNs and mail
// addresses; full RFC 5322 would only let through strings no mail system delivers to.
const EMAIL = /^[^\s@]+@[^\s@]+$/;
export const isEmail = (s: string) => EMAIL.test(s) && s.length <= 320;

/** `active` as sent: true/false or Entra's "True"/"False". */
export function toBoolean(v: unknown, what: string): boolean {
  if (typeof v === "boolean") return v;
  if (typeof v === "string" && /^(true|false)$/i.test(v.trim())) return v.trim().toLowerCase() === "true";
  throw invalid(`${what} must be a boolean (true/false)`);
}

export function toUserType(v: unknown): UserType {
  if (v === undefined || v === null || v === "") return "regular"; // spec 2.1: default on create and update
  if (typeof v !== "string") throw invalid("userType must be a string: regular, read-only or billing");
  const t = v.trim().toLowerCase();
  if ((USER_TYPES as readonly string[]).includes(t)) return t as UserType;
  throw invalid(`userType ${JSON.stringify(v)} is not accepted; use regular, read-only or billing${t === "collaborator" ? " (a collaborator seat is sent as read-only)" : ""}`);
}

/** Optional text: null/empty → null; otherwise must be a string. */
export function toText(v: unknown, what: string): string | null {
  if (v === undefined || v === null) return null;
  if (typeof v !== "string") throw invalid(`${what} must be a string`);
  return v === "" ? null : v;
}

/** Checks every rule; returns the state with e-mails normalised (one primary at most). */
export function validateUser(s: UserState): UserState {
  if (typeof s.userName !== "string" || s.userName.trim() === "") throw invalid("userName is required");
  const userName = s.userName.trim();
  if (!isEmail(userName)) throw invalid(`userName ${JSON.stringify(s.userName)} must be an e-mail address`);
  for (const [label, v] of [["name.givenName", s.givenName], ["name.familyName", s.familyName]] as const)
    if (v !== null && [...v].length > MAX_NAME_PART) throw invalid(`${label} is longer than ${MAX_NAME_PART} characters`);
  for (const [label, v] of [["externalId", s.externalId], ["name.formatted", s.formattedName], ["displayName", s.displayNameGiven], ["title", s.title]] as const)
    if (v !== null && v.length > MAX_TEXT) throw invalid(`${label} is longer than ${MAX_TEXT} characters`);
  if (s.emails.length > 100) throw invalid("At most 100 emails");
  let primarySeen = false;
  const emails = s.emails.map((e) => {
    if (typeof e.value !== "string" || !isEmail(e.value.trim())) throw invalid(`emails: ${JSON.stringify(e.value)} is not an e-mail address`);
    if (e.type !== null && e.type.length > 64) throw invalid("emails.type is longer than 64 characters");
    const primary = e.primary && !primarySeen;
    primarySeen ||= primary;
    return { value: e.value.trim(), type: e.type, primary };
  });
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

/** Reads a POST/PUT body (already type-checked by the model) into a state. */
export function stateFromBody(
  body: {
    userName: string; externalId?: string | null; displayName?: string | null; title?: string | null; userType?: string | null;
    active?: boolean | string | null; name?: { givenName?: string | null; familyName?: string | null; formatted?: string | null } | null;
    emails?: { value: string; type?: string | null; primary?: boolean | string | null }[] | null;
  },
  opts: { requireNames: boolean; activeWhenOmitted: boolean },
): UserState {
  const name = body.name ?? {};
  const state: UserState = {
    userName: body.userName,
    externalId: toText(body.externalId, "externalId"),
    givenName: toText(name.givenName, "name.givenName"),
    familyName: toText(name.familyName, "name.familyName"),
    formattedName: toText(name.formatted, "name.formatted"),
    displayNameGiven: toText(body.displayName, "displayName"),
    title: toText(body.title, "title"),
    userType: toUserType(body.userType),
    active: body.active === undefined || body.active === null ? opts.activeWhenOmitted : toBoolean(body.active, "active"),
    emails: (body.emails ?? []).map((e) => ({ value: e.value, type: toText(e.type, "emails.type"), primary: e.primary === undefined || e.primary === null ? false : toBoolean(e.primary, "emails.primary") })),
  };
  if (opts.requireNames) {
    // Spec 4.1: POST requires name.familyName and name.givenName.
    if (!state.givenName) throw invalid("name.givenName is required");
    if (!state.familyName) throw invalid("name.familyName is required");
  }
  return validateUser(state);
}
