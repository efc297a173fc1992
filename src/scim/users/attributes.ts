/**
 * What each User attribute path means in SQL, for filters (compileFilter's resolver) and sortBy.
 * The list query aliases `users` as `u`; e-mails live in `user_emails` (alias `e`), reached by
 * `u.id IN (SELECT e.user_id … WHERE …)` so an `emails.value eq` probe uses the value_key index
 * and then the primary key (no scan of users).
 */
import { sql, type SQL } from "drizzle-orm";
import { ScimError } from "../errors";
import type { AttrPath, AttributeResolver, MultiValuedAttribute, ScalarAttribute } from "../filter";
import { caseFoldKey } from "../../directory/tables";
import { SCHEMA_USER } from "../protocol";

const col = (c: string) => sql.raw(c);
const str = (column: string, extra: Partial<ScalarAttribute> = {}): ScalarAttribute => ({ kind: "scalar", type: "string", column: col(column), ...extra });

const unknown = (p: AttrPath): never => {
  throw new ScimError(400, `Unknown attribute "${p.uri ? p.uri + ":" : ""}${p.name}${p.sub ? "." + p.sub : ""}" in filter`, "invalidFilter");
};

const emails: MultiValuedAttribute = {
  kind: "multiValued",
  within: (cond: SQL) => sql`u.id IN (SELECT e.user_id FROM user_emails e WHERE ${cond})`,
  resolveSub: (sub: string) => {
    switch (sub.toLowerCase()) {
      case "value":
        return str("e.value_key", { folded: caseFoldKey });
      case "type":
        return str("e.type");
      case "primary":
        return { kind: "scalar", type: "boolean", column: col("e.is_primary") };
      default:
        throw new ScimError(400, `emails has no sub-attribute "${sub}"`, "invalidFilter");
    }
  },
  defaultSub: "value",
};

/** id is a string in SCIM and an integer here; a non-numeric id simply matches nothing. */
const idAttribute: ScalarAttribute = {
  kind: "scalar",
  type: "integer",
  column: col("u.id"),
  toParam: (v) => (typeof v === "number" ? v : typeof v === "string" && /^\d{1,15}$/.test(v) ? Number(v) : -1),
};

function checkSchema(p: AttrPath): void {
  if (p.uri && p.uri.toLowerCase() !== SCHEMA_USER.toLowerCase()) unknown(p);
}

export const userFilterResolver: AttributeResolver = (p) => {
  checkSchema(p);
  const name = p.name.toLowerCase();
  const sub = p.sub?.toLowerCase();
  if (name === "emails") {
    if (!sub) return emails;
    return { ...emails.resolveSub(sub), within: emails.within };
  }
  if (name === "name") {
    if (sub === "givenname") return str("u.given_name");
    if (sub === "familyname") return str("u.family_name");
    if (sub === "formatted") return str("u.formatted_name");
    if (!sub) return str("coalesce(u.formatted_name, u.given_name, u.family_name)");
    return unknown(p);
  }
  if (name === "meta") {
    if (sub === "created") return { kind: "scalar", type: "dateTime", column: col("u.created_at") };
    if (sub === "lastmodified") return { kind: "scalar", type: "dateTime", column: col("u.updated_at") };
    if (sub === "resourcetype") return str("'User'");
    return unknown(p);
  }
  if (sub) return unknown(p);
  switch (name) {
    case "id":
      return idAttribute;
    case "username":
      return str("u.user_name_key", { folded: caseFoldKey });
    case "externalid":
      return str("u.external_id", { caseExact: true }); // RFC 7643: externalId is caseExact
    case "displayname":
      return str("u.display_name");
    case "title":
      return str("u.title");
    case "usertype":
      return str("u.user_type");
    case "active":
      return { kind: "scalar", type: "boolean", column: col("u.active") };
  }
  return unknown(p);
};

/** SQL to order by for a `sortBy` path; multi-valued `emails` sorts by the primary (else first) address. */
export function userSortExpression(p: AttrPath): SQL {
  const bad = () => new ScimError(400, `sortBy: unknown attribute "${p.name}${p.sub ? "." + p.sub : ""}"`, "invalidValue");
  if (p.uri && p.uri.toLowerCase() !== SCHEMA_USER.toLowerCase()) throw bad();
  const name = p.name.toLowerCase();
  const sub = p.sub?.toLowerCase();
  if (name === "emails" && (!sub || sub === "value"))
    return sql.raw("(SELECT e.value_key FROM user_emails e WHERE e.user_id = u.id ORDER BY e.is_primary DESC, e.position LIMIT 1)");
  if (name === "emails" && sub === "type")
    return sql.raw("(SELECT e.type FROM user_emails e WHERE e.user_id = u.id ORDER BY e.is_primary DESC, e.position LIMIT 1)");
  if (name === "name" && sub === "givenname") return sql.raw("u.given_name COLLATE NOCASE");
  if (name === "name" && sub === "familyname") return sql.raw("u.family_name COLLATE NOCASE");
  if (name === "name" && (sub === "formatted" || !sub)) return sql.raw("u.formatted_name COLLATE NOCASE");
  if (name === "meta" && sub === "created") return sql.raw("u.created_at");
  if (name === "meta" && sub === "lastmodified") return sql.raw("u.updated_at");
  if (sub) throw bad();
  switch (name) {
    case "id": return sql.raw("u.id");
    case "username": return sql.raw("u.user_name_key");
    case "externalid": return sql.raw("u.external_id");
    case "displayname": return sql.raw("u.display_name COLLATE NOCASE");
    case "title": return sql.raw("u.title COLLATE NOCASE");
    case "usertype": return sql.raw("u.user_type");
    case "active": return sql.raw("u.active");
  }
  throw bad();
}
