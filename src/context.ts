import type { Database } from "bun:sqlite";
import type { Config } from "./config";
import type { Db } from "./db/connection";
import type { GroupCommit } from "./db/group-commit";
import type { Logger } from "./log";
import type { SecretBox } from "./lib/secret-box";

/** What every feature plugin gets: built once by `serve` (or by tests) and passed to createApp. */
export type AppContext = {
  config: Config;
  db: Db;
  sqlite: Database;
  /** The durability barrier of `sqlite`'s writes (src/db/group-commit.ts); write requests await it in createApp. */
  groupCommit: GroupCommit;
  log: Logger;
  version: string;
  /** Seals and opens webhook signing secrets at rest (src/lib/secret-box.ts). */
  secrets: SecretBox;
};
