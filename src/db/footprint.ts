import { statSync } from "node:fs";
import { clientOf, type Db } from "./connection";

/** How much room the database takes, for the console's Instance page. */
export type StorageFootprint = { sizeBytes: number; walBytes: number };

/** A reader of the database's footprint: pages in use × page size, and the write-ahead log file now. */
export function footprintReader(db: Db): () => StorageFootprint {
  const sqlite = clientOf(db);
  const pages = sqlite.query<{ n: number }, []>("SELECT (SELECT page_count FROM pragma_page_count()) * (SELECT page_size FROM pragma_page_size()) AS n");
  const file = (sqlite.query("PRAGMA database_list").all() as { name: string; file: string }[]).find((d) => d.name === "main")?.file ?? "";
  const walBytes = () => {
    try {
      return file ? statSync(file + "-wal").size : 0;
    } catch {
      return 0; // no WAL file right now
    }
  };
  return () => ({ sizeBytes: pages.get()!.n, walBytes: walBytes() });
}
