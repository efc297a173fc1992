/**
 * Lookups keyed by a name from a request. A plain object answers `table["constructor"]` with
 * Object.prototype's members, so a request naming one would reach code written for the table's
 * entries (a 500, or worse, a wrong value stored). Every table read with a name from a request
 * goes through `own` (or is a Map); test/prototype-names.sweep.test.ts sends those names everywhere.
 */

/** `table[key]` if the table itself has that key; never a member of Object.prototype. */
export function own<V>(table: Readonly<Record<string, V>>, key: string): V | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
