/**
 * What each User attribute path means in SQL, for filters (compileFilter's resolver) and sortBy,
 * read from the User schema (schema.ts): the attribute's type and caseExact come from its
 * definition, its location from where the directory keeps it. The list query aliases `users`
 * as `u`.
 * - Columns (the column map, src/directory/user-columns.ts): the column; `userName` through its
 *   folded key, which is indexed.
 * - emails: rows of `user_emails` (alias `e`), reached by `u.id IN (SELECT e.user_id … WHERE …)`
 *   so an `emails.value eq` probe uses the value_key index and then the primary key.
 * - groups: the memberships (`group_members` joined to `groups`).
 * - Everything else: the `profile` JSON document, through the dialect's JSON fragments (a scan of the
 *   candidate rows; the filter's size bounds keep it cheap enough).
 */
import { sql, type SQL } from "drizzle-orm";
import { ignoringCase, ignoringCaseText, jsonElementOrderText, jsonElementsText, jsonElementText, jsonValueText, parsedJsonText, type JsonKeys, type JsonType } from "../../db/dialect";
import type { ScimAttribute } from "../discovery/attributes";
import { ScimError } from "../errors";
import type { AttrPath, AttributeResolver, AttributeType, MultiValuedAttribute, ScalarAttribute } from "../filter";
import { own } from "../../lib/own";
import { caseFoldKey, displayNameKey } from "../../directory/tables";
import { USER_COLUMN_MAP, userColumnOf, type UserColumn } from "../../directory/user-columns";
import { findAttribute, userSchema, userSchemaOf } from "./schema";

const col = (c: string) => sql.raw(c);
const str = (column: string, extra: Partial<ScalarAttribute> = {}): ScalarAttribute => ({ kind: "scalar", type: "string", column: col(column), ...extra });
const pathName = (p: AttrPath) => `${p.uri ? p.uri + ":" : ""}${p.name}${p.sub ? "." + p.sub : ""}`;

const unknown = (p: AttrPath): never => {
  throw new ScimError(400, `Unknown attribute "${pathName(p)}" in filter`, "invalidFilter");
};

/** The filter compiler's type for a schema type (references and binaries compare as strings). */
function filterType(def: ScimAttribute): AttributeType {
  switch (def.type) {
    case "boolean":
    case "integer":
    case "decimal":
    case "dateTime":
      return def.type;
    default:
      return "string";
  }
}

/** How a profile value of this attribute is read from the JSON document, so it compares by its type on both engines. */
function jsonTypeOf(def: ScimAttribute): JsonType {
  const type = filterType(def);
  return type === "integer" || type === "decimal" ? "number" : type === "boolean" ? "boolean" : "text";
}

const scalarOf = (def: ScimAttribute, column: string): ScalarAttribute => ({ kind: "scalar", type: filterType(def), column: col(column), caseExact: def.caseExact });

/** A column attribute as filters see it: its key column (folded literal) or the column answers render. */
function columnAttribute(c: UserColumn): ScalarAttribute {
  if (c.key) return str(`u.${c.key.column}`, { folded: caseFoldKey });
  if (c.kind === "boolean") return { kind: "scalar", type: "boolean", column: col(`u.${c.column}`) };
  return str(`u.${c.rendered ?? c.column}`, c.caseExact ? { caseExact: true } : {});
}

/** Attributes (and name parts) stored as `users` columns, by lower-case path: the column map. */
const COLUMNS = new Map<string, ScalarAttribute>(USER_COLUMN_MAP.map((c) => [c.attribute.toLowerCase(), columnAttribute(c)]));

const emails: MultiValuedAttribute = {
  kind: "multiValued",
  within: (cond: SQL) => sql`u.id IN (SELECT e.user_id FROM user_emails e WHERE ${cond})`,
  resolveSub: (sub: string) => {
    switch (sub.toLowerCase()) {
      case "value":
        return str("e.value_key", { folded: caseFoldKey });
      case "type":
        return str("e.type");
      case "display":
        return str("e.display");
      case "primary":
        return { kind: "scalar", type: "boolean", column: col("e.is_primary") };
      default:
        throw new ScimError(400, `emails has no sub-attribute "${sub}"`, "invalidFilter");
    }
  },
  defaultSub: "value",
};

/**
 * What a workspace token's filters and sorts see of references: the groups of its own workspace,
 * a manager who is its own member. The workspace id is an integer from the token's row, written
 * as a literal (sort expressions travel as SQL text); null is the organization, which sees all.
 */
const groupsIn = (workspaceId: number | null) => (workspaceId === null ? "" : `g.workspace_id = ${Math.trunc(workspaceId)} AND `);
const memberOf = (workspaceId: number | null, idSql: string) =>
  workspaceId === null ? "" : ` AND ${idSql} IN (SELECT wm.user_id FROM workspace_members wm WHERE wm.workspace_id = ${Math.trunc(workspaceId)})`;

const groupsOf = (workspaceId: number | null): MultiValuedAttribute => ({
  kind: "multiValued",
  within: (cond: SQL) => sql`u.id IN (SELECT gm.user_id FROM group_members gm JOIN groups g ON g.id = gm.group_id WHERE ${sql.raw(groupsIn(workspaceId))}${cond})`,
  resolveSub: (sub: string) => {
    switch (sub.toLowerCase()) {
      case "value":
        return str("g.id", { caseExact: true });
      case "display":
        return str("g.display_name_key", { folded: displayNameKey });
      case "type":
        return str("'direct'");
      default:
        // $ref is the URL of `value`: filter on value instead
        throw new ScimError(400, `groups.${sub} cannot be filtered; use groups.value or groups.display`, "invalidFilter");
    }
  },
  defaultSub: "value",
});

/** id is a string in SCIM and an integer here; a non-numeric id simply matches nothing. */
const idAttribute: ScalarAttribute = {
  kind: "scalar",
  type: "integer",
  column: col("u.id"),
  toParam: (v) => (typeof v === "number" ? v : typeof v === "string" && /^\d{1,15}$/.test(v) ? Number(v) : -1),
};

/**
 * The profile document as the JSON fragments read it: parsed once per row where the engine needs
 * that, under the alias `up` the list query's FROM then adds (`PROFILE_SOURCE`, users/service.ts).
 * A function: the engine is chosen before queries are built, not when this module loads.
 */
const profileDoc = () => parsedJsonText("u.profile", PROFILE_ALIAS);
export const PROFILE_ALIAS = "up";

/** Where a profile attribute sits in the document: `nickName`, or `department` under the extension's URN. */
const profileKeys = (schemaId: string, name: string): JsonKeys => (schemaId === userSchema.id ? [name] : [schemaId, name]);

/** A multi-valued attribute kept in the profile: its entries through json_each. */
function profileMultiValued(schemaId: string, def: ScimAttribute): MultiValuedAttribute {
  return {
    kind: "multiValued",
    within: (cond: SQL) => sql`EXISTS (SELECT 1 FROM ${sql.raw(jsonElementsText(profileDoc(), profileKeys(schemaId, def.name), "j"))} WHERE ${cond})`,
    resolveSub: (sub: string) => {
      const s = findAttribute(def.subAttributes, sub);
      if (!s) throw new ScimError(400, `${def.name} has no sub-attribute "${sub}"`, "invalidFilter");
      return scalarOf(s, jsonElementText("j", [s.name], jsonTypeOf(s)));
    },
    defaultSub: "value",
  };
}

/** The resolver for a token's scope: `workspaceId` null for the organization. Built once per workspace. */
export function userFilterResolverFor(workspaceId: number | null): AttributeResolver {
  let r = resolvers.get(workspaceId);
  if (!r) resolvers.set(workspaceId, (r = resolverFor(workspaceId)));
  return r;
}
const resolvers = new Map<number | null, AttributeResolver>();

/** The organization's resolver (every group, every manager). */
export const userFilterResolver: AttributeResolver = (p) => userFilterResolverFor(null)(p);

const resolverFor = (workspaceId: number | null): AttributeResolver => {
  const groups = groupsOf(workspaceId);
  return (p) => {
    const schema = userSchemaOf(p.uri);
    if (!schema) return unknown(p);
    const name = p.name.toLowerCase();
    const sub = p.sub?.toLowerCase();
    if (schema === userSchema) {
      if (name === "id" && !sub) return idAttribute;
      if (name === "meta") {
        if (sub === "created") return { kind: "scalar", type: "dateTime", column: col("u.created_at") };
        if (sub === "lastmodified") return { kind: "scalar", type: "dateTime", column: col("u.updated_at") };
        if (sub === "resourcetype") return str("'User'");
        return unknown(p);
      }
      const multi = name === "emails" ? emails : name === "groups" ? groups : null;
      if (multi) return sub ? { ...multi.resolveSub(sub), within: multi.within } : multi;
      if (name === "name" && !sub) return str("coalesce(u.formatted_name, u.given_name, u.family_name)");
      const column = COLUMNS.get(sub ? `${name}.${sub}` : name);
      if (column) return column;
    }
    const def = findAttribute(schema.attributes, p.name);
    if (!def) return unknown(p);
    if (def.returned === "never") throw new ScimError(400, `${def.name} is never returned and cannot be filtered`, "invalidFilter");
    if (def.multiValued) {
      const multi = profileMultiValued(schema.id, def);
      return sub ? { ...multi.resolveSub(sub), within: multi.within } : multi;
    }
    if (def.type === "complex") {
      // a complex single-valued attribute without a sub-attribute means its `value` (manager)
      const s = findAttribute(def.subAttributes, p.sub ?? "value");
      if (!s || (schema === userSchema && name === "name" && userColumnOf(`name.${s.name}`))) return unknown(p);
      if (s.name === "$ref" && s.mutability === "readOnly") throw new ScimError(400, `${def.name}.$ref is the URL of ${def.name}.value: filter on that`, "invalidFilter");
      if (s.name === "displayName" && s.mutability === "readOnly") // manager.displayName: the manager's own, if the scope sees them
        return scalarOf(s, `(SELECT m.display_name FROM users m WHERE m.id = ${jsonValueText(profileDoc(), [...profileKeys(schema.id, def.name), "value"], "id")}${memberOf(workspaceId, "m.id")})`);
      return scalarOf(s, jsonValueText(profileDoc(), [...profileKeys(schema.id, def.name), s.name], jsonTypeOf(s)));
    }
    if (sub) return unknown(p);
    return scalarOf(def, jsonValueText(profileDoc(), profileKeys(schema.id, def.name), jsonTypeOf(def)));
  };
};

const EMAIL_SORT_COLUMNS: Record<string, string> = { value: "value_key", type: "type", display: "display", primary: "is_primary" };
const GROUP_SORT_COLUMNS: Record<string, string> = { value: "g.id", display: "g.display_name_key", type: "'direct'" };

/**
 * SQL to order by for a `sortBy` path: the filter's expression for single-valued attributes,
 * strings case-insensitively; a multi-valued attribute sorts by its primary (else first) entry.
 */
export function userSortExpression(p: AttrPath, workspaceId: number | null = null): SQL {
  const bad = () => new ScimError(400, `sortBy: unknown attribute "${pathName(p)}"`, "invalidValue");
  const schema = userSchemaOf(p.uri);
  if (!schema) throw bad();
  const name = p.name.toLowerCase();
  const sub = p.sub?.toLowerCase();
  if (schema === userSchema) {
    const emailColumn = own(EMAIL_SORT_COLUMNS, sub ?? "value");
    if (name === "emails" && emailColumn)
      return sql.raw(`(SELECT e.${emailColumn} FROM user_emails e WHERE e.user_id = u.id ORDER BY e.is_primary DESC, e.position LIMIT 1)`);
    const groupColumn = own(GROUP_SORT_COLUMNS, sub ?? "value");
    if (name === "groups" && groupColumn)
      return sql.raw(`(SELECT ${groupColumn} FROM group_members gm JOIN groups g ON g.id = gm.group_id WHERE ${groupsIn(workspaceId)}gm.user_id = u.id ORDER BY 1 LIMIT 1)`);
    if (name === "name" && !sub) return sql.raw(ignoringCaseText("u.formatted_name"));
    const keyed = userColumnOf(name)?.key;
    if (keyed) return sql.raw(`u.${keyed.column}`); // userName sorts by its folded key, as it compares
  }
  let resolved: ReturnType<AttributeResolver>;
  try {
    resolved = userFilterResolverFor(workspaceId)(p);
  } catch {
    throw bad();
  }
  if (resolved.kind === "multiValued" || resolved.within) {
    const def = findAttribute(schema.attributes, p.name);
    if (!def?.multiValued || schema === userSchema && (name === "emails" || name === "groups")) throw bad();
    const s = findAttribute(def.subAttributes, p.sub ?? "value") ?? def.subAttributes![0]!;
    // NULLS LAST: SQLite's order for DESC, spelled out for PostgreSQL's (an entry without `primary` is not the primary one)
    const primary = findAttribute(def.subAttributes, "primary") ? `${jsonElementText("j", ["primary"], "boolean")} DESC NULLS LAST, ` : "";
    const first = `(SELECT ${jsonElementText("j", [s.name], jsonTypeOf(s))} FROM ${jsonElementsText(profileDoc(), profileKeys(schema.id, def.name), "j")} ORDER BY ${primary}${jsonElementOrderText("j")} LIMIT 1)`;
    return sql.raw(s.type === "string" ? ignoringCaseText(first) : first);
  }
  const text = resolved.type === "string" && !resolved.caseExact && !resolved.folded;
  const expr = sql`${resolved.column}`;
  return text ? ignoringCase(expr) : expr;
}
