import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../src/app";
import { testConfig, type Config } from "../src/config";
import { openTestDatabase } from "./support/test-database";
export { onPostgres, testOnSqlite } from "./support/test-database";
import type { WalSync } from "../src/db/group-commit";
import { silentLogger } from "../src/log";
import type { AppContext } from "../src/context";
import { contractChecker, type ContractChecker } from "./contract";
import { ephemeralSecretBox } from "../src/lib/secret-box";

export const ADMIN_TOKEN = "test-admin-token-0123456789";

/**
 * A real app over a real database: a SQLite file in a fresh temp directory, or — in the suite's
 * PostgreSQL run (`GATEHOUSE_TEST_ENGINE=postgres`) — a fresh database of its own on the run's
 * server (test/support/test-database.ts). Tests talk to it through `app.handle(new Request(...))`,
 * exactly the surface clients see. `walSync` replaces the WAL's fdatasync (a test that holds or
 * fails syncs; SQLite only).
 */
export function createTestApp(overrides: Partial<Config> = {}, opts: { walSync?: WalSync; sqlite?: boolean } = {}) {
  // an existing data directory (e.g. a database an older release left) when given; else a fresh one
  const dir = overrides.dataDir ?? mkdtempSync(join(tmpdir(), "gatehouse-test-"));
  const config = testConfig({ dataDir: dir, adminToken: ADMIN_TOKEN, baseUrl: "https://gatehouse.test", ...overrides });
  const handle = openTestDatabase(dir, opts);
  const ctx: AppContext = { config, db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: "test", secrets: ephemeralSecretBox() };
  const app = createApp(ctx);
  holdToContract(app);
  const request = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; rawBody?: string | Uint8Array | ReadableStream | Blob } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | Uint8Array | ReadableStream | Blob | undefined = init.rawBody;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    return app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  };
  const admin = (method: string, path: string, body?: unknown) =>
    request(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return {
    ctx,
    app,
    dir,
    /** The PostgreSQL database's URL in the PostgreSQL run; null on SQLite. */
    databaseUrl: handle.url,
    request,
    admin,
    close() {
      handle.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Polls `check` until it is truthy (state reached in the background), failing after `timeoutMs`. */
export async function until<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v) return v as NonNullable<T>;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** Checkers by the app's route count: every test app has the same routes, so one document serves all. */
const checkers = new Map<number, Promise<ContractChecker>>();

/**
 * Makes `app.handle` hold every answer to the OpenAPI document the app serves (test/contract.ts):
 * a response that does not match it throws, failing the test that made the request.
 */
export function holdToContract(app: ReturnType<typeof createApp>) {
  const handle = app.handle.bind(app);
  const checkerFor = () => {
    const key = app.routes.length;
    let checker = checkers.get(key);
    if (!checker) {
      checker = handle(new Request("http://localhost/openapi/json")).then(async (r) => contractChecker((await r.json()) as Parameters<typeof contractChecker>[0]));
      checkers.set(key, checker);
    }
    return checker;
  };
  app.handle = async (request: Request) => {
    const check = await checkerFor();
    const response = await handle(request);
    await check(request, response);
    return response;
  };
}
