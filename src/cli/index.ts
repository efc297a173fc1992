/**
 * The `gatehouse` command: turns a parsed command line into work and an exit code
 * (0 success, 1 runtime failure, 2 usage or configuration error).
 */
import { readFileSync } from "node:fs";
import { parseConfig, parseEnvFile, type Config } from "../config";
import type { AppContext } from "../context";
import { closeDatabase } from "../db/connection";
import { DatabaseNewerThanBinaryError, runMigrations } from "../db/migrate";
import { createLogger } from "../log";
import { backupDatabase, BackupError } from "../ops/backup";
import { scimTokenCli } from "../scim/cli";
import { databaseFile, openDataDir, startGatehouse, StartupConfigError } from "../server";
import { buildInfo, describeBuild, VERSION } from "../version";
import { parseCommandLine, USAGE, type Command } from "./args";

export type CliIo = { out(text: string): void; err(text: string): void };
const stdio: CliIo = { out: (t) => process.stdout.write(t), err: (t) => process.stderr.write(t) };

/** Reads the env file (if any) under the process environment, then validates. */
export function loadConfig(envFile: string | null, env: Record<string, string | undefined>): { ok: true; config: Config } | { ok: false; errors: string[] } {
  let merged: Record<string, string | undefined> = { ...env };
  if (envFile !== null) {
    let text: string;
    try {
      text = readFileSync(envFile, "utf8");
    } catch (e) {
      return { ok: false, errors: [`--env-file: cannot read ${envFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`] };
    }
    try {
      // The process environment wins over the file, as with Node's and Docker's --env-file.
      merged = { ...parseEnvFile(text), ...env };
    } catch (e) {
      return { ok: false, errors: [`--env-file ${envFile}: ${(e as Error).message}`] };
    }
  }
  return parseConfig(merged);
}

export async function runCli(argv: string[], env: Record<string, string | undefined> = process.env, io: CliIo = stdio): Promise<number> {
  const parsed = parseCommandLine(argv);
  if (!parsed.ok) {
    io.err(`gatehouse: ${parsed.error}\n\n${USAGE}`);
    return 2;
  }
  const command = parsed.command;
  if (command.name === "help") {
    io.out(USAGE);
    return 0;
  }
  if (command.name === "version") {
    io.out(`${describeBuild(buildInfo())}\n`);
    return 0;
  }

  const loaded = loadConfig(command.envFile, env);
  if (!loaded.ok) {
    for (const e of loaded.errors) io.err(`gatehouse: ${e}\n`);
    return 2;
  }
  const config = loaded.config;
  try {
    return await runCommand(command, config, io);
  } catch (e) {
    if (e instanceof StartupConfigError || e instanceof DatabaseNewerThanBinaryError) {
      io.err(`gatehouse: ${e.message}\n`);
      return 2;
    }
    throw e;
  }
}

async function runCommand(command: Exclude<Command, { name: "help" | "version" }>, config: Config, io: CliIo): Promise<number> {
  switch (command.name) {
    case "serve":
      return serveUntilSignalled(config, io);
    case "migrate": {
      const handle = openDataDir(config);
      try {
        const applied = runMigrations(handle.db, undefined, (line) => io.err(`gatehouse: warning: ${line}\n`));
        io.out(`gatehouse: ${applied} migration(s) applied to ${handle.file}\n`);
        return 0;
      } finally {
        closeDatabase(handle);
      }
    }
    case "backup": {
      try {
        const { bytes } = backupDatabase(databaseFile(config), command.target);
        io.out(`gatehouse: backup written to ${command.target} (${bytes} bytes)\n`);
        return 0;
      } catch (e) {
        if (e instanceof BackupError) {
          io.err(`gatehouse: ${e.message}\n`);
          return 1;
        }
        throw e;
      }
    }
    case "scim-token": {
      const handle = openDataDir(config);
      runMigrations(handle.db);
      const ctx: AppContext = { config, db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: createLogger(config.logLevel, (l) => process.stderr.write(l + "\n")), version: VERSION };
      try {
        return await scimTokenCli(command.args, ctx);
      } finally {
        closeDatabase(handle);
      }
    }
  }
}

/** Runs the server until SIGTERM/SIGINT, then shuts down gracefully; resolves to the exit code. */
async function serveUntilSignalled(config: Config, io: CliIo): Promise<number> {
  const log = createLogger(config.logLevel);
  let running;
  try {
    running = await startGatehouse(config, log);
  } catch (e) {
    if (e instanceof StartupConfigError || e instanceof DatabaseNewerThanBinaryError) throw e; // exit 2, reported by runCli
    const code = (e as NodeJS.ErrnoException).code;
    const message = code === "EADDRINUSE" ? `cannot listen: address in use (GATEHOUSE_HOST/GATEHOUSE_PORT/GATEHOUSE_HTTP_REDIRECT_PORT): ${(e as Error).message}` : String((e as Error)?.stack ?? e);
    log.error("startup failed", { error: message });
    io.err(`gatehouse: ${message}\n`);
    return 1;
  }
  // A crash must still leave one JSON line in the journal, not only a bare stack on stderr.
  // (Exiting stays the answer: systemd restarts the unit, and state is safe in SQLite.)
  const crash = (kind: string) => (error: unknown) => {
    log.error(kind, { error: String((error as Error)?.stack ?? error) });
    process.exit(1);
  };
  process.on("uncaughtException", crash("uncaught exception"));
  process.on("unhandledRejection", crash("unhandled promise rejection"));
  return new Promise<number>((resolve) => {
    // A failed WAL sync leaves the disk's copy of the WAL unknown (a retried fsync can succeed
    // without the lost pages): stop, as after a crash; the restart recovers from what is on disk.
    void running.failed.then(() => resolve(1));
    let signals = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      signals++;
      if (signals > 1) {
        log.warn("second signal: exiting without waiting", { signal });
        resolve(1);
        return;
      }
      running.shutdown(signal).then(
        () => resolve(0),
        (e) => {
          log.error("shutdown failed", { error: String((e as Error)?.stack ?? e) });
          resolve(1);
        },
      );
    };
    process.on("SIGTERM", onSignal);
    process.on("SIGINT", onSignal);
  });
}
