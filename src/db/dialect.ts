/**
 * The SQL that differs between engines, as fragments features build their queries from: lists
 * bound as one parameter, JSON documents, case-insensitive comparison and order, substring
 * search. A feature writes the rest of its SQL in the part both engines speak (drizzle's query
 * builder, or plain SELECT/INSERT/UPDATE/DELETE with `ON CONFLICT … DO NOTHING/UPDATE` and
 * `RETURNING`); what only SQLite understands (json_each, json_extract, COLLATE NOCASE, INSERT OR
 * IGNORE, PRAGMA…) is written here and nowhere else (test/db/storage-seam.test.ts checks).
 *
 * Each builder comes in the form its callers assemble: drizzle `SQL` (bound parameters), or SQL
 * text for expressions assembled as text (the SCIM attribute resolver, prepared statements).
 * Insert-if-absent needs no builder: `.onConflictDoNothing()` in drizzle, `ON CONFLICT DO
 * NOTHING` in text (`INSERT … SELECT … WHERE … ON CONFLICT DO NOTHING`: the SELECT needs its
 * WHERE, or SQLite reads the ON as a join's).
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";

export { containsText } from "./contains";

/** A list bound as one parameter: one statement text (and one cached statement) whatever its length. */
export type ListValue = string | number;

/** The parameter value of a list (`inListText`, `listTable`): on SQLite a JSON array. */
export function listParam(values: readonly ListValue[]): string {
  return JSON.stringify(values);
}

/** `expr` is one of `values` (false for none), the list bound as one parameter. */
export function inList(expr: SQLWrapper, values: readonly ListValue[]): SQL {
  return sql`${expr} IN (SELECT value FROM json_each(${listParam(values)}))`;
}

/** `expr` is none of `values` (true for none), the list bound as one parameter. */
export function notInList(expr: SQLWrapper, values: readonly ListValue[]): SQL {
  return sql`${expr} NOT IN (SELECT value FROM json_each(${listParam(values)}))`;
}

/** Text form of `inList` for prepared statements: `param` is the placeholder (`?1`) bound to `listParam(values)`. */
export function inListText(expr: string, param: string): string {
  return `${expr} IN (SELECT value FROM json_each(${param}))`;
}

/**
 * The list as a table to join or select from, its entries in the column `listEntry(alias)`, in
 * the list's order: `SELECT … FROM ${listTable(ids, "j")} CROSS JOIN users ON users.id = ${listEntry("j")}`.
 */
export function listTable(values: readonly ListValue[], alias: string): SQL {
  return sql`json_each(${listParam(values)}) AS ${sql.raw(alias)}`;
}

/** The entry column of `listTable(…, alias)`. */
export function listEntry(alias: string): SQL {
  return sql.raw(`${alias}.value`);
}

/** A JSON array column holds at least one of `values`. */
export function jsonArrayHasAny(column: SQLWrapper, values: readonly ListValue[]): SQL {
  return sql`EXISTS (SELECT 1 FROM json_each(${column}) WHERE value IN (SELECT value FROM json_each(${listParam(values)})))`;
}

/**
 * A path into a JSON document as keys (`["urn:…:enterprise:2.0:User", "manager", "value"]`).
 * Keys are quoted as the engine needs; they come from schemas, never from requests, and still
 * may not contain a double quote.
 */
export type JsonKeys = readonly string[];

function sqliteJsonPath(keys: JsonKeys): string {
  let path = "$";
  for (const key of keys) {
    if (key.includes('"')) throw new Error(`JSON key ${key} contains a double quote`);
    path += /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `."${key}"`;
  }
  return `'${path.replaceAll("'", "''")}'`;
}

/** SQL text: the scalar at `keys` in the JSON document `doc` (SQL text), as SQL's own type; null when absent. */
export function jsonValueText(doc: string, keys: JsonKeys): string {
  return `json_extract(${doc}, ${sqliteJsonPath(keys)})`;
}

/** `jsonValueText` over a drizzle column or expression. */
export function jsonValue(doc: SQLWrapper, keys: JsonKeys): SQL {
  return sql`json_extract(${doc}, ${sql.raw(sqliteJsonPath(keys))})`;
}

/**
 * SQL text: the elements of the JSON array at `keys` in `doc`, as a table named `alias` (none
 * when it is absent or not an array). `jsonElementText(alias, …)` reads an element, and
 * `jsonElementOrderText(alias)` orders them as in the array.
 */
export function jsonElementsText(doc: string, keys: JsonKeys, alias: string): string {
  return `json_each(${doc}, ${sqliteJsonPath(keys)}) ${alias}`;
}

/** SQL text: an element of `jsonElementsText(…, alias)`, or its member at `keys` when the element is an object. */
export function jsonElementText(alias: string, keys: JsonKeys = []): string {
  return keys.length === 0 ? `${alias}.value` : `json_extract(${alias}.value, ${sqliteJsonPath(keys)})`;
}

/** SQL text: the position of an element of `jsonElementsText(…, alias)` in its array. */
export function jsonElementOrderText(alias: string): string {
  return `${alias}.key`;
}

/**
 * `expr` compared and ordered ignoring ASCII case (`=`, `<`, `ORDER BY`). Unicode case folding
 * is not the engine's: columns that must fold it store a folded key (directory/tables.ts).
 */
export function ignoringCase(expr: SQLWrapper): SQL {
  return sql`${expr} COLLATE NOCASE`;
}

/** Text form of `ignoringCase`. */
export function ignoringCaseText(expr: string): string {
  return `${expr} COLLATE NOCASE`;
}

/** `haystack` contains `needle` as is (no pattern characters); both are SQL expressions (e.g. lowered). */
export function includesText(haystack: SQLWrapper, needle: SQLWrapper): SQL {
  return sql`instr(${haystack}, ${needle}) > 0`;
}

/**
 * The order rows were inserted in, for tables whose key is not a sequence (`tms_results`, keyed by
 * hash): on SQLite the implicit rowid. `alias` qualifies it in joins.
 */
export function insertionOrderText(alias?: string): string {
  return alias ? `${alias}.rowid` : "rowid";
}

/** `insertionOrderText` as drizzle SQL, for `orderBy`. */
export function insertionOrder(alias?: string): SQL {
  return sql.raw(insertionOrderText(alias));
}

const engineDialect = new SQLiteSyncDialect();

/**
 * A drizzle fragment as the engine's SQL text and its bound parameters, for statements assembled
 * around it as text and prepared once per text (the SCIM list queries).
 */
export function queryText(fragment: SQL): { sql: string; params: unknown[] } {
  return engineDialect.sqlToQuery(fragment);
}
