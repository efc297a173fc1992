/**
 * A real app over a SQLite file whatever engine the test run uses: the source an instance move
 * (`copy-to-postgres`) starts from. Like `createTestApp`, but always SQLite — in the suite's
 * PostgreSQL run `createTestApp` opens PostgreSQL. `close()` keeps the data directory: the caller
 * copies from it.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { testConfig, type Config } from "../../src/config";
import type { AppContext } from "../../src/context";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { useEngine } from "../../src/db/engine";
import { ephemeralSecretBox } from "../../src/lib/secret-box";
import { silentLogger } from "../../src/log";
import { ADMIN_TOKEN, holdToContract } from "../helpers";

export function sqliteInstance(overrides: Partial<Config> = {}) {
  useEngine("sqlite");
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-sqlite-instance-"));
  const config = testConfig({ dataDir: dir, adminToken: ADMIN_TOKEN, baseUrl: "https://gatehouse.test", ...overrides });
  const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: true });
  const ctx: AppContext = { config, db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: "test", secrets: ephemeralSecretBox() };
  const app = createApp(ctx);
  holdToContract(app);
  const request = (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      body = JSON.stringify(init.body);
      headers["content-type"] ??= "application/json";
    }
    return app.handle(new Request(`http://localhost${path}`, { method, headers, body }));
  };
  const admin = (method: string, path: string, body?: unknown) => request(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  return {
    ctx,
    app,
    dir,
    request,
    admin,
    /** Closes the database with its WAL checkpointed and emptied, so `gatehouse.db` alone holds every row; the directory stays. */
    async close() {
      await handle.groupCommit.close();
      handle.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      closeDatabase(handle);
    },
  };
}
