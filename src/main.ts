#!/usr/bin/env bun
import { createApp } from "./app";
import { parseConfig, parseEnvFile } from "./config";
import { openDatabase } from "./db/connection";
import { createLogger } from "./log";
import { VERSION } from "./version";
import { join } from "node:path";
import { readFileSync } from "node:fs";

// Minimal entry point; the foundation issue grows it into the full CLI.
const args = process.argv.slice(2);
const envFileIdx = args.indexOf("--env-file");
let env: Record<string, string | undefined> = { ...process.env };
if (envFileIdx >= 0) env = { ...parseEnvFile(readFileSync(args[envFileIdx + 1]!, "utf8")), ...process.env };
const parsed = parseConfig(env);
if (!parsed.ok) {
  for (const e of parsed.errors) process.stderr.write(`gatehouse: ${e}\n`);
  process.exit(2);
}
const config = parsed.config;
const log = createLogger(config.logLevel);
const { db, sqlite } = openDatabase(join(config.dataDir, "gatehouse.db"));
const app = createApp({ config, db, sqlite, log, version: VERSION });
const server = Bun.serve({ hostname: config.host, port: config.port, fetch: (r) => app.handle(r) });
log.info("listening", { url: server.url.toString(), version: VERSION });
