/**
 * The JSON SQL QQL needs (tags and custom field values are JSON arrays in their row), in one
 * place so the compiler itself writes no engine-specific SQL. SQLite's JSON1 functions today.
 * Every argument is whitelisted SQL from the compiler (a column, a `?`), never query text.
 */

/** True when some element of the JSON array in `column` passes `test` (given the element's SQL). */
export function jsonArrayAny(column: string, test: (element: string) => string): string {
  return `EXISTS (SELECT 1 FROM json_each(${column}) j WHERE ${test("j.value")})`;
}

/** The JSON array in `column` has no element. */
export function jsonArrayIsEmpty(column: string): string {
  return `(json_array_length(${column}) = 0)`;
}

/** Member `key` (a constant name of the compiler) of a JSON object element, as SQL. */
export function jsonField(element: string, key: "field_id" | "value"): string {
  return `json_extract(${element}, '$.${key}')`;
}
