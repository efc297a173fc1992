import type { Database } from "bun:sqlite";
import type { Config } from "./config";
import type { Db } from "./db/connection";
import type { Logger } from "./log";

/** What every feature plugin gets: built once by `serve` (or by tests) and passed to createApp. */
export type AppContext = {
  config: Config;
  db: Db;
  sqlite: Database;
  log: Logger;
  version: string;
};
