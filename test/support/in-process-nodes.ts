/**
 * Several Gatehouse "nodes" in one test process over one PostgreSQL database: each an app of its
 * own (its own pool, store, caches, rate limiter, leadership), as separate processes would be, on
 * the same database URL. For tests of what must hold across nodes (test/server/cluster-node.test.ts); test/support/cluster.ts starts real processes instead.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../src/app";
import { testConfig, type Config } from "../../src/config";
import type { AppContext } from "../../src/context";
import { engine, useEngine } from "../../src/db/engine";
import { openPool } from "../../src/db/postgres/connect";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { postgresHandle } from "../../src/db/postgres/open";
import { ephemeralSecretBox, type SecretBox } from "../../src/lib/secret-box";
import { silentLogger } from "../../src/log";
import { ADMIN_TOKEN } from "../helpers";
import { freshDatabase } from "./postgres";

export type TestNode = {
  ctx: AppContext;
  /** The app's own handler, for a request built whole (a browser's, with its cookies and URL). */
  handle(request: Request): Promise<Response>;
  request(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
};

/** An app over `url` (a migrated database), as one more node would open it; `secrets`: the key, shared by a cluster's nodes. */
export function openTestNode(url: string, overrides: Partial<Config> = {}, secrets: SecretBox = ephemeralSecretBox()): TestNode {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-node-"));
  const { sql } = openPool({ url, poolSize: 4, caFile: null });
  const handle = postgresHandle(sql);
  let app: ReturnType<typeof createApp>;
  let ctx: AppContext;
  try {
    const config = testConfig({ dataDir: dir, adminToken: ADMIN_TOKEN, baseUrl: "https://gatehouse.test", ...overrides });
    ctx = { config, db: handle.db, sqlite: null, groupCommit: handle.groupCommit, log: silentLogger, version: "test", secrets };
    app = createApp(ctx);
  } catch (e) {
    void handle.store.close().catch(() => {}); // settles on its own: the pool never connected
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  const request: TestNode["request"] = (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers["content-type"] ??= "application/json";
    return app.handle(new Request(`http://localhost${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) }));
  };
  return {
    ctx,
    handle: (r) => app.handle(r),
    request,
    admin: (method, path, body) => request(method, path, { body, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }),
    async close() {
      try {
        await handle.store.close();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}

export type TestCluster = { url: string; nodes: TestNode[]; close(): Promise<void> };

/**
 * A fresh migrated database on the run's PostgreSQL server and `count` nodes on it, sharing one
 * secret key (GATEHOUSE_SECRET_KEY_FILE, as every node of a cluster must). `close` closes the
 * nodes, drops the database and gives the process back the engine it had — every part of it even
 * when another failed (and all of it when the start itself failed), so a failing test leaves no
 * temp dir, pool or database behind.
 */
export async function startTestCluster(count: number, overrides: Partial<Config> = {}): Promise<TestCluster> {
  const before = engine();
  const fresh = await freshDatabase("cluster");
  const nodes: TestNode[] = [];
  const close = async () => {
    try {
      const closed = await Promise.allSettled(nodes.splice(0).map((n) => n.close()));
      const failed = closed.find((c) => c.status === "rejected");
      if (failed) throw failed.reason;
    } finally {
      try {
        await fresh.drop();
      } finally {
        useEngine(before);
      }
    }
  };
  try {
    const { sql } = openPool({ url: fresh.url, poolSize: 1, caFile: null });
    try {
      await migratePostgres(sql);
    } finally {
      await sql.end();
    }
    const secrets = ephemeralSecretBox();
    for (let i = 0; i < count; i++) nodes.push(openTestNode(fresh.url, overrides, secrets));
  } catch (e) {
    await close().catch(() => {}); // the start's own error is the one to report
    throw e;
  }
  return { url: fresh.url, nodes: [...nodes], close };
}
