import { sql, type SQL, type SQLWrapper } from "drizzle-orm";
import { isPostgres } from "./engine";

/**
 * A literal folded as the dialect's `foldCase` folds a column: ASCII letters only, the folding
 * both engines do in SQL (SQLite's `lower()` knows no other). Folding more here (JavaScript's
 * `toLowerCase`) would make "ÄBC" miss itself: the column keeps its "Ä", the literal would not.
 */
export function foldCaseLiteral(text: string): string {
  return text.replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

/** `column` contains `text`, ignoring ASCII case; `%`, `_` and `\` in `text` match themselves. */
export function containsText(column: SQLWrapper, text: string): SQL {
  const pattern = "%" + foldCaseLiteral(text).replace(/[\\%_]/g, (c) => "\\" + c) + "%";
  // Both engines read `\` as the escape and compare the folded column byte for byte (SQLite's LIKE
  // also ignores ASCII case, which the folding already removed).
  if (isPostgres()) return sql`lower((${column})::text COLLATE "C") LIKE ${pattern} ESCAPE '\\'`;
  return sql`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}
