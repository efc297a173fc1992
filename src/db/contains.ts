import { sql, type SQL, type SQLWrapper } from "drizzle-orm";

/** `column` contains `text`, ignoring ASCII case; `%`, `_` and `\` in `text` match themselves. */
export function containsText(column: SQLWrapper, text: string): SQL {
  const pattern = "%" + text.toLowerCase().replace(/[\\%_]/g, (c) => "\\" + c) + "%";
  return sql`lower(${column}) LIKE ${pattern} ESCAPE '\\'`;
}
