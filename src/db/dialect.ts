/**
 * The SQL that differs between engines, as fragments features build their queries from: lists
 * bound as one parameter, JSON documents, case-insensitive comparison and order, substring
 * search, insertion order. A feature writes the rest of its SQL in the part both engines speak
 * (drizzle's query builder, or plain SELECT/INSERT/UPDATE/DELETE with `ON CONFLICT … DO
 * NOTHING/UPDATE` and `RETURNING`); what only one engine understands (json_each, json_extract,
 * COLLATE NOCASE, INSERT OR IGNORE, PRAGMA… or jsonb, `= ANY`, `#>>`) is written here and nowhere
 * else (test/db/storage-seam.test.ts checks SQLite's side).
 *
 * Each fragment is built in the form of the process's engine (`isPostgres()`, fixed before any
 * query is built), so one call site serves both; docs/storage-postgres.md ("SQL that differs by
 * engine") lists the two forms and why. Each builder comes in the form its callers assemble:
 * drizzle `SQL` (bound parameters), or SQL text for expressions assembled as text (the SCIM
 * attribute resolver, QQL, prepared statements). Insert-if-absent needs no builder:
 * `.onConflictDoNothing()` in drizzle, `ON CONFLICT DO NOTHING` in text (`INSERT … SELECT …
 * WHERE … ON CONFLICT DO NOTHING`: the SELECT needs its WHERE, or SQLite reads the ON as a join's).
 *
 * PostgreSQL stores JSON documents as `text` (the columns mirror SQLite's storage classes), so its
 * fragments cast `(doc)::jsonb` where they need JSON operators; they use no `?` operator (`?|`,
 * `?&`), since statement texts write their parameters as `?`/`?N` (`postgresPlaceholders`).
 */
import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { isPostgres } from "./engine";

export { containsText, foldCaseLiteral } from "./contains";

/** A list bound as one parameter: one statement text (and one cached statement) whatever its length. */
export type ListValue = string | number;

/** A PostgreSQL array literal (`{1,2}`, `{"a","b \"c\""}`): the server gives it the element type the comparison needs. */
function postgresArrayLiteral(values: readonly ListValue[]): string {
  return `{${values.map((v) => (typeof v === "number" ? String(v) : `"${v.replace(/[\\"]/g, (c) => "\\" + c)}"`)).join(",")}}`;
}

/**
 * The parameter value of a list (`inListText`, `listTable`): on SQLite a JSON array read by
 * `json_each`; on PostgreSQL an array literal, typed by the comparison it meets (`id = ANY($1)`
 * makes `$1` a `bigint[]`, `code = ANY($1)` a `text[]`).
 */
export function listParam(values: readonly ListValue[]): string {
  return isPostgres() ? postgresArrayLiteral(values) : JSON.stringify(values);
}

/** `expr` is one of `values` (false for none), the list bound as one parameter. */
export function inList(expr: SQLWrapper, values: readonly ListValue[]): SQL {
  if (isPostgres()) return sql`${expr} = ANY(${listParam(values)})`;
  return sql`${expr} IN (SELECT value FROM json_each(${listParam(values)}))`;
}

/** `expr` is none of `values` (true for none), the list bound as one parameter. */
export function notInList(expr: SQLWrapper, values: readonly ListValue[]): SQL {
  if (isPostgres()) return sql`${expr} <> ALL(${listParam(values)})`;
  return sql`${expr} NOT IN (SELECT value FROM json_each(${listParam(values)}))`;
}

/** Text form of `inList` for prepared statements: `param` is the placeholder (`?1`) bound to `listParam(values)`. */
export function inListText(expr: string, param: string): string {
  if (isPostgres()) return `${expr} = ANY(${param})`;
  return `${expr} IN (SELECT value FROM json_each(${param}))`;
}

/**
 * The list as a table to join or select from, its entries in the column `listEntry(alias)`:
 * `SELECT … FROM ${listTable(ids, "j")} CROSS JOIN users ON users.id = ${listEntry("j")}`.
 * Its rows come in the list's order; a query that must keep it orders by `listOrder(alias)`.
 * On PostgreSQL the entries are `bigint` when every value is a number (or the list is empty),
 * else `text`.
 */
export function listTable(values: readonly ListValue[], alias: string): SQL {
  if (isPostgres()) {
    const type = values.every((v) => typeof v === "number") ? "bigint[]" : "text[]";
    return sql`unnest(CAST(${listParam(values)} AS ${sql.raw(type)})) WITH ORDINALITY AS ${sql.raw(alias)}(value, ord)`;
  }
  return sql`json_each(${listParam(values)}) AS ${sql.raw(alias)}`;
}

/**
 * An inner join that keeps the written order (`a ${joinInOrder()} b ON …`): SQLite's `CROSS JOIN
 * … ON`, the one way to pin its join order (it never reorders a CROSS JOIN); PostgreSQL has no
 * `CROSS JOIN … ON` and its planner orders joins by cost, so a plain `JOIN`.
 */
export function joinInOrder(): SQL {
  return sql.raw(isPostgres() ? "JOIN" : "CROSS JOIN");
}

/** The entry column of `listTable(…, alias)`. */
export function listEntry(alias: string): SQL {
  return sql.raw(`${alias}.value`);
}

/** The position of an entry of `listTable(…, alias)` in the list, to order by. */
export function listOrder(alias: string): SQL {
  return sql.raw(isPostgres() ? `${alias}.ord` : `${alias}.key`);
}

/** SQL text: the JSON value `jsonb` (SQL text of type jsonb) when it is an array, else NULL (no elements rather than an error). */
function postgresArrayOnly(jsonb: string): string {
  return `CASE WHEN jsonb_typeof(${jsonb}) = 'array' THEN ${jsonb} END`;
}

/** A JSON array column holds at least one of `values` (compared as text on PostgreSQL). */
export function jsonArrayHasAny(column: SQLWrapper, values: readonly ListValue[]): SQL {
  if (isPostgres()) {
    const doc = sql`(${column})::jsonb`;
    return sql`EXISTS (SELECT 1 FROM jsonb_array_elements_text(CASE WHEN jsonb_typeof(${doc}) = 'array' THEN ${doc} END) AS e(value) WHERE e.value = ANY(CAST(${listParam(values)} AS text[])))`;
  }
  return sql`EXISTS (SELECT 1 FROM json_each(${column}) WHERE value IN (SELECT value FROM json_each(${listParam(values)})))`;
}

/**
 * A path into a JSON document as keys (`["urn:…:enterprise:2.0:User", "manager", "value"]`).
 * Keys are quoted as the engine needs; they come from schemas, never from requests, and still
 * may not contain a double quote.
 */
export type JsonKeys = readonly string[];

/**
 * The SQL type a JSON scalar is read as, so comparisons and order mean the same on both engines:
 * `text` (strings, dateTimes as ISO text), `number`, `boolean` (1/0, as SQLite's json_extract
 * gives it), `id` (an integer key written as a JSON number or a string of digits, as SCIM writes
 * ids, compared with an integer key column). SQLite's JSON functions answer in the value's own SQL
 * type whatever is asked (and an integer column converts digit text it is compared with);
 * PostgreSQL reads the text (`#>>`) and converts it, NULL when the stored value has another JSON
 * type or is no integer (never a cast error).
 */
export type JsonType = "text" | "number" | "boolean" | "id";

function checkedKeys(keys: JsonKeys): JsonKeys {
  for (const key of keys) if (key.includes('"')) throw new Error(`JSON key ${key} contains a double quote`);
  return keys;
}

function sqliteJsonPath(keys: JsonKeys): string {
  let path = "$";
  for (const key of checkedKeys(keys)) path += /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `.${key}` : `."${key}"`;
  return `'${path.replaceAll("'", "''")}'`;
}

/** PostgreSQL's path operand of `#>`/`#>>`: a text array literal, every key quoted. */
function postgresJsonPath(keys: JsonKeys): string {
  const literal = `{${checkedKeys(keys).map((k) => `"${k.replaceAll("\\", "\\\\")}"`).join(",")}}`;
  return `'${literal.replaceAll("'", "''")}'`;
}

/** PostgreSQL: the value at `keys` under `jsonb` (SQL text of type jsonb), read as `type`. */
function postgresTyped(jsonb: string, keys: JsonKeys, type: JsonType): string {
  const path = keys.length ? postgresJsonPath(keys) : "'{}'";
  const value = keys.length ? `(${jsonb} #> ${path})` : jsonb;
  switch (type) {
    case "text":
      return `(${jsonb} #>> ${path})`;
    case "number":
      return `(CASE WHEN jsonb_typeof(${value}) = 'number' THEN (${value})::numeric END)`;
    case "boolean":
      return `(CASE ${value} WHEN 'true'::jsonb THEN 1 WHEN 'false'::jsonb THEN 0 END)`;
    case "id":
      return integerOfText(`${jsonb} #>> ${path}`);
  }
}

/** SQL text: the scalar at `keys` in the JSON document `doc` (SQL text), read as `type`; null when absent. */
export function jsonValueText(doc: string, keys: JsonKeys, type: JsonType = "text"): string {
  if (isPostgres()) return postgresTyped(`(${doc})::jsonb`, keys, type);
  return `json_extract(${doc}, ${sqliteJsonPath(keys)})`;
}

/** `text` with every `§doc` replaced by the drizzle expression `doc`. */
function withDoc(text: string, doc: SQLWrapper): SQL {
  const [first, ...rest] = text.split("§doc");
  return sql.join([sql.raw(first!), ...rest.map((part) => sql`${doc}${sql.raw(part)}`)]);
}

/** `jsonValueText` over a drizzle column or expression. */
export function jsonValue(doc: SQLWrapper, keys: JsonKeys, type: JsonType = "text"): SQL {
  if (isPostgres()) return withDoc(postgresTyped("(§doc)::jsonb", keys, type), doc);
  return sql`json_extract(${doc}, ${sql.raw(sqliteJsonPath(keys))})`;
}

/**
 * SQL text: a row's JSON document `doc` parsed once for the whole statement, for the JSON
 * fragments to read instead of `doc` when many of them read the same document (the SCIM list
 * query's profile): PostgreSQL would parse the text again for each (it shares no common
 * expression), so it reads `alias.doc`, parsed by the source `parsedJsonSourceText` adds to the
 * FROM. SQLite reads `doc` itself.
 */
export function parsedJsonText(doc: string, alias: string): string {
  return isPostgres() ? `${alias}.doc` : doc;
}

/**
 * SQL text to append after the table in FROM when `statement` reads `parsedJsonText(doc, alias)`:
 * on PostgreSQL a lateral parse of `doc` per row (`OFFSET 0` keeps the planner from inlining it
 * back into every use); nothing otherwise, so a statement that reads no JSON parses none.
 */
export function parsedJsonSourceText(doc: string, alias: string, statement: string): string {
  if (!isPostgres() || !statement.includes(`${alias}.doc`)) return "";
  return ` CROSS JOIN LATERAL (SELECT (${doc})::jsonb AS doc OFFSET 0) ${alias}`;
}

/**
 * SQL text: the elements of the JSON array at `keys` in `doc`, as a table named `alias` (none
 * when it is absent; on PostgreSQL none either when it is not an array). `jsonElementText(alias, …)`
 * reads an element, and `jsonElementOrderText(alias)` orders them as in the array.
 */
export function jsonElementsText(doc: string, keys: JsonKeys, alias: string): string {
  if (isPostgres()) {
    const value = keys.length ? `((${doc})::jsonb #> ${postgresJsonPath(keys)})` : `(${doc})::jsonb`;
    return `jsonb_array_elements(${postgresArrayOnly(value)}) WITH ORDINALITY AS ${alias}(value, ord)`;
  }
  return `json_each(${doc}, ${sqliteJsonPath(keys)}) ${alias}`;
}

/** SQL text: an element of `jsonElementsText(…, alias)`, or its member at `keys` when the element is an object, read as `type`. */
export function jsonElementText(alias: string, keys: JsonKeys = [], type: JsonType = "text"): string {
  if (isPostgres()) return postgresTyped(`${alias}.value`, keys, type);
  return keys.length === 0 ? `${alias}.value` : `json_extract(${alias}.value, ${sqliteJsonPath(keys)})`;
}

/** SQL text: the position of an element of `jsonElementsText(…, alias)` in its array. */
export function jsonElementOrderText(alias: string): string {
  return isPostgres() ? `${alias}.ord` : `${alias}.key`;
}

/**
 * SQL text: `expr` case-folded as both engines can (ASCII letters only: SQLite's `lower()` and
 * NOCASE fold nothing else, and PostgreSQL's `lower()` under the C collation neither), as text
 * ordered by bytes. Compare it with a literal folded by `foldCaseLiteral` or with another
 * `foldCaseText`. Unicode folding is the product's rule only where a column stores a folded key
 * (directory/tables.ts `caseFoldKey`): compare those keys, never this.
 */
export function foldCaseText(expr: string): string {
  return isPostgres() ? `lower((${expr})::text COLLATE "C")` : `lower(${expr})`;
}

/** `foldCaseText` over a drizzle expression (a column, or a bound parameter). */
export function foldCase(expr: SQLWrapper): SQL {
  return isPostgres() ? sql`lower((${expr})::text COLLATE "C")` : sql`lower(${expr})`;
}

/**
 * `expr` compared and ordered ignoring ASCII case (`=`, `<`, `ORDER BY`): SQLite's NOCASE, and on
 * PostgreSQL `foldCase` (the same folding and the same byte order). Unicode case folding is not
 * the engine's: columns that must fold it store a folded key (directory/tables.ts).
 */
export function ignoringCase(expr: SQLWrapper): SQL {
  return isPostgres() ? foldCase(expr) : sql`${expr} COLLATE NOCASE`;
}

/** Text form of `ignoringCase`. */
export function ignoringCaseText(expr: string): string {
  return isPostgres() ? foldCaseText(expr) : `${expr} COLLATE NOCASE`;
}

/** `haystack` contains `needle` as is (no pattern characters); both are SQL expressions (e.g. folded). */
export function includesText(haystack: SQLWrapper, needle: SQLWrapper): SQL {
  return isPostgres() ? sql`strpos(${haystack}, ${needle}) > 0` : sql`instr(${haystack}, ${needle}) > 0`;
}

/** `text` starts with `prefix` (no pattern characters); both are SQL expressions. */
export function startsWithText(text: SQLWrapper, prefix: SQLWrapper): SQL {
  return sql`substr(${text}, 1, length(${prefix})) = ${prefix}`;
}

/** `text` ends with `suffix` (no pattern characters); both are SQL expressions. PostgreSQL's `substr` counts no position from the end. */
export function endsWithText(text: SQLWrapper, suffix: SQLWrapper): SQL {
  if (isPostgres()) return sql`right(${text}, length(${suffix})) = ${suffix}`;
  return sql`length(${text}) >= length(${suffix}) AND substr(${text}, -length(${suffix})) = ${suffix}`;
}

/**
 * `column` equals `value`, two-valued (false when `column` is NULL), `value` never NULL, and
 * answered from an index on `column`: SQLite's `IS`; on PostgreSQL `IS NOT DISTINCT FROM` is no
 * index condition, so the NULL case is spelled out.
 */
export function isEqual(column: SQLWrapper, value: SQLWrapper): SQL {
  return isPostgres() ? sql`${column} IS NOT NULL AND ${column} = ${value}` : sql`${column} IS ${value}`;
}

/** The negation of `isEqual`: true when `column` is NULL or differs from `value` (never NULL). */
export function isNotEqual(column: SQLWrapper, value: SQLWrapper): SQL {
  return isPostgres() ? sql`${column} IS NULL OR ${column} <> ${value}` : sql`${column} IS NOT ${value}`;
}

/**
 * SQL text: the number in the text `expr`, as `CAST(expr AS REAL)` reads it on SQLite; on
 * PostgreSQL NULL when the text is no decimal number (a cast there would fail the statement,
 * and PostgreSQL does not promise to evaluate a guarding condition first).
 */
export function numberOfText(expr: string): string {
  if (isPostgres()) return `(CASE WHEN (${expr}) ~ '^\\s*[-+]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][-+]?[0-9]+)?\\s*$' THEN (${expr})::double precision END)`;
  return `CAST(${expr} AS REAL)`;
}

/** SQL text: the integer in the text `expr` (`CAST(expr AS INTEGER)`); on PostgreSQL NULL when the text is no integer. */
export function integerOfText(expr: string): string {
  if (isPostgres()) return `(CASE WHEN (${expr}) ~ '^\\s*[-+]?[0-9]{1,18}\\s*$' THEN (${expr})::bigint END)`;
  return `CAST(${expr} AS INTEGER)`;
}

/** An aggregate: the group's `value`s as text joined by `separator` (a constant), in `orderBy` order; NULL for no rows. */
export function joinedText(value: SQLWrapper, separator: string, orderBy: SQLWrapper): SQL {
  const sep = sql.raw(`'${separator.replaceAll("'", "''")}'`);
  if (isPostgres()) return sql`string_agg((${value})::text, ${sep} ORDER BY ${orderBy})`;
  return sql`group_concat(${value}, ${sep} ORDER BY ${orderBy})`;
}

/**
 * The order rows were inserted in, for tables whose key is not a sequence (`tms_results`, keyed by
 * hash): on SQLite the implicit rowid; PostgreSQL has none, and its schema gives such a table an
 * identity column `insertion_seq` that no query writes. `alias` qualifies it in joins.
 */
export function insertionOrderText(alias?: string): string {
  const column = isPostgres() ? "insertion_seq" : "rowid";
  return alias ? `${alias}.${column}` : column;
}

/** `insertionOrderText` as drizzle SQL, for `orderBy`. */
export function insertionOrder(alias?: string): SQL {
  return sql.raw(insertionOrderText(alias));
}

const engineDialect = new SQLiteSyncDialect();

/**
 * A drizzle fragment as SQL text and its bound parameters, for statements assembled around it as
 * text and prepared once per text (the SCIM list queries). The text writes its parameters as
 * `?`, like every statement assembled as text, on both engines: PostgreSQL's connection numbers
 * them (`postgresPlaceholders`), so the statement around it may add its own `?`.
 */
export function queryText(fragment: SQL): { sql: string; params: unknown[] } {
  return engineDialect.sqlToQuery(fragment);
}

/**
 * A statement text with SQLite's placeholders (`?` and `?N`) in PostgreSQL's (`$N`), numbered as
 * SQLite numbers them: `?N` is parameter N, a bare `?` the one after the largest number so far.
 * Quoted strings, quoted names and comments are left as they are. The text must use no
 * PostgreSQL `?` operator (the dialect's fragments use none).
 */
export function postgresPlaceholders(text: string): string {
  let out = "";
  let largest = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "'" || c === '"') {
      const end = closing(text, i, c);
      out += text.slice(i, end);
      i = end;
    } else if (c === "-" && text[i + 1] === "-") {
      const end = text.indexOf("\n", i);
      const stop = end === -1 ? text.length : end;
      out += text.slice(i, stop);
      i = stop;
    } else if (c === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end === -1 ? text.length : end + 2;
      out += text.slice(i, stop);
      i = stop;
    } else if (c === "?") {
      let j = i + 1;
      while (j < text.length && text[j]! >= "0" && text[j]! <= "9") j++;
      const n = j > i + 1 ? Number(text.slice(i + 1, j)) : largest + 1;
      largest = Math.max(largest, n);
      out += `$${n}`;
      i = j;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** The index after the quote that closes the one at `start` (a doubled quote is a quote inside). */
function closing(text: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < text.length) {
    if (text[i] === quote) {
      if (text[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return text.length;
}

/**
 * A value of `jsonDocumentText`, as SQL text: a text (a JSON string), a text holding JSON (written
 * by us, so valid JSON: SQLite copies it as it is), 0/1 as a boolean, a nested object or an array of texts.
 */
export type JsonMemberValue = { text: string; notNull?: true } | { json: string } | { boolean: string } | { object: JsonMembers } | { texts: string[] };
/** An object's members in order: the key (a constant) and its value; a member whose value is NULL is left out. */
export type JsonMembers = readonly (readonly [key: string, value: JsonMemberValue])[];

/**
 * SQL text: the JSON text of an object the engine builds from a row (members in the order given,
 * NULL members left out at every depth), for answers that copy rows to JSON without making each
 * row a JavaScript object first (the SCIM page). PostgreSQL: `json_build_object` (json, not
 * jsonb: the order is kept) through `json_strip_nulls`, as text. SQLite: the text concatenated
 * member by member, each value through `json_quote` (the escaping `json_object` uses) and a NULL
 * member written as nothing — `json_object` would write `null`, and dropping the nulls with
 * `json_patch('{}', …)` re-parsed every document: it was half of a 1000-user page's query, and
 * `json()` of the stored e-mails another fifth (docs/benchmarks/read-path.md, round 7).
 */
export function jsonDocumentText(members: JsonMembers): string {
  const literal = (key: string) => `'${key.replace(/'/g, "''")}'`;
  if (!isPostgres()) return sqliteJsonObject(members);
  const value = (v: JsonMemberValue): string => {
    if ("text" in v) return v.text;
    if ("json" in v) return `(${v.json})::json`;
    if ("boolean" in v) return `(${v.boolean} = 1)`;
    if ("texts" in v) return `json_build_array(${v.texts.join(", ")})`;
    return object(v.object);
  };
  const object = (m: JsonMembers): string => `json_build_object(${m.map(([k, v]) => `${literal(k)}, ${value(v)}`).join(", ")})`;
  return `json_strip_nulls(${object(members)})::text`;
}

/**
 * SQLite's `jsonDocumentText`: one `concat(…)` of the members' pieces (concat writes its result
 * once and skips NULL arguments; a chain of `||` copies the growing text at every step), every
 * member `,"key":value`, or NULL — left out — when its value is NULL; the first member's comma is
 * not written when it is never NULL, else cut. Each value expression appears once (it may hold a
 * positional parameter).
 */
function sqliteJsonObject(members: JsonMembers): string {
  type Piece = { literal: string } | { sql: string };
  const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const mayBeNull = (v: JsonMemberValue) => ("text" in v && !v.notNull) || "json" in v;
  const member = ([key, v]: JsonMembers[number], comma: boolean): Piece[] => {
    const prefix = `${comma ? "," : ""}${JSON.stringify(key)}:`;
    if ("text" in v) {
      if (v.notNull) return [{ literal: prefix }, { sql: `json_quote(${v.text})` }];
      // json_quote(NULL) is the text `null` (no text value quotes to it): the member drops out.
      // A column is simply tested; another expression is written once.
      return [{ sql: /^[\w.]+$/.test(v.text) ? `CASE WHEN ${v.text} IS NOT NULL THEN ${quote(prefix)} || json_quote(${v.text}) END` : `${quote(prefix)} || nullif(json_quote(${v.text}), 'null')` }];
    }
    if ("json" in v) return [{ sql: `${quote(prefix)} || (${v.json})` }];
    if ("boolean" in v) return [{ literal: prefix }, { sql: `CASE WHEN (${v.boolean}) = 1 THEN 'true' ELSE 'false' END` }];
    if ("texts" in v) return [{ literal: prefix }, { sql: `json_array(${v.texts.join(", ")})` }];
    return [{ literal: prefix }, ...objectPieces(v.object)];
  };
  const concat = (pieces: Piece[]) => {
    const merged: Piece[] = [];
    for (const p of pieces) {
      const last = merged.at(-1);
      if ("literal" in p && last && "literal" in last) last.literal += p.literal;
      else merged.push({ ...p });
    }
    return `concat(${merged.map((p) => ("literal" in p ? quote(p.literal) : p.sql)).join(", ")})`;
  };
  // A nested object's pieces join its parent's concat.
  const objectPieces = (m: JsonMembers): Piece[] => {
    if (m.length === 0) return [{ literal: "{}" }];
    if (!mayBeNull(m[0]![1])) return [{ literal: "{" }, ...m.flatMap((x, at) => member(x, at > 0)), { literal: "}" }];
    return [{ literal: "{" }, { sql: `substr(${concat(m.flatMap((x) => member(x, true)))}, 2)` }, { literal: "}" }];
  };
  return concat(objectPieces(members));
}

/**
 * SQL text of one row joining `column` of `subquery`'s rows with commas, in the subquery's order
 * (its ORDER BY … LIMIT): `text` (NULL when no row), `n` (how many rows) and the `extra`
 * aggregates. A page of JSON documents thus reaches the answer as one string: none per row, no
 * join. SQLite runs such a subquery as a co-routine whose rows the aggregate reads in order
 * (test/scim/users/page-text.test.ts holds sorted pages to the object path). Null on PostgreSQL:
 * its aggregates keep an input order only with ORDER BY inside the aggregate, which sorts the
 * texts again; the caller joins the rows itself there.
 */
export function orderedConcatenationText(subquery: string, column: string, extra: string): string | null {
  if (isPostgres()) return null;
  return `SELECT group_concat(${column}, ',') AS text, count(*) AS n, ${extra} FROM (${subquery})`;
}
