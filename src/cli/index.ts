/**
 * The `gatehouse` command: turns a parsed command line into work and an exit code (the table is
 * in ./exit-codes.ts). stdout carries what a command produces (a token, a table, help); stderr
 * carries only JSON log lines, so `journalctl -o cat | jq` reads everything the process says.
 */
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { Config } from "../config";
import { describeConfig } from "../config";
import type { AppContext } from "../context";
import { createLogger, type Logger } from "../log";
import { backupDatabase, BackupError } from "../db/backup";
import { scimTokenCli } from "../scim/cli";
import { contextStorage } from "../db/open";
import { databaseFile, loadTls, migrateConfiguredStorage, openConfiguredStorage, StartupConfigError } from "../server";
import { buildInfo, describeBuild, VERSION } from "../version";
import { noSecretBox, readKeyFile } from "../lib/secret-box";
import { COMMAND_HELP, parseCommandLine, USAGE, type Command } from "./args";
import { classifyFailure, EXIT_ADMIN_MUST_ACT, EXIT_OK, EXIT_TRANSIENT } from "./exit-codes";
import { loadConfig, type Origin } from "./load-config";
import { serveUntilSignalled } from "./serve";
import { copyToPostgresCommand } from "./copy-to-postgres";

export type CliIo = { out(text: string): void; err(text: string): void };
const stdio: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** JSON lines on the command's stderr (the same shape as the server's log). */
export function stderrLogger(io: CliIo, config?: Config): Logger {
  return createLogger(config?.logLevel ?? "info", (line) => io.err(line + "\n"));
}

export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io: CliIo = stdio): Promise<number> {
  let log = stderrLogger(io);
  const parsed = parseCommandLine(argv);
  if (!parsed.ok) {
    log.error(`${parsed.error} (gatehouse help lists the commands)`);
    return EXIT_ADMIN_MUST_ACT;
  }
  const command = parsed.command;
  if (command.name === "help") {
    io.out(command.topic ? COMMAND_HELP[command.topic] : USAGE);
    return EXIT_OK;
  }
  if (command.name === "version") {
    io.out(`${describeBuild(buildInfo())}\n`);
    return EXIT_OK;
  }

  const loaded = loadConfig(command.envFile, env);
  if (!loaded.ok) {
    for (const e of loaded.errors) log.error(e);
    return EXIT_ADMIN_MUST_ACT;
  }
  const { config, origins } = loaded;
  log = stderrLogger(io, config);
  try {
    return await runCommand(command, config, origins, io, log, command.envFile, env);
  } catch (e) {
    const failure = classifyFailure(e);
    log.error(failure.message, failure.stack ? { stack: failure.stack } : undefined);
    return failure.code;
  }
}

/** Where the database is and why: every command that opens one says so. */
function databaseNote(config: Config, origins: Map<string, Origin>) {
  if (config.databaseUrl !== null) return { database: "postgres", databaseUrlFrom: origins.get("GATEHOUSE_DATABASE_URL") };
  return { database: databaseFile(config), dataDirFrom: origins.get("GATEHOUSE_DATA_DIR") };
}

async function runCommand(
  command: Exclude<Command, { name: "help" | "version" }>,
  config: Config,
  origins: Map<string, Origin>,
  io: CliIo,
  log: Logger,
  envFile: string | null,
  env: Record<string, string | undefined>,
): Promise<number> {
  switch (command.name) {
    case "serve":
      return serveUntilSignalled(config, { envFile, env, log: createLogger(config.logLevel), stderr: log });
    case "config-check":
      return configCheck(config, origins, io, log);
    case "migrate": {
      const handle = await openConfiguredStorage(config);
      try {
        log.info("using database", databaseNote(config, origins));
        const applied = await migrateConfiguredStorage(
          handle,
          (line) => log.warn(line),
          (tags) => tags.forEach((migration) => log.info("migration applied", { migration })),
        );
        io.out(`${applied} migration(s) applied to ${handle.where}\n`);
        return EXIT_OK;
      } finally {
        await handle.close();
      }
    }
    case "backup": {
      if (config.databaseUrl !== null) {
        // pg_dump is the DBA's tool, and the consistent copy of a PostgreSQL database (docs/storage-postgres.md).
        log.error("backup copies the SQLite database; this instance is on PostgreSQL (GATEHOUSE_DATABASE_URL): back it up with pg_dump --format=custom (docs/storage-postgres.md)");
        return EXIT_ADMIN_MUST_ACT;
      }
      log.info("using database", databaseNote(config, origins));
      try {
        const { bytes } = backupDatabase(databaseFile(config), command.target);
        io.out(`backup of ${databaseFile(config)} written to ${command.target} (${bytes} bytes)\n`);
        return EXIT_OK;
      } catch (e) {
        if (!(e instanceof BackupError)) throw e;
        log.error(e.message);
        return e.transient ? EXIT_TRANSIENT : EXIT_ADMIN_MUST_ACT;
      }
    }
    case "copy-to-postgres":
      return copyToPostgresCommand(config, command.url, io, log);
    case "scim-token": {
      const file = databaseFile(config);
      // Never mint a token into a database no server reads (a fresh ./data where the admin stands).
      if (config.databaseUrl === null && !existsSync(file)) {
        log.error(
          `no database at ${file} (GATEHOUSE_DATA_DIR from ${origins.get("GATEHOUSE_DATA_DIR")}): refusing to create one for a token no server would read. ` +
            `Set GATEHOUSE_DATA_DIR to the data directory of the instance (the unit's is /var/lib/gatehouse/NAME), or run \`gatehouse migrate\` to create a new instance's database`,
        );
        return EXIT_ADMIN_MUST_ACT;
      }
      const handle = await openConfiguredStorage(config);
      try {
        log.info("using database", databaseNote(config, origins));
        await migrateConfiguredStorage(handle);
        const ctx: AppContext = { config, ...contextStorage(handle), log, version: VERSION, secrets: noSecretBox };
        // The token CLI writes plain messages; each becomes a JSON line once its outcome is known.
        const messages: string[] = [];
        const code = await scimTokenCli(command.args, ctx, { out: io.out, err: (t) => messages.push(t) });
        const text = messages.join("").split("\n").map((l) => l.replace(/^gatehouse( scim-token \w+)?: /, "").trim()).filter(Boolean);
        if (text.length) (code === EXIT_OK ? log.info : log.error)(text.join("; "));
        return code;
      } finally {
        await handle.close();
      }
    }
  }
}

/** `gatehouse config check`: what `serve` would run with, or why it would not start. */
function configCheck(config: Config, origins: Map<string, Origin>, io: CliIo, log: Logger): number {
  loadTls(config); // throws StartupConfigError (exit 2) naming the key
  const dir = resolve(config.dataDir);
  const existing = existsSync(dir) ? dir : dirname(dir);
  try {
    accessSync(existing, constants.W_OK | constants.X_OK);
  } catch {
    throw new StartupConfigError(`GATEHOUSE_DATA_DIR: ${existing} is not writable by this user (${existsSync(dir) ? "the data directory" : "its parent, where it would be created"})`);
  }
  try {
    if (config.secretKeyFile) readKeyFile(config.secretKeyFile, "GATEHOUSE_SECRET_KEY_FILE");
    if (config.secretKeyPreviousFile) readKeyFile(config.secretKeyPreviousFile, "GATEHOUSE_SECRET_KEY_PREVIOUS_FILE");
  } catch (e) {
    throw new StartupConfigError((e as Error).message);
  }
  const width = Math.max(...describeConfig(config).map((r) => r.key.length));
  for (const { key, value } of describeConfig(config)) io.out(`${key.padEnd(width)}  ${value === "" ? "(empty)" : value}   # ${origins.get(key) ?? "default"}\n`);
  const file = databaseFile(config);
  io.out(`\ndatabase: ${file} (${existsSync(file) ? "exists" : "does not exist yet: serve or migrate creates it"})\n`);
  log.info("configuration is valid", { database: file });
  return EXIT_OK;
}
