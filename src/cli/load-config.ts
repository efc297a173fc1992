/**
 * Where the configuration comes from: the env file, the process environment (which wins), the
 * systemd unit's data-directory convention, or the defaults. Reading the file is the I/O edge;
 * `parseConfig` (src/config.ts) stays pure.
 */
import { readFileSync } from "node:fs";
import { KEYS, parseConfig, parseEnvFile, unitDataDir, type Config } from "../config";

export type Origin = "environment" | "env file" | "unit convention" | "default";
export type LoadedConfig = { ok: true; config: Config; origins: Map<string, Origin> } | { ok: false; errors: string[] };

/** Reads the env file (if any) under the process environment, then validates. */
export function loadConfig(envFile: string | null, env: Record<string, string | undefined>): LoadedConfig {
  let fromFile: Record<string, string> = {};
  if (envFile !== null) {
    let text: string;
    try {
      text = readFileSync(envFile, "utf8");
    } catch (e) {
      return { ok: false, errors: [`--env-file: cannot read ${envFile}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`] };
    }
    try {
      fromFile = parseEnvFile(text);
    } catch (e) {
      return { ok: false, errors: [`--env-file ${envFile}: ${(e as Error).message}`] };
    }
  }
  // The process environment wins over the file, as with Node's and Docker's --env-file.
  const merged: Record<string, string | undefined> = { ...fromFile, ...env };
  const origins = new Map<string, Origin>();
  for (const { key } of KEYS) origins.set(key, env[key] !== undefined ? "environment" : Object.hasOwn(fromFile, key) ? "env file" : "default");
  // The template unit sets GATEHOUSE_DATA_DIR=/var/lib/gatehouse/NAME for /etc/gatehouse/NAME.env;
  // a command run by hand with that env file must reach the same database, not ./data.
  const unitDir = envFile !== null && merged.GATEHOUSE_DATA_DIR === undefined ? unitDataDir(envFile) : null;
  if (unitDir !== null) {
    merged.GATEHOUSE_DATA_DIR = unitDir;
    origins.set("GATEHOUSE_DATA_DIR", "unit convention");
  }
  const parsed = parseConfig(merged);
  return parsed.ok ? { ok: true, config: parsed.config, origins } : parsed;
}
