import type { Config } from "./config";
import type { Connection, Db } from "./db/connection";
import type { GroupCommit } from "./db/group-commit";
import type { Logger } from "./log";
import type { SecretBox } from "./lib/secret-box";

/** What every feature plugin gets: built once by `serve` (or by tests) and passed to createApp. */
export type AppContext = {
  config: Config;
  db: Db;
  /**
   * The connection under `db`, for the server, the CLI and tests that inspect the file. Features
   * reach it only through src/db (`perConnection`, `clientOf`, the seam's named functions).
   */
  sqlite: Connection | null;
  /** The durability barrier of `sqlite`'s writes (src/db/group-commit.ts); write requests await it in createApp. */
  groupCommit: GroupCommit;
  log: Logger;
  version: string;
  /** Seals and opens webhook signing secrets at rest (src/lib/secret-box.ts). */
  secrets: SecretBox;
};
