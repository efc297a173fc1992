import { statSync } from "node:fs";
import { clientOf, type Db } from "./connection";
import { isPostgres } from "./engine";
import { preparedQuery } from "./statement";

/** How much room the database takes, for the console's Instance page. */
export type StorageFootprint = { sizeBytes: number; walBytes: number };

const sqlitePages = preparedQuery<{ n: number }, []>("SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()) AS n");
const postgresSize = preparedQuery<{ n: number }, []>("SELECT pg_database_size(current_database()) AS n");

/**
 * A reader of the database's footprint. SQLite: pages in use × page size, and the write-ahead log
 * file now. PostgreSQL: the database's size on the server (its WAL is the server's, not counted).
 */
export function footprintReader(db: Db): () => Promise<StorageFootprint> {
  if (isPostgres()) return async () => ({ sizeBytes: Number((await postgresSize.get(db))!.n), walBytes: 0 });
  const file = (clientOf(db).query("PRAGMA database_list").all() as { name: string; file: string }[]).find((d) => d.name === "main")?.file ?? "";
  const walBytes = () => {
    try {
      return file ? statSync(file + "-wal").size : 0;
    } catch {
      return 0; // no WAL file right now
    }
  };
  return async () => ({ sizeBytes: (await sqlitePages.get(db))!.n, walBytes: walBytes() });
}
