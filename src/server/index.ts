/**
 * Listening: opens the database (migrating it), builds the app, serves it over HTTP or HTTPS,
 * optionally runs the plain-HTTP redirect listener, starts the webhook delivery loop, and
 * shuts all of it down in the right order.
 */
import type { Server } from "bun";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createApp } from "../app";
import type { Config } from "../config";
import type { AppContext } from "../context";
import { contextStorage, databaseFile, migrateStorage, openPostgresStorage, openSqliteStorage, type OpenedStorage } from "../db/open";
import type { DurabilityError, WalSync } from "../db/group-commit";
import { DATA_STEPS } from "./migrate";
import type { Logger } from "../log";
import { instrumentedHandler } from "../ops/observe";
import { registerProcessMetrics } from "../ops/process-metrics";
import { buildInfo, SCHEMA_VERSION, VERSION } from "../version";
import { startDeliveryLoop } from "../webhooks/dispatcher";
import { loadSecretBox, SecretKeyError, type SecretBox } from "../lib/secret-box";
import { adoptSecretKey } from "./secret-key";
import { isStorageFull } from "../db/lock-wait";
import { LOCK_FILE, lockDataDir, type DataDirLock } from "../db/data-dir-lock";
import { redirectTarget } from "./redirect";
import { startLeaderElection } from "../db/leader";
import { startDraining } from "../ops/drain";
import { acceptQueueMigration } from "./accept-queue";

/** How long each shutdown step after HTTP (delivery loop, leader election, database) may take. */
const SHUTDOWN_STEP_MS = 6_000;

/**
 * Generous on purpose: the SCIM plugin enforces its own 800000-byte limit and must answer that
 * with a SCIM 413 body, which it can only do if Bun lets the body through first. Bun rejects
 * bodies over this limit itself (plain 413) before any handler runs.
 */
export const MAX_REQUEST_BODY_BYTES = 32 * 1024 * 1024;

/**
 * After a TLS reload, how long the old listener keeps its connections (each answered with
 * `connection: close`) before it stops: busy kept-alive clients move over without an error.
 */
export const RETIRE_MS = 1_000;

/** How long a replaced TLS listener's connections get before they are closed. */
export const SHUTDOWN_GRACE_MS = 10_000;

/** A configuration problem found while starting (unreadable TLS file…): exit code 2. */
export class StartupConfigError extends Error {}

export type RunningGatehouse = {
  ctx: AppContext;
  /** The HTTP(S) listener now (a TLS reload replaces it). */
  readonly server: Server<undefined>;
  redirectServer: Server<undefined> | null;
  url: URL;
  /**
   * Drains (readyz 503 for GATEHOUSE_SHUTDOWN_DRAIN while still serving; skipped with
   * `drain: false`), stops accepting, waits up to GATEHOUSE_SHUTDOWN_GRACE for in-flight requests,
   * stops the delivery loop (its claimed deliveries finish or go back), gives up the leadership of
   * background work, closes the DB. Idempotent.
   */
  shutdown(reason: string, options?: { drain?: boolean }): Promise<void>;
  /**
   * Settles when a WAL sync failed and the server has stopped because of it (fail-stop: the
   * disk's copy of the WAL is unknown; a restart recovers from it as after a crash). Never
   * settles otherwise; `serve` then exits 1.
   */
  failed: Promise<DurabilityError>;
  /**
   * Re-reads the TLS certificate and key and serves new handshakes with them; connections
   * already open finish on the old ones. A file that cannot be used is refused and the old pair
   * keeps serving. No-op without TLS.
   */
  reloadTls(): Promise<{ ok: true; reloaded: boolean } | { ok: false; error: string }>;
};

export { databaseFile };

/**
 * Opens the configured database without migrating it: the PostgreSQL server of
 * `GATEHOUSE_DATABASE_URL` (connect.ts words every failure, exit 1 or 2), else — creating it if
 * needed — the SQLite file in GATEHOUSE_DATA_DIR.
 */
export async function openConfiguredStorage(config: Config): Promise<OpenedStorage> {
  if (config.databaseUrl !== null) return openPostgresStorage(config);
  try {
    return openSqliteStorage(databaseFile(config));
  } catch (e) {
    throw dataDirFailure(e, `GATEHOUSE_DATA_DIR: cannot open ${databaseFile(config)}`);
  }
}

/** Brings the storage to this binary's schema (SQLite: with the features' data steps); how many migrations it applied. */
export function migrateConfiguredStorage(storage: OpenedStorage, report: (line: string) => void = () => {}, onApplied: (tags: string[]) => void = () => {}): Promise<number> {
  return migrateStorage(storage, { report, onApplied, dataSteps: DATA_STEPS });
}

/**
 * A full disk or an I/O error stays itself (transient: exit 1, systemd retries once space is
 * freed); anything else about the data directory (missing permission, not a directory, not a
 * database) is the admin's to fix (exit 2).
 */
function dataDirFailure(e: unknown, what: string): unknown {
  const code = (e as NodeJS.ErrnoException)?.code ?? "";
  if (isStorageFull(e) || /^(ENOSPC|EDQUOT|EIO|SQLITE_IOERR)/.test(code)) return e;
  return new StartupConfigError(`${what}: ${(e as Error).message}`);
}

/**
 * Reads and checks the TLS pair before anything else starts (no database is created for a
 * server that cannot listen): both PEM, the key not passphrase-protected, and the key the
 * certificate's. Throws StartupConfigError naming the key.
 */
export function loadTls(config: Config): { cert: string; key: string } | null {
  if (!config.tlsCertFile || !config.tlsKeyFile) return null;
  const read = (key: string, file: string) => {
    try {
      return readFileSync(file, "utf8");
    } catch (e) {
      throw new StartupConfigError(`${key}: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
  };
  const cert = read("GATEHOUSE_TLS_CERT_FILE", config.tlsCertFile);
  const key = read("GATEHOUSE_TLS_KEY_FILE", config.tlsKeyFile);
  if (!cert.includes("-----BEGIN")) throw new StartupConfigError(`GATEHOUSE_TLS_CERT_FILE: expected a PEM certificate in ${config.tlsCertFile}`);
  if (!key.includes("-----BEGIN")) throw new StartupConfigError(`GATEHOUSE_TLS_KEY_FILE: expected a PEM private key in ${config.tlsKeyFile}`);
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(cert);
  } catch (e) {
    throw new StartupConfigError(`GATEHOUSE_TLS_CERT_FILE: ${config.tlsCertFile} is not a readable PEM certificate (${(e as Error).message})`);
  }
  let privateKey: ReturnType<typeof createPrivateKey>;
  try {
    privateKey = createPrivateKey(key);
  } catch (e) {
    throw new StartupConfigError(`GATEHOUSE_TLS_KEY_FILE: ${config.tlsKeyFile} is not a readable unencrypted PEM private key (${(e as Error).message})`);
  }
  if (!certificate.checkPrivateKey(privateKey))
    throw new StartupConfigError(`GATEHOUSE_TLS_KEY_FILE: the key in ${config.tlsKeyFile} does not belong to the certificate in ${config.tlsCertFile}`);
  return { cert, key };
}

export type StartOptions = {
  /** Builds the HTTP app; tests may extend the real one (e.g. with a deliberately slow route). */
  buildApp?: (ctx: AppContext) => { handle(request: Request): Promise<Response> };
  /** Syncs the WAL instead of fdatasync (tests: a disk that fails). */
  walSync?: WalSync;
  /** Starts the background delivery loop; defaults to the webhook engine's. */
  startLoop?: (ctx: AppContext) => { stop(): Promise<void> };
};

export async function startGatehouse(config: Config, log: Logger, opts: StartOptions = {}): Promise<RunningGatehouse> {
  const tls = loadTls(config);
  log.info("starting", { ...buildInfo(), pid: process.pid, dataDir: config.dataDir });
  if (tls && acceptQueueMigration() === false)
    log.warn("net.ipv4.tcp_migrate_req is 0: a connection being accepted at the moment a certificate reload closes the previous listener is reset; set it to 1 (docs/operations.md)");

  let dirLock: DataDirLock | null;
  try {
    dirLock = lockDataDir(config.dataDir);
  } catch (e) {
    throw dataDirFailure(e, `GATEHOUSE_DATA_DIR: cannot open ${config.dataDir}`);
  }
  if (!dirLock) throw new StartupConfigError(`GATEHOUSE_DATA_DIR: ${config.dataDir} is in use by another running gatehouse serve (lock file ${LOCK_FILE}); stop it first, or give this one its own data directory`);
  let handle: OpenedStorage;
  let applied: number;
  try {
    handle = await openConfiguredStorage(config);
  } catch (e) {
    dirLock.release();
    throw e;
  }
  if (handle.engine === "postgres") log.info("database", { engine: "postgres", where: handle.where });
  try {
    applied = await migrateConfiguredStorage(
      handle,
      (line) => log.warn(line),
      (tags) => tags.forEach((migration) => log.info("migration applied", { migration })),
    );
  } catch (e) {
    handle.closeNow();
    dirLock.release();
    throw e;
  }
  if (applied > 0) log.info("migrations applied", { applied, schemaVersion: SCHEMA_VERSION });
  let secrets: SecretBox;
  try {
    const loaded = loadSecretBox(config);
    secrets = loaded.box;
    if (loaded.created) log.warn("created the key that encrypts webhook signing secrets; back it up apart from the database (a restored database needs it)", { file: loaded.file });
    const { resealed, replaced } = await adoptSecretKey(handle.db, secrets, loaded.file, handle.engine === "postgres");
    if (resealed > 0) log.info("webhook signing secrets encrypted with the current key", { secrets: resealed, keyId: secrets.keyId });
    if (replaced !== null && !secrets.knows(replaced)) log.warn("the database recorded another secret key, which no stored secret uses: recorded this one", { previousKeyId: replaced, keyId: secrets.keyId, file: loaded.file });
  } catch (e) {
    handle.closeNow();
    dirLock.release();
    throw e instanceof SecretKeyError ? new StartupConfigError(e.message) : dataDirFailure(e, "GATEHOUSE_SECRET_KEY_FILE");
  }
  // Migrations committed with FULL; from here on writes share WAL syncs (src/db/group-commit.ts).
  if (handle.file !== null && !handle.groupCommits(opts.walSync)) log.warn("no WAL file to sync: every commit syncs itself (synchronous=FULL)", { file: handle.file });

  const ctx: AppContext = { config, ...contextStorage(handle), log, version: VERSION, secrets };
  registerProcessMetrics(ctx, handle.file);
  const app = (opts.buildApp ?? createApp)(ctx);
  const handler = instrumentedHandler(app, ctx);

  // A listener being replaced answers with `connection: close`, so kept-alive clients move to
  // the new one after their current request instead of meeting a closed idle connection.
  const retiring = new WeakSet<Server<undefined>>();
  const serveOptions = (pair: { cert: string; key: string } | null, port: number, reusePort: boolean) => ({
    hostname: config.host,
    port,
    maxRequestBodySize: MAX_REQUEST_BODY_BYTES,
    ...(pair ? { tls: pair } : {}),
    // With TLS the listener is replaced on reload: the new one binds beside the old (SO_REUSEPORT)
    // before the old stops, so no connection attempt finds the port closed.
    reusePort,
    // Only a TLS listener is ever replaced (a certificate reload) or needs HSTS: a plain one serves
    // the handler itself, without one more async step per request.
    fetch: pair
      ? async (request: Request, listener: Server<undefined>) => {
          const response = await handler(request, listener);
          // HTTPS is served here, so browsers must never fall back to plain HTTP (the redirect port).
          response.headers.set("strict-transport-security", "max-age=31536000");
          if (retiring.has(listener)) response.headers.set("connection", "close");
          return response;
        }
      : handler,
    error(error: Error) {
      log.error("server error", { error: String(error?.stack ?? error) });
      return new Response(JSON.stringify({ status: false, errorMessage: "Internal server error", error: { code: "internal", message: "Internal server error" } }), {
        status: 500,
        headers: { "content-type": "application/json; charset=utf-8" },
      });
    },
  });

  let server: Server<undefined>;
  try {
    // SO_REUSEPORT would also let a second process (another organization's instance by mistake)
    // bind the same port silently: bind once without it first, so "address in use" still says so.
    if (tls && config.port !== 0) await Bun.serve({ ...serveOptions(null, config.port, false), fetch: () => new Response(null) }).stop(true);
    server = Bun.serve(serveOptions(tls, config.port, tls !== null));
  } catch (e) {
    handle.closeNow();
    dirLock.release();
    throw e;
  }
  // startupMs: since the process started (performance.now() counts from process start).
  log.info("listening", { url: server.url.href, tls: tls !== null, version: VERSION, schemaVersion: SCHEMA_VERSION, startupMs: Math.round(performance.now()) });

  let redirectServer: Server<undefined> | null = null;
  if (config.httpRedirectPort !== null) {
    const httpsPort = server.port!;
    try {
      redirectServer = Bun.serve({
        hostname: config.host,
        port: config.httpRedirectPort,
        // Only headers matter; never buffer a large body just to redirect it.
        maxRequestBodySize: 1024 * 1024,
        fetch: (request) =>
          new Response(null, { status: 308, headers: { location: redirectTarget(request.url, config.baseUrl, httpsPort), "cache-control": "no-store" } }),
      });
    } catch (e) {
      await server.stop(true);
      handle.closeNow();
      dirLock.release();
      throw e;
    }
    log.info("redirect listening", { url: redirectServer.url.href, status: 308 });
  }

  let stopping: Promise<void> | null = null;
  // Periodic work that must run once per database (retention purges): one node of a cluster at a time.
  const leadership = startLeaderElection(ctx.db, {
    onChange: (leader) => log.info(leader ? "leader: this node runs the background work (retention purges)" : "no longer the leader of background work", { leader }),
    log,
  });
  const deliveryLoop = (opts.startLoop ?? startDeliveryLoop)(ctx);

  // Connections of replaced listeners still finishing; shutdown waits for them too.
  const draining = new Set<Promise<void>>();
  const drain = (old: Server<undefined>) => {
    retiring.add(old);
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    const stopped = Bun.sleep(RETIRE_MS).then(() => {
      const closing = old.stop(false);
      log.info("previous TLS listener closed: every new handshake gets the reloaded certificate");
      return closing;
    });
    const done = Promise.race([stopped, new Promise<void>((resolve) => (graceTimer = setTimeout(() => old.stop(true).then(resolve, resolve), RETIRE_MS + SHUTDOWN_GRACE_MS)))])
      .catch(() => {})
      .finally(() => {
        clearTimeout(graceTimer);
        draining.delete(done);
      });
    draining.add(done);
  };
  let reloading: Promise<unknown> = Promise.resolve();
  const reloadTls = () => {
    const next = reloading.then(async (): Promise<{ ok: true; reloaded: boolean } | { ok: false; error: string }> => {
      if (stopping || !config.tlsCertFile) return { ok: true, reloaded: false };
      let pair: { cert: string; key: string };
      try {
        pair = loadTls(config)!;
      } catch (e) {
        log.error("TLS reload refused: still serving the previous certificate", { error: (e as Error).message });
        return { ok: false, error: (e as Error).message };
      }
      let replacement: Server<undefined>;
      try {
        replacement = Bun.serve(serveOptions(pair, server.port!, true));
      } catch (e) {
        log.error("TLS reload failed: still serving the previous certificate", { error: (e as Error).message });
        return { ok: false, error: (e as Error).message };
      }
      const old = server;
      server = replacement;
      drain(old);
      const cert = new X509Certificate(pair.cert);
      log.info("TLS certificate reloaded", { subject: cert.subject.replace(/\n/g, ", "), validTo: new Date(cert.validTo).toISOString(), fingerprint256: cert.fingerprint256 });
      return { ok: true, reloaded: true };
    });
    reloading = next;
    return next;
  };

  /** Waits for a shutdown step up to SHUTDOWN_STEP_MS; past it logs which step and goes on (a step that fails still fails the shutdown). */
  const boundedStep = async (step: string, work: Promise<unknown>) => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = await Promise.race([
      work.then(() => false),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(true), SHUTDOWN_STEP_MS))),
    ]);
    clearTimeout(timer);
    if (late) log.warn("shutdown step did not finish in time; going on without it", { step, ms: SHUTDOWN_STEP_MS });
  };

  const shutdown = (reason: string, { drain = true }: { drain?: boolean } = {}) =>
    (stopping ??= (async () => {
      const graceMs = config.shutdownGraceMs;
      log.info("shutting down", { reason, drainMs: drain ? config.shutdownDrainMs : 0, graceMs });
      // First /readyz says 503 while every request is still served, so the load balancer moves
      // new ones to other nodes before this one stops accepting (a rolling restart loses none).
      startDraining(ctx);
      if (drain && config.shutdownDrainMs > 0) await Bun.sleep(config.shutdownDrainMs);
      if (redirectServer) await redirectServer.stop(true);
      // stop(false): stop accepting now, let in-flight requests finish (keep-alive idle
      // connections are closed); after the grace period, cut what is left.
      let graceTimer: ReturnType<typeof setTimeout> | undefined;
      const drained = server.stop(false);
      const timedOut = await Promise.race([
        drained.then(() => false),
        new Promise<boolean>((resolve) => (graceTimer = setTimeout(() => resolve(true), graceMs))),
      ]);
      clearTimeout(graceTimer);
      if (timedOut) {
        log.warn("in-flight requests did not finish in time; closing their connections", { graceMs });
        await server.stop(true);
      }
      await Promise.all(draining);
      // After HTTP (no new events can be published), before the database closes. Each step is
      // bounded: a step that never settles (a database that stopped answering) must not keep the
      // process from exiting. What it leaves is what a crash leaves — nothing acknowledged;
      // claimed deliveries are sent again when their lease runs out.
      await boundedStep("the delivery loop", deliveryLoop.stop());
      await boundedStep("leader election", leadership.stop());
      await boundedStep("the database", handle.close());
      dirLock.release();
      log.info("stopped", { reason });
    })());

  const failed = new Promise<DurabilityError>((resolve) =>
    handle.groupCommit.onFailure((e) => {
      log.error("WAL sync failed: stopping; writes since the last good sync answered 503", { error: e.message });
      const stopped = () => resolve(e);
      shutdown("WAL sync failed", { drain: false }).then(stopped, stopped);
    }),
  );
  return {
    ctx,
    get server() {
      return server;
    },
    redirectServer,
    url: server.url,
    shutdown,
    failed,
    reloadTls,
  };
}
