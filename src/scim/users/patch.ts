/**
 * PATCH for users (RFC 7644 §3.5.2) as Entra ID and Okta send it. Pure: the current state and
 * the operations in, the new state out (or a ScimError). The caller validates the result with
 * the same rules as POST/PUT and writes it in one transaction, so several operations apply
 * atomically: one fails → nothing changes.
 *
 * What IdPs send, and how it is read:
 * - `op` in any case (Entra's default dialect sends "Replace"/"Add"/"Remove");
 * - with a `path`, or without one and a value object whose keys are attribute names, dotted
 *   paths (`name.givenName`), URN-prefixed paths or value-filter paths (Entra aadOptscim062020);
 * - `active` as a boolean or the strings "True"/"False" (Entra default dialect);
 * - `emails[type eq "work"].value`: sets the matching e-mail, creating it from the filter's
 *   equalities when none matches (Entra's first sync of a work e-mail);
 * - `add` on a single-valued attribute is the same as `replace`.
 * Attributes of the RFC 7643 User schema and the enterprise extension that Gatehouse does not
 * store (phoneNumbers, addresses, preferredLanguage, department, manager, …) are accepted and
 * ignored: Entra's default attribute mapping sends them, and refusing them would stop
 * provisioning. Any other path → 400 invalidPath.
 */
import { ScimError } from "../errors";
import { parsePatchPath, type FilterNode, type PatchPath } from "../filter";
import { SCHEMA_ENTERPRISE_USER, SCHEMA_USER } from "../protocol";
import type { EmailState, UserState } from "../../directory/users";
import { toBoolean, toText, toUserType } from "./rules";

export type PatchOp = { op: string; path?: string | null; value?: unknown };

const SCALARS: Record<string, "userName" | "externalId" | "displayNameGiven" | "title" | "userType" | "active"> = {
  username: "userName",
  externalid: "externalId",
  displayname: "displayNameGiven",
  title: "title",
  usertype: "userType",
  active: "active",
};
const NAME_PARTS: Record<string, "givenName" | "familyName" | "formattedName"> = {
  givenname: "givenName",
  familyname: "familyName",
  formatted: "formattedName",
};
/** RFC 7643 §4.1 attributes not stored by Gatehouse: accepted, ignored. */
const IGNORED = new Set([
  "nickname", "profileurl", "preferredlanguage", "locale", "timezone", "addresses", "phonenumbers", "ims",
  "photos", "entitlements", "roles", "x509certificates", "password", "groups",
]);
const IGNORED_NAME_PARTS = new Set(["middlename", "honorificprefix", "honorificsuffix"]);
const READ_ONLY = new Set(["id", "meta", "schemas"]);
const EMAIL_SUBS = new Set(["value", "type", "primary", "display"]);

const invalidPath = (detail: string) => new ScimError(400, detail, "invalidPath");
const invalidValue = (detail: string) => new ScimError(400, detail, "invalidValue");

type Verb = "add" | "replace" | "remove";

export function applyUserPatch(current: UserState, operations: PatchOp[]): UserState {
  let state: UserState = { ...current, emails: current.emails.map((e) => ({ ...e })) };
  operations.forEach((raw, i) => {
    const where = `Operations[${i}]`;
    if (!raw || typeof raw !== "object") throw new ScimError(400, `${where} must be an object`, "invalidSyntax");
    const verb = typeof raw.op === "string" ? raw.op.trim().toLowerCase() : "";
    if (verb !== "add" && verb !== "replace" && verb !== "remove")
      throw new ScimError(400, `${where}.op must be add, replace or remove, got ${JSON.stringify(raw.op)}`, "invalidSyntax");
    const path = typeof raw.path === "string" && raw.path.trim() !== "" ? raw.path.trim() : null;
    try {
      if (path !== null) state = applyPath(state, verb, path, raw.value, false);
      else {
        if (verb === "remove") throw new ScimError(400, `${where}: remove needs a path`, "noTarget");
        if (!raw.value || typeof raw.value !== "object" || Array.isArray(raw.value))
          throw invalidValue(`${where}: without a path, value must be an object of attributes`);
        state = applyValueObject(state, verb, raw.value as Record<string, unknown>);
      }
    } catch (e) {
      if (e instanceof ScimError) throw new ScimError(e.status, `${where}: ${e.message}`, e.scimType);
      throw e;
    }
  });
  return state;
}

function applyValueObject(state: UserState, verb: Verb, value: Record<string, unknown>, nested = false): UserState {
  for (const [key, v] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if (lower === SCHEMA_USER.toLowerCase() && v && typeof v === "object" && !Array.isArray(v)) {
      // `{"urn:…:core:2.0:User": {…}}` wraps the core attributes once; deeper wrapping is ignored
      if (!nested) state = applyValueObject(state, verb, v as Record<string, unknown>, true);
      continue;
    }
    state = applyPath(state, verb, key, v, true);
  }
  return state;
}

/**
 * Applies one operation at `pathText`. From a value object (`lenient`), a key that is not an
 * attribute is ignored like an unknown attribute in a POST body; as an explicit path it is 400.
 */
function applyPath(state: UserState, verb: Verb, pathText: string, value: unknown, lenient: boolean): UserState {
  const lowerText = pathText.toLowerCase();
  if (lowerText.startsWith(SCHEMA_ENTERPRISE_USER.toLowerCase())) return state; // enterprise extension: not stored
  let p: PatchPath;
  try {
    p = parsePatchPath(pathText);
  } catch (e) {
    if (lenient) return state;
    throw e;
  }
  if (p.attr.uri && p.attr.uri.toLowerCase() !== SCHEMA_USER.toLowerCase()) {
    if (lenient) return state;
    throw invalidPath(`Unknown schema in path ${JSON.stringify(pathText)}`);
  }
  const name = p.attr.name.toLowerCase();
  const sub = p.attr.sub?.toLowerCase();

  if (name in SCALARS && !sub && !p.filter) return setScalar(state, verb, SCALARS[name]!, value);
  if (name === "name" && !p.filter) {
    if (!sub) return setName(state, verb, value);
    if (sub in NAME_PARTS) return { ...state, [NAME_PARTS[sub]!]: verb === "remove" ? null : toText(value, `name.${p.attr.sub}`) };
    if (IGNORED_NAME_PARTS.has(sub)) return state;
  }
  if (name === "emails") return setEmails(state, verb, p, value, pathText);
  if (IGNORED.has(name)) return state;
  if (lenient) return state;
  if (READ_ONLY.has(name)) throw new ScimError(400, `"${p.attr.name}" is read-only`, "mutability");
  throw invalidPath(`Unknown or unsupported path ${JSON.stringify(pathText)}`);
}

/** Entra sometimes wraps a single value as `[{"value": x}]`; unwrap that one shape. */
function single(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 1 && value[0] && typeof value[0] === "object" && "value" in value[0]) return (value[0] as { value: unknown }).value;
  return value;
}

function setScalar(state: UserState, verb: Verb, field: (typeof SCALARS)[string], raw: unknown): UserState {
  const value = single(raw);
  switch (field) {
    case "userName":
      if (verb === "remove") throw invalidValue("userName is required and cannot be removed");
      if (typeof value !== "string") throw invalidValue("userName must be a string");
      return { ...state, userName: value };
    case "active":
      if (verb === "remove") throw invalidValue("active cannot be removed; replace it with true or false");
      return { ...state, active: toBoolean(value, "active") };
    case "userType":
      return { ...state, userType: verb === "remove" ? "regular" : toUserType(value) };
    default:
      return { ...state, [field]: verb === "remove" ? null : toText(value, field === "displayNameGiven" ? "displayName" : field) };
  }
}

function setName(state: UserState, verb: Verb, value: unknown): UserState {
  if (verb === "remove") return { ...state, givenName: null, familyName: null, formattedName: null };
  if (!value || typeof value !== "object" || Array.isArray(value)) throw invalidValue("name must be an object");
  // RFC 7644 §3.5.2.3: sub-attributes not given are left unchanged.
  const next = { ...state };
  for (const [k, v] of Object.entries(value)) {
    const part = NAME_PARTS[k.toLowerCase()];
    if (part) next[part] = toText(v, `name.${k}`);
  }
  return next;
}

function toEmail(v: unknown): EmailState {
  if (!v || typeof v !== "object" || Array.isArray(v)) throw invalidValue("each email must be an object with a value");
  const o = lowerKeys(v as Record<string, unknown>);
  if (typeof o.value !== "string") throw invalidValue("emails.value must be a string");
  return { value: o.value, type: toText(o.type, "emails.type"), primary: o.primary === undefined || o.primary === null ? false : toBoolean(o.primary, "emails.primary") };
}

function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k.toLowerCase(), v]));
}

function setEmailSub(e: EmailState, sub: string, verb: Verb, value: unknown): EmailState {
  if (sub === "display") return e;
  if (sub === "value") {
    if (verb === "remove") return e; // handled by the caller (the entry goes)
    const v = single(value);
    if (typeof v !== "string") throw invalidValue("emails.value must be a string");
    return { ...e, value: v };
  }
  if (sub === "type") return { ...e, type: verb === "remove" ? null : toText(single(value), "emails.type") };
  return { ...e, primary: verb === "remove" ? false : toBoolean(single(value), "emails.primary") };
}

function setEmails(state: UserState, verb: Verb, p: PatchPath, value: unknown, pathText: string): UserState {
  const sub = (p.valueSub ?? p.attr.sub)?.toLowerCase();
  if (sub !== undefined && !EMAIL_SUBS.has(sub)) throw invalidPath(`emails has no sub-attribute "${sub}" (${pathText})`);
  if (p.filter) checkEmailFilter(p.filter, pathText);
  let emails = state.emails;

  if (!p.filter && sub === undefined) {
    if (verb === "remove") emails = [];
    else {
      const given = (Array.isArray(value) ? value : [value]).map(toEmail);
      if (verb === "replace") emails = given;
      else {
        // add: merge by value (case-insensitive), append the rest
        emails = emails.map((e) => ({ ...e }));
        for (const g of given) {
          const at = emails.findIndex((e) => e.value.toLowerCase() === g.value.toLowerCase());
          if (at >= 0) emails[at] = g;
          else emails.push(g);
        }
      }
    }
  } else {
    const matches = (e: EmailState) => (p.filter ? matchEmail(p.filter, e) : true);
    const hit = emails.some(matches);
    if (verb === "remove") {
      if (sub === undefined || sub === "value") emails = emails.filter((e) => !matches(e));
      else emails = emails.map((e) => (matches(e) ? setEmailSub(e, sub, verb, value) : e));
    } else if (sub === undefined) {
      // emails[type eq "work"] with a value object: update the matches' sub-attributes
      if (!value || typeof value !== "object" || Array.isArray(value)) throw invalidValue(`${pathText} needs an object value`);
      const o = lowerKeys(value as Record<string, unknown>);
      const apply = (e: EmailState) => Object.entries(o).filter(([k]) => EMAIL_SUBS.has(k)).reduce((acc, [k, v]) => setEmailSub(acc, k, verb, v), e);
      if (hit) emails = emails.map((e) => (matches(e) ? apply(e) : e));
      else emails = [...emails, apply({ value: "", ...emailFromFilter(p.filter!, pathText) })];
    } else if (hit) emails = emails.map((e) => (matches(e) ? setEmailSub(e, sub, verb, value) : e));
    else if (!p.filter) emails = [setEmailSub({ value: "", type: null, primary: false }, sub, verb, value)];
    else emails = [...emails, setEmailSub({ value: "", ...emailFromFilter(p.filter, pathText) }, sub, verb, value)];
  }
  return { ...state, emails };
}

function checkEmailFilter(f: FilterNode, pathText: string): void {
  switch (f.op) {
    case "and":
    case "or":
      checkEmailFilter(f.left, pathText);
      checkEmailFilter(f.right, pathText);
      return;
    case "not":
      checkEmailFilter(f.filter, pathText);
      return;
    case "valuePath":
      throw invalidPath(`Nested value filter in ${pathText}`);
    default:
      if (f.attr.sub || f.attr.uri || !EMAIL_SUBS.has(f.attr.name.toLowerCase()))
        throw invalidPath(`emails has no sub-attribute "${f.attr.name}" (${pathText})`);
  }
}

/** Evaluates a value filter on one e-mail (strings case-insensitive, as emails are caseExact false). */
export function matchEmail(f: FilterNode, e: EmailState): boolean {
  switch (f.op) {
    case "and":
      return matchEmail(f.left, e) && matchEmail(f.right, e);
    case "or":
      return matchEmail(f.left, e) || matchEmail(f.right, e);
    case "not":
      return !matchEmail(f.filter, e);
    case "valuePath":
      return false;
    case "present": {
      const v = emailField(e, f.attr.name);
      return v !== null && v !== "" && v !== undefined;
    }
    case "compare": {
      const actual = emailField(e, f.attr.name);
      const want = f.value;
      if (typeof actual === "boolean" || typeof want === "boolean") {
        const w = typeof want === "string" ? want.toLowerCase() === "true" : want;
        if (f.compare === "eq") return actual === w;
        if (f.compare === "ne") return actual !== w;
        return false;
      }
      if (want === null) return f.compare === "eq" ? actual === null : f.compare === "ne" ? actual !== null : false;
      if (actual === null || actual === undefined) return f.compare === "ne";
      const a = String(actual).toLowerCase();
      const w = String(want).toLowerCase();
      switch (f.compare) {
        case "eq": return a === w;
        case "ne": return a !== w;
        case "co": return a.includes(w);
        case "sw": return a.startsWith(w);
        case "ew": return a.endsWith(w);
        case "gt": return a > w;
        case "ge": return a >= w;
        case "lt": return a < w;
        case "le": return a <= w;
      }
    }
  }
}

function emailField(e: EmailState, name: string): string | boolean | null | undefined {
  switch (name.toLowerCase()) {
    case "value": return e.value;
    case "type": return e.type;
    case "primary": return e.primary;
    default: return undefined;
  }
}

/** The entry a filter like `type eq "work"` (and-ed equalities) describes, to create it when missing. */
function emailFromFilter(f: FilterNode, pathText: string): Omit<EmailState, "value"> & { value?: string } {
  const out: { value?: string; type: string | null; primary: boolean } = { type: null, primary: false };
  const walk = (n: FilterNode) => {
    if (n.op === "and") {
      walk(n.left);
      walk(n.right);
    } else if (n.op === "compare" && n.compare === "eq") {
      const k = n.attr.name.toLowerCase();
      if (k === "type" && typeof n.value === "string") out.type = n.value;
      else if (k === "value" && typeof n.value === "string") out.value = n.value;
      else if (k === "primary") out.primary = toBoolean(n.value, "emails.primary");
    } else throw new ScimError(400, `No e-mail matches ${pathText}, and the filter does not describe one to create`, "noTarget");
  };
  walk(f);
  return out;
}
