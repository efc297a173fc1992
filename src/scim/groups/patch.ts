import { plainTextProblem } from "../../directory/names";
import { ScimError } from "../errors";
import { parsePatchPath, type FilterNode } from "../filter";
import type { GroupPatchOperation } from "./model";

/**
 * Group PATCH (RFC 7644 §3.5.2), as a pure translation of the request's operations into a
 * list of steps the service runs in order inside one transaction.
 *
 * Why steps and not "apply to the group in memory": a team may hold tens of thousands of
 * members, and adding 100 of them must not load and rewrite the other 10 000. Each step maps
 * to one set-based SQL statement (see service.ts), so the cost follows the size of the
 * request, not the size of the group.
 *
 * What is accepted (and why — the spec lists only Add/Remove on `members`):
 * - `add` / `remove` on `members` with an array of `{value}` (Entra ID);
 * - `remove` on `members[value eq "42"]` (Okta, and RFC 7644's own example); `or`-joined
 *   `value eq` terms are accepted too;
 * - `remove` on `members` without a value removes every member (RFC 7644 §3.5.2.2);
 * - `replace` on `members` (Okta "push groups") and on `displayName`;
 * - `replace` without a path whose value is `{ "id", "displayName", "members"? }` (Okta's rename);
 * - `add` without a path whose value is an attribute object (RFC 7644 §3.5.2.1);
 * - `externalId` as a path or key, because IdPs set it.
 * `op` is case-insensitive ("Add", "add", "ADD"); attribute names are case-insensitive and may
 * carry the Group schema URN prefix. `id`, `schemas` and `meta` keys inside a no-path value
 * are ignored: they are read-only and Okta echoes `id` back on every rename.
 * Anything else is a 400 with `invalidPath` (unknown target), `invalidValue` (bad value or op)
 * or `noTarget` (remove without a path, as RFC 7644 §3.5.2.2 prescribes).
 */
export type GroupPatchStep =
  | { kind: "setDisplayName"; displayName: string }
  | { kind: "setExternalId"; externalId: string | null }
  | { kind: "addMembers"; userIds: number[] }
  | { kind: "removeMembers"; userIds: number[] }
  /** Replace the whole member list; `[]` removes everyone. */
  | { kind: "replaceMembers"; userIds: number[] };

const GROUP_URN_PREFIX = "urn:ietf:params:scim:schemas:core:2.0:group:";

export function planGroupPatch(operations: GroupPatchOperation[]): GroupPatchStep[] {
  if (operations.length === 0) throw new ScimError(400, "Operations must hold at least one operation", "invalidValue");
  const steps: GroupPatchStep[] = [];
  operations.forEach((operation, index) => steps.push(...planOperation(operation, index)));
  return steps;
}

function planOperation(operation: GroupPatchOperation, index: number): GroupPatchStep[] {
  const where = `Operations[${index}]`;
  const op = typeof operation.op === "string" ? operation.op.toLowerCase() : "";
  if (op !== "add" && op !== "remove" && op !== "replace")
    throw new ScimError(400, `${where}: op must be "add", "remove" or "replace" (got ${JSON.stringify(operation.op)})`, "invalidValue");
  const path = operation.path === undefined || operation.path === null ? "" : String(operation.path).trim();
  const value = operation.value;

  if (path === "") {
    if (op === "remove") throw new ScimError(400, `${where}: remove needs a path`, "noTarget");
    return planAttributeObject(op, value, where);
  }

  const target = parseGroupPath(path, where);
  switch (target.kind) {
    case "members":
      if (op === "add") return [{ kind: "addMembers", userIds: memberIds(value, `${where}.value`) }];
      if (op === "replace") return [{ kind: "replaceMembers", userIds: memberIds(value, `${where}.value`) }];
      // remove: with a value array only those members (Entra), without one every member (RFC).
      if (value === undefined || value === null) return [{ kind: "replaceMembers", userIds: [] }];
      return [{ kind: "removeMembers", userIds: memberIds(value, `${where}.value`) }];
    case "memberFilter":
      if (op !== "remove")
        throw new ScimError(400, `${where}: a member filter path is only supported with remove (members have no sub-attribute to ${op})`, "invalidPath");
      return [{ kind: "removeMembers", userIds: target.userIds }];
    case "displayName":
      if (op === "remove") throw new ScimError(400, `${where}: displayName is required and cannot be removed`, "mutability");
      return [{ kind: "setDisplayName", displayName: displayNameValue(value, `${where}.value`) }];
    case "externalId":
      if (op === "remove") return [{ kind: "setExternalId", externalId: null }];
      return [{ kind: "setExternalId", externalId: externalIdValue(value, `${where}.value`) }];
  }
}

/** A no-path add/replace: the value is a partial Group whose keys name the attributes. */
function planAttributeObject(op: "add" | "replace", value: unknown, where: string): GroupPatchStep[] {
  if (!isPlainObject(value))
    throw new ScimError(400, `${where}: without a path, value must be an object of Group attributes`, "invalidValue");
  const steps: GroupPatchStep[] = [];
  for (const [rawKey, v] of Object.entries(value)) {
    const key = stripGroupUrn(rawKey).toLowerCase();
    if (key === "id" || key === "schemas" || key === "meta") continue; // read-only, echoed by Okta
    if (key === "displayname") steps.push({ kind: "setDisplayName", displayName: displayNameValue(v, `${where}.value.${rawKey}`) });
    else if (key === "externalid") steps.push({ kind: "setExternalId", externalId: externalIdValue(v, `${where}.value.${rawKey}`) });
    else if (key === "members") {
      const userIds = memberIds(v, `${where}.value.${rawKey}`);
      steps.push(op === "add" ? { kind: "addMembers", userIds } : { kind: "replaceMembers", userIds });
    } else throw new ScimError(400, `${where}: unknown Group attribute "${rawKey}"`, "invalidPath");
  }
  return steps;
}

type PathTarget =
  | { kind: "members" }
  | { kind: "memberFilter"; userIds: number[] }
  | { kind: "displayName" }
  | { kind: "externalId" };

/**
 * Resolves a PATCH path (parsed by the shared `parsePatchPath`) to one of the few targets a
 * Group has. Exported for tests.
 */
export function parseGroupPath(rawPath: string, where = "path"): PathTarget {
  const unsupported = (): never => {
    throw new ScimError(400, `${where}: unsupported path "${rawPath}" (Group paths: members, members[value eq "id"], displayName, externalId)`, "invalidPath");
  };
  const parsed = parsePatchPath(rawPath);
  const { attr, filter, valueSub } = parsed;
  if (attr.uri && attr.uri.toLowerCase() !== GROUP_URN_PREFIX.slice(0, -1)) unsupported();
  const name = attr.name.toLowerCase();
  if (attr.sub || valueSub) unsupported();
  if (name === "members") return filter ? { kind: "memberFilter", userIds: memberFilterIds(filter, rawPath, where) } : { kind: "members" };
  if (filter) unsupported();
  if (name === "displayname") return { kind: "displayName" };
  if (name === "externalid") return { kind: "externalId" };
  return unsupported();
}

/**
 * The users named by `members[value eq "42"]`, also `or`-joined (`value eq "1" or value eq "2"`).
 * Anything richer (other sub-attributes, other operators, and/not) names no member we could act
 * on → invalidPath.
 */
function memberFilterIds(node: FilterNode, rawPath: string, where: string): number[] {
  switch (node.op) {
    case "or":
      return [...memberFilterIds(node.left, rawPath, where), ...memberFilterIds(node.right, rawPath, where)];
    case "compare":
      if (node.compare === "eq" && !node.attr.uri && !node.attr.sub && node.attr.name.toLowerCase() === "value") {
        const v = node.value;
        const id = typeof v === "string" || typeof v === "number" ? toUserId(v) : null;
        return id === null ? [] : [id];
      }
  }
  throw new ScimError(400, `${where}: unsupported member filter in "${rawPath}" (expected members[value eq "id"])`, "invalidPath");
}

function stripGroupUrn(key: string): string {
  return key.toLowerCase().startsWith(GROUP_URN_PREFIX) ? key.slice(GROUP_URN_PREFIX.length) : key;
}

/**
 * The user ids named by a members value: an array of `{ value, type?, display?, $ref? }`
 * (a single object is read as a one-element array). `value` may be a string or a number.
 * Values that cannot name a workspace user (not a positive integer, or `type` other than
 * `User`, i.e. a nested group) are skipped like any unknown member — the spec skips unknown
 * members silently. A member without a string/number `value` is malformed → invalidValue.
 */
export function memberIds(value: unknown, where: string): number[] {
  const list = Array.isArray(value) ? value : isPlainObject(value) ? [value] : null;
  if (list === null) throw new ScimError(400, `${where}: members must be an array of {"value": "<user id>"}`, "invalidValue");
  const ids: number[] = [];
  list.forEach((member, i) => {
    if (!isPlainObject(member)) throw new ScimError(400, `${where}[${i}]: a member must be an object with a "value"`, "invalidValue");
    const v = member.value;
    if (typeof v !== "string" && typeof v !== "number")
      throw new ScimError(400, `${where}[${i}].value: must be the user id as a string or number`, "invalidValue");
    const type = member.type;
    if (type !== undefined && type !== null && (typeof type !== "string" || type.toLowerCase() !== "user")) return;
    const id = toUserId(v);
    if (id !== null) ids.push(id);
  });
  return ids;
}

/** "42" or 42 → 42; anything that cannot be a user id → null (skipped as unknown). */
export function toUserId(v: string | number): number | null {
  if (typeof v === "number") return Number.isSafeInteger(v) && v > 0 ? v : null;
  const s = v.trim();
  if (!/^\d{1,16}$/.test(s)) return null;
  const n = Number(s);
  return Number.isSafeInteger(n) && n > 0 ? n : null;
}

export function displayNameValue(value: unknown, where: string): string {
  if (typeof value !== "string" || value.trim() === "")
    throw new ScimError(400, `${where}: displayName must be a non-empty string`, "invalidValue");
  const problem = plainTextProblem("displayName", value);
  if (problem) throw new ScimError(400, `${where}: ${problem}`, "invalidValue");
  return value;
}

function externalIdValue(value: unknown, where: string): string | null {
  if (value === null) return null;
  if (typeof value !== "string") throw new ScimError(400, `${where}: externalId must be a string`, "invalidValue");
  return value;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
