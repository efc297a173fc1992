import { afterAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli";
import { migrations } from "../../src/db/migrations.generated";
import pkg from "../../package.json" with { type: "json" };
import { jsonLines } from "../cli/json-lines";

const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "gatehouse-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs `bun src/main.ts …` as a real process with only the given environment. */
function gatehouse(args: string[], env: Record<string, string> = {}) {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "src/main.ts"), ...args], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", GATEHOUSE_DATA_DIR: join(dir, "data"), ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

async function cli(args: string[], env: Record<string, string> = {}) {
  let out = "";
  let err = "";
  const code = await runCli(args, env, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

test("a bad configuration value exits 2 and names the key and what was expected", () => {
  const r = gatehouse(["serve"], { GATEHOUSE_PORT: "eighty" });
  expect(r.code).toBe(2);
  expect(jsonLines(r.stderr).text).toBe('GATEHOUSE_PORT: expected an integer between 0 and 65535, got "eighty"');
  expect(r.stdout).toBe("");
});

test("a bad value in the env file exits 2 too; the environment wins over the file", () => {
  const envFile = join(dir, "bad.env");
  writeFileSync(envFile, "GATEHOUSE_LOG_LEVEL=loud\nGATEHOUSE_WEBHOOK_TIMEOUT_MS=fast\n");
  const r = gatehouse(["migrate", "--env-file", envFile], { GATEHOUSE_LOG_LEVEL: "info" });
  expect(r.code).toBe(2);
  expect(jsonLines(r.stderr).text).toContain("GATEHOUSE_WEBHOOK_TIMEOUT_MS: expected an integer");
  expect(r.stderr).not.toContain("GATEHOUSE_LOG_LEVEL");
});

test("a missing env file or a misspelled key exits 2", async () => {
  const missing = await cli(["serve", "--env-file", join(dir, "nope.env")]);
  expect(missing.code).toBe(2);
  expect(missing.err).toContain("--env-file: cannot read");
  const typo = await cli(["migrate"], { GATEHOUSE_DATA_DIR: join(dir, "data"), GATEHOUSE_PROT: "80" });
  expect(typo.code).toBe(2);
  expect(typo.err).toContain("GATEHOUSE_PROT: unknown configuration key");
});

test("an unknown command or flag is one JSON line on stderr pointing at help, exit 2", async () => {
  const r = gatehouse(["frobnicate"]);
  expect(r.code).toBe(2);
  expect(jsonLines(r.stderr).text).toBe("unknown command frobnicate (gatehouse help lists the commands)");
  expect(r.stdout).toBe("");
  for (const args of [["serve", "--port", "1"], ["--verbose"], ["backup"], ["config"], ["config", "show"]]) {
    const c = await cli(args);
    expect(c.code).toBe(2);
    expect(jsonLines(c.err).lines).toHaveLength(1);
    expect(c.out).toBe("");
  }
});

test("every command answers --help with its own usage on stdout, exit 0", async () => {
  for (const [args, expected] of [
    [["serve", "--help"], "Usage: gatehouse serve"],
    [["migrate", "-h"], "Usage: gatehouse migrate"],
    [["backup", "--help"], "Usage: gatehouse backup <file>"],
    [["scim-token", "create", "--help"], "Usage: gatehouse scim-token create"],
    [["config", "check", "--help"], "Usage: gatehouse config check"],
    [["version", "--help"], "Usage: gatehouse version"],
    [["help", "backup"], "Usage: gatehouse backup <file>"],
  ] as const) {
    const r = await cli([...args]);
    expect(r.code).toBe(0);
    expect(r.out.startsWith(expected)).toBe(true);
    expect(r.err).toBe("");
  }
});

test("help and version print on stdout and exit 0", async () => {
  const help = await cli(["help"]);
  expect(help.code).toBe(0);
  expect(help.out).toContain("backup <file>");
  const version = gatehouse(["version"]);
  expect(version.code).toBe(0);
  // From source: the checkout's commit, no build date, the host platform.
  const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT }).stdout.toString().trim();
  const commit = git("rev-parse", "--short=12", "HEAD") + (git("status", "--porcelain", "--untracked-files=no") ? "-dirty" : "");
  expect(version.stdout).toBe(`gatehouse ${pkg.version} (schema ${migrations.length - 1}, commit ${commit}, built from source, bun ${Bun.version}, target source (${process.platform}-${process.arch}))\n`);
});

test("migrate applies every migration to a fresh database, then nothing on a re-run", async () => {
  const env = { GATEHOUSE_DATA_DIR: join(dir, "migrate-data") };
  const first = await cli(["migrate"], env);
  expect(first.code).toBe(0);
  expect(first.out).toContain(`${migrations.length} migration(s) applied`);
  const again = await cli(["migrate"], env);
  expect(again.code).toBe(0);
  expect(again.out).toContain("0 migration(s) applied");
  const db = new Database(join(dir, "migrate-data", "gatehouse.db"), { readonly: true });
  expect((db.query("SELECT count(*) AS n FROM __drizzle_migrations").get() as { n: number }).n).toBe(migrations.length);
  expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  db.close();
});

test("backup writes a consistent, openable copy and refuses to overwrite", async () => {
  const env = { GATEHOUSE_DATA_DIR: join(dir, "backup-data") };
  expect((await cli(["migrate"], env)).code).toBe(0);
  const live = new Database(join(dir, "backup-data", "gatehouse.db"));
  live.run("INSERT INTO settings (key, value) VALUES ('scim_enabled', 'false')");
  live.close();

  const target = join(dir, "copy.db");
  const r = await cli(["backup", target], env);
  expect(r.code).toBe(0);
  expect(r.out).toContain(`backup of ${join(dir, "backup-data", "gatehouse.db")} written to ${target}`);
  const copy = new Database(target, { readonly: true });
  expect(copy.query("SELECT value FROM settings WHERE key = 'scim_enabled'").get()).toEqual({ value: "false" });
  expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
  copy.close();

  const again = await cli(["backup", target], env);
  expect(again.code).toBe(2);
  expect(jsonLines(again.err).text).toContain("already exists");
});

test("backup of a data dir without a database fails clearly (exit 2: the admin must point it at one)", async () => {
  const r = await cli(["backup", join(dir, "x.db")], { GATEHOUSE_DATA_DIR: join(dir, "empty") });
  expect(r.code).toBe(2);
  expect(jsonLines(r.err).text).toContain("no database at");
});

test("an unusable data dir exits 2 naming GATEHOUSE_DATA_DIR", async () => {
  const notADir = join(dir, "a-file");
  writeFileSync(notADir, "x");
  for (const args of [["migrate"], ["serve"]]) {
    const r = await cli(args, { GATEHOUSE_DATA_DIR: notADir, GATEHOUSE_PORT: "0", GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_LOG_LEVEL: "error" });
    expect(r.code).toBe(2);
    expect(jsonLines(r.err).text).toContain("GATEHOUSE_DATA_DIR: cannot open");
  }
});

test("a port in use fails `serve` with exit 2 (another service has it: restarting cannot help) and says so", async () => {
  const occupied = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  try {
    const r = await cli(["serve"], { GATEHOUSE_DATA_DIR: join(dir, "port-data"), GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: String(occupied.port), GATEHOUSE_LOG_LEVEL: "error" });
    expect(r.code).toBe(2);
    expect(jsonLines(r.err).text).toContain("address in use");
  } finally {
    occupied.stop(true);
  }
});
