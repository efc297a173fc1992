import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig, type Config } from "../../src/config";
import { createLogger } from "../../src/log";
import { startGatehouse, type RunningGatehouse, type StartOptions } from "../../src/server";

export const ADMIN_TOKEN = "server-test-admin-token";

/**
 * The real server (startGatehouse: Bun.serve, TLS, redirect listener, shutdown) in this process,
 * on 127.0.0.1 and a free port, over a fresh data dir; log lines are captured as objects.
 */
export async function startInProcess(overrides: Partial<Config> = {}, opts: StartOptions = {}) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-server-"));
  const lines: Record<string, unknown>[] = [];
  const log = createLogger("debug", (l) => lines.push(JSON.parse(l)));
  const config = testConfig({ host: "127.0.0.1", port: 0, dataDir: join(dir, "data"), adminToken: ADMIN_TOKEN, ...overrides });
  const running: RunningGatehouse = await startGatehouse(config, log, opts);
  return {
    ...running,
    dir,
    lines,
    base: running.url.href.replace(/\/$/, ""),
    async close() {
      await running.shutdown("test");
      rmSync(dir, { recursive: true, force: true });
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
