/**
 * User attributes read through the schema (schema.ts): request values normalised into what is
 * stored, and the generic PATCH of multi-valued attributes. Pure.
 *
 * The profile is the part of a user that the directory's rules do not read: every attribute of
 * the User schema and the enterprise extension that is not a `users` column, stored as one JSON
 * document in the SCIM shape — `{ nickName, phoneNumbers: [...], name: { middleName },
 * "urn:…:enterprise:2.0:User": { department, manager: { value } } }` — so it renders by merging.
 */
import type { ScimAttribute } from "../discovery/attributes";
import { ScimError } from "../errors";
import type { FilterNode } from "../filter";
import { SCHEMA_ENTERPRISE_USER } from "../protocol";
import { COLUMN_ATTRIBUTES, COLUMN_NAME_PARTS, MAX_TEXT } from "../../directory/user-columns";
import { enterpriseUserSchema, findAttribute, userSchema } from "./schema";
import { toBoolean } from "./values";

export type Profile = Record<string, unknown>;
export type Item = Record<string, unknown>;
export type Verb = "add" | "replace" | "remove";

const MAX_BINARY = 16_384;
const MAX_ITEMS = 100;

const invalidValue = (detail: string) => new ScimError(400, detail, "invalidValue");

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === "object" && !Array.isArray(v);

/** `obj[name]` with the key compared case-insensitively (RFC 7643 §2.1). */
export function getKey(obj: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(obj, name)) return obj[name];
  const lower = name.toLowerCase();
  for (const k of Object.keys(obj)) if (k.toLowerCase() === lower) return obj[k];
  return undefined;
}

/**
 * One attribute value as it will be stored, or undefined when it is empty (null, "", [], {}),
 * which RFC 7643 §2.5 treats as unassigned. Wrong types → 400 invalidValue naming `where`.
 * Read-only sub-attributes (e.g. manager.displayName) are dropped: the server computes them.
 */
export function normalizeValue(def: ScimAttribute, raw: unknown, where: string): unknown {
  if (raw === undefined || raw === null) return undefined;
  if (def.multiValued) {
    const list = Array.isArray(raw) ? raw : [raw];
    if (list.length > MAX_ITEMS) throw invalidValue(`${where}: at most ${MAX_ITEMS} values`);
    const items = list.map((x, i) => normalizeSingle(def, x, `${where}[${i}]`)).filter((x) => x !== undefined);
    return items.length ? onePrimary(items as Item[]) : undefined;
  }
  return normalizeSingle(def, raw, where);
}

export function normalizeSingle(def: ScimAttribute, raw: unknown, where: string): unknown {
  if (raw === undefined || raw === null) return undefined;
  switch (def.type) {
    case "complex": {
      // A bare value for a complex attribute is its `value` (Entra sends the manager's id as a string).
      const obj = isObject(raw) ? raw : !def.multiValued && findAttribute(def.subAttributes, "value") && typeof raw !== "object" ? { value: raw } : null;
      if (!obj) throw invalidValue(`${where} must be an object`);
      const out: Item = {};
      for (const sub of def.subAttributes ?? []) {
        if (sub.mutability === "readOnly") continue;
        const v = normalizeSingle(sub, getKey(obj, sub.name), `${where}.${sub.name}`);
        if (v !== undefined) out[sub.name] = v;
      }
      return Object.keys(out).length ? out : undefined;
    }
    case "boolean":
      return toBoolean(raw, where);
    case "integer":
    case "decimal":
      if (typeof raw !== "number" || (def.type === "integer" && !Number.isInteger(raw))) throw invalidValue(`${where} must be a number`);
      return raw;
    default: {
      if (typeof raw !== "string") throw invalidValue(`${where} must be a string`);
      const max = def.type === "binary" ? MAX_BINARY : MAX_TEXT;
      if (raw.length > max) throw invalidValue(`${where} is longer than ${max} characters`);
      return raw === "" ? undefined : raw;
    }
  }
}

/** RFC 7643 §2.4: at most one `primary` true; later ones are demoted. */
function onePrimary(items: Item[]): Item[] {
  let seen = false;
  for (const item of items) {
    if (item.primary === true) {
      if (seen) item.primary = false;
      seen = true;
    }
  }
  return items;
}

/** Profile attributes of a schema: the writable ones that are not `users` columns. */
function profileAttributes(schemaId: string): ScimAttribute[] {
  const list = schemaId === SCHEMA_ENTERPRISE_USER ? enterpriseUserSchema.attributes : userSchema.attributes;
  return list.filter((a) => a.mutability !== "readOnly" && a.mutability !== "writeOnly" && (schemaId === SCHEMA_ENTERPRISE_USER || !COLUMN_ATTRIBUTES.has(a.name.toLowerCase())));
}

/** The profile part of a POST/PUT body (attribute names case-insensitive; unknown ones ignored). */
export function profileFromBody(body: Record<string, unknown>): Profile {
  const profile: Profile = {};
  for (const def of profileAttributes(userSchema.id)) {
    if (def.name === "name") {
      const name = getKey(body, "name");
      if (name === undefined || name === null) continue;
      if (!isObject(name)) throw invalidValue("name must be an object");
      const parts = normalizeSingle({ ...def, subAttributes: def.subAttributes!.filter((s) => !COLUMN_NAME_PARTS.has(s.name.toLowerCase())) }, name, "name");
      if (parts !== undefined) profile.name = parts;
      continue;
    }
    const v = normalizeValue(def, getKey(body, def.name), def.name);
    if (v !== undefined) profile[def.name] = v;
  }
  const ext = getKey(body, SCHEMA_ENTERPRISE_USER);
  if (ext !== undefined && ext !== null) {
    if (!isObject(ext)) throw invalidValue(`${SCHEMA_ENTERPRISE_USER} must be an object`);
    const out: Profile = {};
    for (const def of profileAttributes(SCHEMA_ENTERPRISE_USER)) {
      const v = normalizeValue(def, getKey(ext, def.name), `${SCHEMA_ENTERPRISE_USER}:${def.name}`);
      if (v !== undefined) out[def.name] = v;
    }
    if (Object.keys(out).length) profile[SCHEMA_ENTERPRISE_USER] = out;
  }
  return profile;
}

// ---------------------------------------------------------------------------------------------
// PATCH of a multi-valued complex attribute (emails, phoneNumbers, addresses, …): RFC 7644
// §3.5.2 with the forms IdPs send, e.g. `phoneNumbers[type eq "work"].value`, which creates the
// entry from the filter's equalities when none matches (Entra's first sync of a work phone).

/**
 * Applies one operation to `items` (a multi-valued attribute described by `def`) and returns the
 * new list. `filter` is the value filter of the path, `sub` the sub-attribute after it.
 */
export function patchItems(items: Item[], def: ScimAttribute, verb: Verb, filter: FilterNode | undefined, sub: string | undefined, value: unknown, pathText: string): Item[] {
  const subDef = sub === undefined ? undefined : findAttribute(def.subAttributes, sub);
  if (sub !== undefined && !subDef) throw new ScimError(400, `${def.name} has no sub-attribute "${sub}" (${pathText})`, "invalidPath");
  if (subDef?.mutability === "readOnly") throw new ScimError(400, `${def.name}.${subDef.name} is read-only`, "mutability");
  if (filter) checkItemFilter(def, filter, pathText);
  const same = (a: Item, b: Item) => a.value !== undefined && String(a.value).toLowerCase() === String(b.value ?? "").toLowerCase();

  if (!filter && !subDef) {
    if (verb === "remove") return [];
    const given = (normalizeValue(def, value, pathText) as Item[] | undefined) ?? [];
    if (verb === "replace") return given;
    // add: merge by value (case-insensitive), append the rest
    const out = items.map((e) => ({ ...e }));
    for (const g of given) {
      const at = g.value === undefined ? -1 : out.findIndex((e) => same(e, g));
      if (at >= 0) out[at] = g;
      else out.push(g);
    }
    return onePrimary(out);
  }

  const matches = (e: Item) => (filter ? matchItem(filter, e) : true);
  const setSub = (e: Item, s: ScimAttribute, raw: unknown): Item => {
    const next = { ...e };
    const v = verb === "remove" ? undefined : normalizeSingle(s, unwrapSingle(raw), `${pathText}`);
    if (v === undefined) delete next[s.name];
    else next[s.name] = v;
    return next;
  };
  let out: Item[];
  if (verb === "remove") {
    // removing an entry, or its `value` (which is the entry), drops it; another sub-attribute is cleared
    if (!subDef || subDef.name === "value") out = items.filter((e) => !matches(e));
    else out = items.map((e) => (matches(e) ? setSub(e, subDef, undefined) : e));
  } else if (!subDef) {
    // attr[filter] with a value object: update the matches' sub-attributes, or create the entry
    if (!isObject(value)) throw invalidValue(`${pathText} needs an object value`);
    const apply = (e: Item) => (def.subAttributes ?? []).reduce((acc, s) => (getKey(value, s.name) === undefined || s.mutability === "readOnly" ? acc : setSub(acc, s, getKey(value, s.name))), e);
    out = items.some(matches) ? items.map((e) => (matches(e) ? apply(e) : e)) : [...items, apply(itemFromFilter(def, filter!, pathText))];
  } else if (items.some(matches)) out = items.map((e) => (matches(e) ? setSub(e, subDef, value) : e));
  else if (!filter) out = [setSub({}, subDef, value)];
  else out = [...items, setSub(itemFromFilter(def, filter, pathText), subDef, value)];
  if (out.length > MAX_ITEMS) throw invalidValue(`${def.name}: at most ${MAX_ITEMS} values`);
  // a primary set on one entry demotes the others (RFC 7644 §3.5.2)
  if (subDef?.name === "primary" && verb !== "remove") {
    const chosen = out.findIndex((e) => matches(e) && e.primary === true);
    if (chosen >= 0) out = out.map((e, i) => (i !== chosen && e.primary === true ? { ...e, primary: false } : e));
  }
  return onePrimary(out.filter((e) => Object.keys(e).length > 0));
}

/** Entra sometimes wraps a single value as `[{"value": x}]`; unwrap that one shape. */
export function unwrapSingle(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 1 && isObject(value[0]) && "value" in value[0]) return value[0].value;
  return value;
}

function checkItemFilter(def: ScimAttribute, f: FilterNode, pathText: string): void {
  switch (f.op) {
    case "and":
    case "or":
      checkItemFilter(def, f.left, pathText);
      checkItemFilter(def, f.right, pathText);
      return;
    case "not":
      checkItemFilter(def, f.filter, pathText);
      return;
    case "valuePath":
      throw new ScimError(400, `Nested value filter in ${pathText}`, "invalidPath");
    default:
      if (f.attr.sub || f.attr.uri || !findAttribute(def.subAttributes, f.attr.name))
        throw new ScimError(400, `${def.name} has no sub-attribute "${f.attr.name}" (${pathText})`, "invalidPath");
  }
}

/** Evaluates a value filter on one entry (strings compare case-insensitively). */
export function matchItem(f: FilterNode, e: Item): boolean {
  switch (f.op) {
    case "and":
      return matchItem(f.left, e) && matchItem(f.right, e);
    case "or":
      return matchItem(f.left, e) || matchItem(f.right, e);
    case "not":
      return !matchItem(f.filter, e);
    case "valuePath":
      return false;
    case "present": {
      const v = getKey(e, f.attr.name);
      return v !== null && v !== "" && v !== undefined;
    }
    case "compare": {
      const actual = getKey(e, f.attr.name) ?? null;
      const want = f.value;
      if (typeof actual === "boolean" || typeof want === "boolean") {
        const a = actual === null ? false : actual;
        const w = typeof want === "string" ? want.toLowerCase() === "true" : want;
        if (f.compare === "eq") return a === w;
        if (f.compare === "ne") return a !== w;
        return false;
      }
      if (want === null) return f.compare === "eq" ? actual === null : f.compare === "ne" ? actual !== null : false;
      if (actual === null) return f.compare === "ne";
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

/** The entry a filter like `type eq "work"` (and-ed equalities) describes, to create it when missing. */
function itemFromFilter(def: ScimAttribute, f: FilterNode, pathText: string): Item {
  const out: Item = {};
  const walk = (n: FilterNode) => {
    if (n.op === "and") {
      walk(n.left);
      walk(n.right);
    } else if (n.op === "compare" && n.compare === "eq" && n.value !== null) {
      const sub = findAttribute(def.subAttributes, n.attr.name)!; // checkItemFilter ran
      const v = normalizeSingle(sub, n.value, `${pathText}: ${sub.name}`);
      if (v !== undefined) out[sub.name] = v;
    } else throw new ScimError(400, `No entry matches ${pathText}, and the filter does not describe one to create`, "noTarget");
  };
  walk(f);
  return out;
}
