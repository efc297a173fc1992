import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig, type Config } from "../../src/config";
import { createLogger } from "../../src/log";
import { startGatehouse, type RunningGatehouse, type StartOptions } from "../../src/server";
import { freshDatabase } from "../support/postgres";
import { onPostgres } from "../support/test-database";

export const ADMIN_TOKEN = "server-test-admin-token";

/**
 * The real server (startGatehouse: Bun.serve, TLS, redirect listener, shutdown) in this process,
 * on 127.0.0.1 and a free port, over a fresh data dir — and in the suite's PostgreSQL run over a
 * fresh database of its own on the run's server (`GATEHOUSE_DATABASE_URL`), unless `sqliteOnly`
 * (a test of SQLite's WAL sync, said in its name); log lines are captured as objects.
 */
export async function startInProcess(overrides: Partial<Config> = {}, opts: StartOptions & { sqliteOnly?: boolean } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-server-"));
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("debug", (l) => lines.push(JSON.parse(l)));
  const own = onPostgres && !opts.sqliteOnly && !("databaseUrl" in overrides) ? await freshDatabase("server") : null;
  const config = testConfig({ host: "127.0.0.1", port: 0, dataDir: join(dir, "data"), adminToken: ADMIN_TOKEN, databaseUrl: own?.url ?? null, ...overrides });
  const running: RunningGatehouse = await startGatehouse(config, log, opts);
  return {
    ...running,
    dir,
    lines,
    /** The PostgreSQL database's URL when the server runs on one; null on SQLite. */
    databaseUrl: config.databaseUrl,
    base: running.url.href.replace(/\/$/, ""),
    async close() {
      await running.shutdown("test");
      rmSync(dir, { recursive: true, force: true });
      await own?.drop();
    },
  };
}

/** A port that was free a moment ago (for listeners that cannot take port 0). */
export function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}
