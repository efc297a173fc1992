/**
 * Compiles a parsed filter (parser.ts) into one drizzle `sql` fragment for a WHERE clause, with
 * every literal a bound parameter. What an attribute means in SQL is the caller's business: it
 * passes a resolver (see `AttributeResolver`), so users and groups share this compiler while
 * knowing different attributes. Pure: no database access.
 *
 * NULL handling: every condition is two-valued (true/false, never NULL), so `not (title eq "x")`
 * matches users without a title, as RFC 7644's "not" means. `eq`/`ne` use the dialect's null-safe
 * `isEqual`/`isNotEqual`, which can still use an index. Whatever differs by engine (case folding,
 * substrings, JSON values) comes from the storage seam's fragments (src/db/dialect.ts).
 */
import { sql, type SQL } from "drizzle-orm";
import { endsWithText, foldCase, includesText, isEqual, isNotEqual, startsWithText } from "../../db/dialect";
import { ScimError } from "../errors";
import type { AttrPath, CompareOp, FilterNode, FilterValue } from "./parser";

export type AttributeType = "string" | "boolean" | "dateTime" | "integer" | "decimal";

export type ScalarAttribute = {
  kind: "scalar";
  type: AttributeType;
  /** SQL expression holding the value (a column, usually). */
  column: SQL;
  /** RFC 7643 caseExact; false (the default) compares case-insensitively. */
  caseExact?: boolean;
  /** The column holds a folded key (an indexable key column); this folds a literal the same way. */
  folded?: (value: string) => string;
  /** Converts/validates a filter literal into the bound parameter (throw ScimError to refuse). */
  toParam?: (value: FilterValue) => unknown;
  /** For sub-attributes of a multi-valued attribute: wraps the condition (e.g. `id IN (SELECT …)`). */
  within?: (condition: SQL) => SQL;
};

export type MultiValuedAttribute = {
  kind: "multiValued";
  /** Wraps a condition on the child rows into one on the parent row, e.g. `users.id IN (SELECT user_id FROM user_emails WHERE <cond>)`. */
  within: (condition: SQL) => SQL;
  /** Resolves sub-attribute names (`value`, `type`, `primary`) inside `within`. */
  resolveSub: (sub: string) => ScalarAttribute;
  /** Sub-attribute compared when the filter names the attribute itself (`emails co "@x"`): `value`. */
  defaultSub: string;
};

/** Maps an attribute path (compare names case-insensitively) or throws ScimError invalidFilter. */
export type AttributeResolver = (path: AttrPath) => ScalarAttribute | MultiValuedAttribute;

export type CompileOptions = {
  /** Groups do not support `not` (spec 4.2 rule 3): false → 400 invalidFilter. Default true. */
  allowNot?: boolean;
};

const invalid = (detail: string): never => {
  throw new ScimError(400, detail, "invalidFilter");
};

export const pathText = (p: AttrPath) => `${p.name}${p.sub ? `.${p.sub}` : ""}`;

export function compileFilter(node: FilterNode, resolve: AttributeResolver, options: CompileOptions = {}): SQL {
  const allowNot = options.allowNot !== false;

  const scalar = (attr: ScalarAttribute, path: AttrPath, cond: (a: ScalarAttribute) => SQL) =>
    attr.within ? attr.within(cond(attr)) : cond(attr);

  const walk = (n: FilterNode): SQL => {
    switch (n.op) {
      case "and":
        return sql`(${walk(n.left)} AND ${walk(n.right)})`;
      case "or":
        return sql`(${walk(n.left)} OR ${walk(n.right)})`;
      case "not":
        if (!allowNot) invalid("The not operator is not supported here");
        return sql`(NOT ${walk(n.filter)})`;
      case "present": {
        const a = resolve(n.attr);
        if (a.kind === "multiValued") return a.within(sql`TRUE`);
        return scalar(a, n.attr, (s) => presentCondition(s));
      }
      case "compare": {
        const a = resolve(n.attr);
        if (a.kind === "multiValued") {
          const sub = a.resolveSub(a.defaultSub);
          return a.within(compareCondition(sub, n.compare, n.value, n.attr));
        }
        return scalar(a, n.attr, (s) => compareCondition(s, n.compare, n.value, n.attr));
      }
      case "valuePath": {
        const a = resolve(n.attr);
        if (a.kind !== "multiValued") return invalid(`"${pathText(n.attr)}" is not multi-valued; a [filter] cannot apply to it`);
        const inner = compileFilter(n.filter, (p) => {
          if (p.uri || p.sub) invalid(`Inside ${n.attr.name}[…] name sub-attributes only, not "${pathText(p)}"`);
          return a.resolveSub(p.name);
        }, options);
        return a.within(inner);
      }
    }
  };
  return walk(node);
}

function presentCondition(a: ScalarAttribute): SQL {
  if (a.type === "string") return sql`(${a.column} IS NOT NULL AND ${a.column} <> '')`;
  return sql`(${a.column} IS NOT NULL)`;
}

function compareCondition(a: ScalarAttribute, op: CompareOp, value: FilterValue, path: AttrPath): SQL {
  const name = pathText(path);
  if (value === null) {
    if (op === "eq") return sql`(${a.column} IS NULL)`;
    if (op === "ne") return sql`(${a.column} IS NOT NULL)`;
    return invalid(`"${op} null" is not a valid comparison for "${name}"`);
  }
  let param: unknown;
  if (a.toParam) param = a.toParam(value);
  else param = literalFor(a.type, value, name);

  const isText = a.type === "string";
  if ((op === "co" || op === "sw" || op === "ew") && !isText) invalid(`"${op}" needs a string attribute; "${name}" is ${a.type}`);
  if (a.type === "boolean" && op !== "eq" && op !== "ne") invalid(`"${op}" is not defined for the boolean "${name}"`);

  let col: SQL = a.column;
  let p: SQL = sql`${param}`;
  if (isText && !a.caseExact) {
    if (a.folded) p = sql`${a.folded(String(param))}`;
    else {
      col = foldCase(a.column);
      p = foldCase(sql`${param}`);
    }
  }
  const notNull = sql`${a.column} IS NOT NULL`;
  switch (op) {
    case "eq":
      return sql`(${isEqual(col, p)})`;
    case "ne":
      return sql`(${isNotEqual(col, p)})`;
    case "co":
      if (param === "") return sql`(${notNull})`;
      return sql`(${notNull} AND ${includesText(col, p)})`;
    case "sw":
      if (param === "") return sql`(${notNull})`;
      return sql`(${notNull} AND ${startsWithText(col, p)})`;
    case "ew":
      if (param === "") return sql`(${notNull})`;
      return sql`(${notNull} AND ${endsWithText(col, p)})`;
    case "gt":
      return sql`(${notNull} AND ${col} > ${p})`;
    case "ge":
      return sql`(${notNull} AND ${col} >= ${p})`;
    case "lt":
      return sql`(${notNull} AND ${col} < ${p})`;
    case "le":
      return sql`(${notNull} AND ${col} <= ${p})`;
  }
}

/** Checks a literal against the attribute type and turns it into what the database stores (booleans 1/0, dateTimes ISO text). */
function literalFor(type: AttributeType, value: Exclude<FilterValue, null>, name: string): unknown {
  switch (type) {
    case "string":
      if (typeof value !== "string") return invalid(`"${name}" is a string; write the value in double quotes`);
      return value;
    case "boolean":
      if (typeof value === "boolean") return value ? 1 : 0;
      if (typeof value === "string" && /^(true|false)$/i.test(value)) return value.toLowerCase() === "true" ? 1 : 0;
      return invalid(`"${name}" is a boolean; compare it with true or false`);
    case "integer":
      if (typeof value === "number" && Number.isInteger(value)) return value;
      return invalid(`"${name}" is an integer`);
    case "decimal":
      if (typeof value === "number") return value;
      return invalid(`"${name}" is a number`);
    case "dateTime": {
      if (typeof value !== "string") return invalid(`"${name}" is a dateTime; write it as a quoted ISO 8601 string`);
      const ms = Date.parse(value);
      if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(ms)) return invalid(`"${value}" is not an ISO 8601 dateTime`);
      return new Date(ms).toISOString();
    }
  }
}
