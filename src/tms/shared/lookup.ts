import { and, eq, type SQL } from "drizzle-orm";
import type { SQLiteColumn, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db, Tx } from "../../db/connection";
import { first } from "../../db/transaction";
import { notFound } from "../../http/errors";

export type Reader = Db | Tx;

/**
 * Fetches one project-scoped row by id or throws 404 naming it. An id that exists in another
 * project is "not found" here too: entities are only reachable through their own project.
 */
export async function requireInProject<T extends SQLiteTable & { id: SQLiteColumn; projectId: SQLiteColumn }>(
  db: Reader, table: T, projectId: number, id: number, what: string, extra?: SQL,
): Promise<T["$inferSelect"]> {
  const where = extra ? and(eq(table.id, id), eq(table.projectId, projectId), extra) : and(eq(table.id, id), eq(table.projectId, projectId));
  const row = (await first(db.select().from(table as SQLiteTable).where(where))) as T["$inferSelect"] | undefined;
  if (!row) throw notFound(`${what} ${id}`);
  return row;
}
