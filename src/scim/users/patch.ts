/**
 * PATCH for users (RFC 7644 §3.5.2) as Entra ID and Okta send it. Pure: the current state and
 * the operations in, the new state out (or a ScimError). The caller validates the result with
 * the same rules as POST/PUT and writes it in one transaction, so several operations apply
 * atomically: one fails → nothing changes.
 *
 * Paths resolve through the User schema (schema.ts), so every attribute of the core schema and
 * the enterprise extension is patchable. What IdPs send, and how it is read:
 * - `op` in any case (Entra's default dialect sends "Replace"/"Add"/"Remove");
 * - with a `path`, or without one and a value object whose keys are attribute names, dotted
 *   paths (`name.givenName`), URN-prefixed paths or value-filter paths (Entra aadOptscim062020),
 *   or an extension URN whose value is an object of its attributes;
 * - `active` as a boolean or the strings "True"/"False" (Entra default dialect);
 * - `emails[type eq "work"].value`, `phoneNumbers[type eq "mobile"].value`,
 *   `addresses[type eq "work"].locality`: sets the matching entry, creating it from the filter's
 *   equalities when none matches (Entra's first sync);
 * - the enterprise `manager` as an object or as the manager's id alone (Entra);
 * - `add` on a single-valued attribute is the same as `replace`; `add`/`replace` on a complex
 *   attribute changes only the sub-attributes given (RFC 7644 §3.5.2.1, §3.5.2.3).
 * `password` is accepted and discarded (never stored). A path outside the schemas → 400
 * invalidPath; `id`, `meta`, `schemas` and read-only attributes (`groups`) → 400 mutability.
 */
import type { UserState } from "../../directory/users";
import type { ScimAttribute } from "../discovery/attributes";
import { ScimError } from "../errors";
import { parsePatchPath, type PatchPath } from "../filter";
import { SCHEMA_ENTERPRISE_USER, SCHEMA_USER } from "../protocol";
import { getKey, isObject, normalizeSingle, normalizeValue, patchItems, unwrapSingle, type Item, type Profile, type Verb } from "./profile";
import { userColumnOf, type UserColumn } from "../../directory/user-columns";
import { findAttribute, userSchema, userSchemaOf } from "./schema";
import { columnValue } from "./values";

export type PatchOp = { op: string; path?: string | null; value?: unknown };

const READ_ONLY = new Set(["id", "meta", "schemas"]);
const EMAILS = findAttribute(userSchema.attributes, "emails")!;

const invalidPath = (detail: string) => new ScimError(400, detail, "invalidPath");
const invalidValue = (detail: string) => new ScimError(400, detail, "invalidValue");

export function applyUserPatch(current: UserState, operations: PatchOp[]): UserState {
  let state: UserState = { ...current, emails: current.emails.map((e) => ({ ...e })), profile: structuredClone(current.profile) };
  operations.forEach((raw, i) => {
    const where = `Operations[${i}]`;
    if (!raw || typeof raw !== "object") throw new ScimError(400, `${where} must be an object`, "invalidSyntax");
    const verb = typeof raw.op === "string" ? raw.op.trim().toLowerCase() : "";
    if (verb !== "add" && verb !== "replace" && verb !== "remove")
      throw new ScimError(400, `${where}.op must be add, replace or remove, got ${JSON.stringify(raw.op)}`, "invalidSyntax");
    const path = typeof raw.path === "string" && raw.path.trim() !== "" ? raw.path.trim() : null;
    try {
      if (path !== null && path.toLowerCase() === SCHEMA_ENTERPRISE_USER.toLowerCase()) state = applyEnterpriseExtension(state, verb, raw.value);
      else if (path !== null) state = applyPath(state, verb, path, raw.value, false);
      else {
        if (verb === "remove") throw new ScimError(400, `${where}: remove needs a path`, "noTarget");
        if (!isObject(raw.value)) throw invalidValue(`${where}: without a path, value must be an object of attributes`);
        state = applyValueObject(state, verb, raw.value);
      }
    } catch (e) {
      if (e instanceof ScimError) throw new ScimError(e.status, `${where}: ${e.message}`, e.scimType);
      throw e;
    }
  });
  return state;
}

/**
 * A path naming the whole enterprise extension (RFC 7644 §3.5.2: a complex attribute addressed by
 * its schema URN, as scim2-tester sends it). add/replace take an object of its attributes and set
 * each one given, leaving the others (§3.5.2.3: sub-attributes not specified are left unchanged);
 * remove clears every attribute of the extension.
 */
function applyEnterpriseExtension(state: UserState, verb: Verb, value: unknown): UserState {
  const ext = `${SCHEMA_ENTERPRISE_USER}:`;
  if (verb === "remove") {
    for (const def of userSchemaOf(SCHEMA_ENTERPRISE_USER)!.attributes) if (def.mutability !== "readOnly") state = applyPath(state, "remove", ext + def.name, undefined, true);
    return state;
  }
  if (!isObject(value)) throw invalidValue(`A path naming the enterprise extension takes an object of its attributes`);
  for (const [k, x] of Object.entries(value)) state = applyPath(state, verb, ext + k, x, false);
  return state;
}

function applyValueObject(state: UserState, verb: Verb, value: Record<string, unknown>, nested = false): UserState {
  for (const [key, v] of Object.entries(value)) {
    const lower = key.toLowerCase();
    if ((lower === SCHEMA_USER.toLowerCase() || lower === SCHEMA_ENTERPRISE_USER.toLowerCase()) && isObject(v)) {
      // `{"urn:…:User": {…}}` wraps a schema's attributes once; deeper wrapping is ignored
      if (nested) continue;
      if (lower === SCHEMA_USER.toLowerCase()) state = applyValueObject(state, verb, v, true);
      else for (const [k, x] of Object.entries(v)) state = applyPath(state, verb, `${SCHEMA_ENTERPRISE_USER}:${k}`, x, true);
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
  let p: PatchPath;
  try {
    p = parsePatchPath(pathText);
  } catch (e) {
    if (lenient) return state;
    throw e;
  }
  const schema = userSchemaOf(p.attr.uri);
  if (!schema) {
    if (lenient) return state;
    throw invalidPath(`Unknown schema in path ${JSON.stringify(pathText)}`);
  }
  const def = findAttribute(schema.attributes, p.attr.name);
  if (!def) {
    if (lenient) return state;
    if (schema === userSchema && READ_ONLY.has(p.attr.name.toLowerCase())) throw new ScimError(400, `"${p.attr.name}" is read-only`, "mutability");
    throw invalidPath(`Unknown or unsupported path ${JSON.stringify(pathText)}`);
  }
  if (def.mutability === "writeOnly") return state; // password: accepted, never stored
  if (def.mutability === "readOnly") {
    if (lenient) return state;
    throw new ScimError(400, `"${def.name}" is read-only`, "mutability");
  }
  const sub = p.attr.sub;
  if (schema === userSchema) {
    const name = def.name.toLowerCase();
    if (name === "name") return setName(state, verb, p, value, pathText);
    if (name === "emails") return setEmails(state, verb, p, value, pathText);
    const column = userColumnOf(def.name);
    if (column && !sub && !p.filter) return setColumn(state, verb, column, value);
    if (column) throw invalidPath(`${def.name} has no sub-attributes (${pathText})`);
  }
  return { ...state, profile: patchProfile(state.profile, schema.id, def, verb, p, value, pathText) };
}

/** A column attribute of the column map (src/directory/user-columns.ts), set or removed. */
function setColumn(state: UserState, verb: Verb, c: UserColumn, raw: unknown): UserState {
  const value = unwrapSingle(raw);
  if (c.field === "userName") {
    if (verb === "remove") throw new ScimError(400, "userName is required and cannot be removed", "mutability");
    if (typeof value !== "string") throw invalidValue("userName must be a string");
    return { ...state, userName: value };
  }
  return { ...state, [c.field]: verb === "remove" ? unassigned(c) : columnValue(c, value) };
}

/**
 * What a removed column attribute becomes (RFC 7644 §3.5.2.2: unassigned): no text; the default
 * seat type; for `active`, not active — so removing it deactivates, with everything that does.
 */
function unassigned(c: UserColumn): string | boolean | null {
  return c.kind === "boolean" ? false : c.kind === "userType" ? "regular" : null;
}

/** `name` and its parts: given/family/formatted are columns, the other parts profile data. */
function setName(state: UserState, verb: Verb, p: PatchPath, value: unknown, pathText: string): UserState {
  if (p.filter) throw invalidPath(`name is not multi-valued (${pathText})`);
  const def = findAttribute(userSchema.attributes, "name")!;
  const next: UserState = { ...state, profile: { ...state.profile } };
  const setPart = (part: ScimAttribute, v: unknown, remove: boolean) => {
    const column = userColumnOf(`name.${part.name}`);
    if (column) (next as Record<string, unknown>)[column.field] = remove ? null : columnValue(column, unwrapSingle(v));
    else {
      const parts: Item = { ...((next.profile.name as Item | undefined) ?? {}) };
      const n = remove ? undefined : normalizeSingle(part, unwrapSingle(v), `name.${part.name}`);
      if (n === undefined) delete parts[part.name];
      else parts[part.name] = n;
      if (Object.keys(parts).length) next.profile.name = parts;
      else delete next.profile.name;
    }
  };
  if (p.attr.sub) {
    const part = findAttribute(def.subAttributes, p.attr.sub);
    if (!part) throw invalidPath(`name has no sub-attribute "${p.attr.sub}"`);
    if (verb === "remove" && part.required) throw new ScimError(400, `name.${part.name} is required and cannot be removed`, "mutability");
    setPart(part, value, verb === "remove");
    return next;
  }
  if (verb === "remove") throw new ScimError(400, "name is required (givenName and familyName) and cannot be removed", "mutability");
  if (!isObject(value)) throw invalidValue("name must be an object");
  // RFC 7644 §3.5.2.3: sub-attributes not given are left unchanged.
  for (const part of def.subAttributes!) {
    const v = getKey(value, part.name);
    if (v !== undefined) setPart(part, v, false);
  }
  return next;
}

function setEmails(state: UserState, verb: Verb, p: PatchPath, value: unknown, pathText: string): UserState {
  const items = patchItems(state.emails as unknown as Item[], EMAILS, verb, p.filter, p.valueSub ?? p.attr.sub, value, pathText);
  return {
    ...state,
    emails: items.map((e) => ({
      value: typeof e.value === "string" ? e.value : "",
      type: typeof e.type === "string" ? e.type : null,
      primary: e.primary === true,
      ...(typeof e.display === "string" ? { display: e.display } : {}),
    })),
  };
}

/** Every attribute kept in the profile: simple, complex (sub-attributes merge) or multi-valued. */
function patchProfile(profile: Profile, schemaId: string, def: ScimAttribute, verb: Verb, p: PatchPath, value: unknown, pathText: string): Profile {
  const inExtension = schemaId !== userSchema.id;
  const container: Profile = { ...((inExtension ? profile[schemaId] : profile) as Profile | undefined) };
  const sub = p.valueSub ?? p.attr.sub;
  let next: unknown;
  if (def.multiValued) {
    next = patchItems((container[def.name] as Item[] | undefined) ?? [], def, verb, p.filter, sub, value, pathText);
  } else if (p.filter) {
    throw invalidPath(`${def.name} is not multi-valued (${pathText})`);
  } else if (def.type === "complex") {
    const current: Item = { ...((container[def.name] as Item | undefined) ?? {}) };
    if (sub) {
      const subDef = findAttribute(def.subAttributes, sub);
      if (!subDef) throw invalidPath(`${def.name} has no sub-attribute "${sub}"`);
      if (subDef.mutability === "readOnly") throw new ScimError(400, `${def.name}.${subDef.name} is read-only`, "mutability");
      const v = verb === "remove" ? undefined : normalizeSingle(subDef, unwrapSingle(value), `${def.name}.${subDef.name}`);
      if (v === undefined) delete current[subDef.name];
      else current[subDef.name] = v;
      next = current;
    } else if (verb === "remove") next = undefined;
    else next = { ...current, ...((normalizeValue(def, value, def.name) as Item | undefined) ?? {}) };
  } else {
    if (sub) throw invalidPath(`${def.name} has no sub-attributes (${pathText})`);
    next = verb === "remove" ? undefined : normalizeSingle(def, unwrapSingle(value), def.name);
  }
  const empty = next === undefined || (Array.isArray(next) && next.length === 0) || (typeof next === "object" && next !== null && Object.keys(next).length === 0);
  if (empty) delete container[def.name];
  else container[def.name] = next;
  if (!inExtension) return container;
  const out = { ...profile };
  if (Object.keys(container).length) out[schemaId] = container;
  else delete out[schemaId];
  return out;
}
