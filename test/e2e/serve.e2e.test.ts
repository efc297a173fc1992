import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { binaryOnPostgres, buildBinary, runBinaryCommand, startBinary, type RunningBinary } from "./binary";

// The compiled executable, started from an unrelated temp directory that holds a stray .env
// and bunfig.toml: if either were auto-loaded, the bad log level would stop it (exit 2) or the
// preload would leave a marker file.
const cwd = mkdtempSync(join(tmpdir(), "gatehouse-cwd-"));
writeFileSync(join(cwd, ".env"), "GATEHOUSE_LOG_LEVEL=nonsense\n");
writeFileSync(join(cwd, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
writeFileSync(join(cwd, "preload.ts"), `require("node:fs").writeFileSync(${JSON.stringify(join(cwd, "preloaded"))}, "1");\n`);

let bin: RunningBinary;
beforeAll(async () => {
  await buildBinary();
  bin = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: "e2e-admin-token-0123456789" }, cwd });
}, 120_000);
afterAll(async () => {
  rmSync(cwd, { recursive: true, force: true });
  if (bin && bin.proc.exitCode === null) await bin.stop();
});

test("the compiled binary serves /healthz and /readyz from any directory", async () => {
  const h = await fetch(`${bin.url}/healthz`);
  expect(h.status).toBe(200);
  expect(await h.json()).toEqual({ status: "ok" });
  expect(h.headers.get("x-request-id")).toBeTruthy();
  expect((await fetch(`${bin.url}/readyz`)).status).toBe(200);
});

test("it ignores a stray .env and bunfig.toml in its working directory", () => {
  expect(existsSync(join(cwd, "preloaded"))).toBe(false);
  expect(bin.logs()).not.toContain("nonsense");
});

test("the compiled binary serves the docs UI, its embedded bundle and the document", async () => {
  const page = await fetch(`${bin.url}/openapi`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const script = /<script src="([^"]+)"/.exec(html)![1]!;
  const bundle = await fetch(`${bin.url}${script}`);
  expect(bundle.status).toBe(200);
  expect((await bundle.text()).length).toBeGreaterThan(1_000_000);
  const doc = (await (await fetch(`${bin.url}/openapi/json`)).json()) as { openapi: string; paths: Record<string, unknown> };
  expect(doc.openapi).toStartWith("3.1");
  expect(doc.paths["/healthz"]).toBeDefined();
});

test("the compiled binary serves the admin console and its embedded assets", async () => {
  for (const path of ["/console", "/console/app.mjs", "/console/webhooks.mjs", "/console/console.css"]) {
    const r = await fetch(`${bin.url}${path}`);
    expect(r.status).toBe(200);
    expect((await r.text()).length).toBeGreaterThan(500);
  }
});

test("SQLite file: backup copies the live database while the server runs (on PostgreSQL it exits 2 naming pg_dump)", async () => {
  if (binaryOnPostgres) {
    const refused = await runBinaryCommand(["backup", join(cwd, "pg-backup.db")], { GATEHOUSE_DATA_DIR: join(bin.dir, "data"), ...bin.storageEnv }, cwd);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("back it up with pg_dump");
    expect(existsSync(join(cwd, "pg-backup.db"))).toBe(false);
  }
  // The backup of a file: a server on one, whatever the run's engine.
  const live = binaryOnPostgres ? await startBinary({ env: {}, cwd, sqliteOnly: true }) : bin;
  try {
    const target = join(cwd, "live-backup.db");
    const r = await runBinaryCommand(["backup", target], { GATEHOUSE_DATA_DIR: join(live.dir, "data") }, cwd);
    // stderr says which database the command used (one JSON line), and nothing else.
    expect(r.stderr.trim().split("\n").map((l) => JSON.parse(l).msg)).toEqual(["using database"]);
    expect(r.code).toBe(0);
    const copy = new Database(target, { readonly: true });
    expect((copy.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBeGreaterThan(0);
    copy.close();
    expect((await fetch(`${live.url}/readyz`)).status).toBe(200);
  } finally {
    if (live !== bin) expect(await live.stop()).toBe(0);
  }
});

test("SIGTERM shuts down gracefully with exit 0 and lifecycle log lines", async () => {
  const code = await bin.stop("SIGTERM");
  expect(code).toBe(0);
  const lines = bin.logs().trim().split("\n").map((l) => JSON.parse(l) as { msg: string });
  const msgs = lines.map((l) => l.msg);
  expect(msgs).toContain("listening");
  expect(msgs).toContain("shutting down");
  expect(msgs.at(-1)).toBe("stopped");
});
