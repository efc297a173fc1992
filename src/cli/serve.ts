/**
 * `gatehouse serve`: runs the server until SIGTERM/SIGINT (graceful), reloads on SIGHUP.
 *
 * SIGHUP re-reads the env file and the environment, and applies what can change without a
 * restart: the TLS certificate and key (new handshakes use them; a pair that cannot be used is
 * refused and the old one keeps serving) and the admin tokens. Any other changed key is named in
 * the log as needing a restart. An invalid configuration is refused whole.
 */
import { KEYS, type Config } from "../config";
import type { Logger } from "../log";
import { startGatehouse, type RunningGatehouse } from "../server";
import { classifyFailure } from "./exit-codes";
import { loadConfig } from "./load-config";

/** Keys SIGHUP applies to the running server. */
const RELOADABLE = new Set<keyof Config>(["tlsCertFile", "tlsKeyFile", "adminToken", "adminTokenPrevious"]);

/** `log`: the server's log (stdout); `stderr`: where a failure to start is reported. */
export type ServeSource = { envFile: string | null; env: Record<string, string | undefined>; log: Logger; stderr?: Logger };

/** Resolves to the exit code. */
export async function serveUntilSignalled(config: Config, { envFile, env, log, stderr = log }: ServeSource): Promise<number> {
  let running: RunningGatehouse;
  try {
    running = await startGatehouse(config, log);
  } catch (e) {
    const failure = classifyFailure(e);
    stderr.error(`startup failed: ${failure.message}`, { exitCode: failure.code, ...(failure.stack ? { stack: failure.stack } : {}) });
    return failure.code;
  }
  // A crash must still leave one JSON line in the journal, not only a bare stack on stderr.
  // (Exiting stays the answer: systemd restarts the unit, and state is safe in SQLite.)
  const crash = (kind: string) => (error: unknown) => {
    log.error(kind, { error: String((error as Error)?.message ?? error), stack: (error as Error)?.stack });
    process.exit(1);
  };
  process.on("uncaughtException", crash("uncaught exception"));
  process.on("unhandledRejection", crash("unhandled promise rejection"));
  process.on("SIGHUP", () => void reload(running, config, { envFile, env, log }));
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

/** SIGHUP: see the module comment. `config` is the running server's, updated in place. */
export async function reload(running: RunningGatehouse, config: Config, { envFile, env, log }: ServeSource): Promise<void> {
  log.info("SIGHUP: reloading", { envFile });
  const loaded = loadConfig(envFile, env === process.env ? { ...process.env } : env);
  if (!loaded.ok) {
    log.error("reload refused: the configuration is not valid; nothing changed", { errors: loaded.errors });
    return;
  }
  const next = loaded.config;
  const needRestart = KEYS.filter((k) => !RELOADABLE.has(k.field) && JSON.stringify(next[k.field]) !== JSON.stringify(config[k.field])).map((k) => k.key);
  if ((config.tlsCertFile === null) !== (next.tlsCertFile === null)) needRestart.push("GATEHOUSE_TLS_CERT_FILE (turning HTTPS on or off)");
  else {
    config.tlsCertFile = next.tlsCertFile;
    config.tlsKeyFile = next.tlsKeyFile;
  }
  // The admin check reads these on every request.
  const tokensChanged = config.adminToken !== next.adminToken || config.adminTokenPrevious !== next.adminTokenPrevious;
  config.adminToken = next.adminToken;
  config.adminTokenPrevious = next.adminTokenPrevious;
  const tls = await running.reloadTls();
  log.info("reloaded", {
    tls: tls.ok ? (tls.reloaded ? "reloaded" : "not configured") : "refused (previous certificate still serving)",
    adminTokens: tokensChanged ? "changed" : "unchanged",
    ...(needRestart.length ? { changedButNeedRestart: needRestart } : {}),
  });
}
