/**
 * The CLI against an env file shaped like the production one: the data directory is set only by
 * the unit's environment (GATEHOUSE_DATA_DIR=/var/lib/gatehouse/%i), never in the file.
 */
import { afterAll, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { unitDataDir } from "../../src/config";
import { jsonLines } from "../cli/json-lines";

const ROOT = join(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "gatehouse-prod-env-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const ADMIN = "prod-shaped-admin-token-0123456789";
const envFile = join(dir, "etc", "acme.env");
const unitDir = join(dir, "var", "lib", "gatehouse", "acme");
const elsewhere = join(dir, "root-home"); // where the admin stands when running the command
mkdirSync(join(dir, "etc"));
mkdirSync(elsewhere);
// The shipped example with this test's addresses; GATEHOUSE_DATA_DIR stays commented out.
writeFileSync(
  envFile,
  readFileSync(join(ROOT, "gatehouse.env.example"), "utf8")
    .replace(/^GATEHOUSE_BASE_URL=.*$/m, "GATEHOUSE_BASE_URL=http://127.0.0.1")
    .replace(/^GATEHOUSE_PORT=.*$/m, "GATEHOUSE_PORT=0\nGATEHOUSE_HOST=127.0.0.1")
    .replace(/^GATEHOUSE_TLS_(CERT|KEY)_FILE=.*$/gm, "")
    .replace(/^GATEHOUSE_HTTP_REDIRECT_PORT=.*$/m, "")
    .replace(/^GATEHOUSE_ADMIN_TOKEN=.*$/m, `GATEHOUSE_ADMIN_TOKEN=${ADMIN}`),
);

const base = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
function gatehouse(args: string[], env: Record<string, string>) {
  const r = Bun.spawnSync([process.execPath, join(ROOT, "src/main.ts"), ...args], { cwd: elsewhere, env: { ...base, ...env }, stdout: "pipe", stderr: "pipe" });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

test("the example env file leaves the data directory to the unit", () => {
  expect(readFileSync(envFile, "utf8")).not.toMatch(/^GATEHOUSE_DATA_DIR=/m);
});

test("scim-token against the production env file reaches the server's database, or refuses and says which database", async () => {
  const server = Bun.spawn([process.execPath, join(ROOT, "src/main.ts"), "serve", "--env-file", envFile], {
    cwd: dir,
    env: { ...base, GATEHOUSE_DATA_DIR: unitDir }, // what the unit's Environment= line does
    stdout: "pipe",
    stderr: "pipe",
  });
  try {
    let log = "";
    const reader = server.stdout.getReader();
    let url: string | null = null;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`server exited: ${log}`);
      log += new TextDecoder().decode(value);
      url = /"msg":"listening","url":"([^"]+)"/.exec(log)?.[1] ?? null;
    }
    reader.releaseLock();

    // As the admin first typed it (the README's old command): no database here, so no token.
    const refused = gatehouse(["scim-token", "create", "--name", "Entra", "--env-file", envFile], {});
    expect(refused.code).toBe(2);
    expect(refused.stdout).toBe("");
    const said = jsonLines(refused.stderr).text;
    expect(said).toContain(`no database at ${join(elsewhere, "data", "gatehouse.db")}`);
    expect(said).toContain("GATEHOUSE_DATA_DIR from default");
    expect(existsSync(join(elsewhere, "data"))).toBe(false);

    // As the docs say now: the unit's data directory.
    const created = gatehouse(["scim-token", "create", "--name", "Entra", "--env-file", envFile], { GATEHOUSE_DATA_DIR: unitDir });
    expect(created.code).toBe(0);
    const token = created.stdout.trim();
    expect(token.length).toBeGreaterThan(20);
    const using = jsonLines(created.stderr).lines.find((l) => l.msg === "using database");
    expect(using).toMatchObject({ database: join(unitDir, "gatehouse.db"), dataDirFrom: "environment" });
    // The running server knows the token: the IdP gets 200, not 401.
    const users = await fetch(`${url.replace(/\/$/, "")}/scim/v2/Users`, { headers: { authorization: `Bearer ${token}` } });
    expect(users.status).toBe(200);
  } finally {
    server.kill("SIGTERM");
    await server.exited;
  }
}, 60_000);

test("an env file named as the unit names it (/etc/gatehouse/NAME.env) implies the unit's data directory", () => {
  expect(unitDataDir("/etc/gatehouse/acme.env")).toBe("/var/lib/gatehouse/acme");
  expect(unitDataDir("/etc/gatehouse/../gatehouse/globex.env")).toBe("/var/lib/gatehouse/globex");
  expect(unitDataDir("/etc/gatehouse/gatehouse.env.example")).toBeNull();
  expect(unitDataDir("/srv/acme.env")).toBeNull();
  expect(unitDataDir("/etc/gatehouse/tls/acme.env")).toBeNull();
});

test("config check prints the effective configuration with its sources and secrets masked; exit 2 on a bad one", () => {
  const ok = gatehouse(["config", "check", "--env-file", envFile], { GATEHOUSE_DATA_DIR: unitDir });
  expect(ok.code).toBe(0);
  expect(ok.stdout).toMatch(/GATEHOUSE_ADMIN_TOKEN\s+\(set, not shown\)\s+# env file/);
  expect(ok.stdout).toMatch(new RegExp(`GATEHOUSE_DATA_DIR\\s+${unitDir.replace(/[/.]/g, "\\$&")}\\s+# environment`));
  expect(ok.stdout).toMatch(/GATEHOUSE_LOG_LEVEL\s+info\s+# default/);
  expect(ok.stdout + ok.stderr).not.toContain(ADMIN);
  jsonLines(ok.stderr);

  const bad = gatehouse(["config", "check", "--env-file", envFile], { GATEHOUSE_DATA_DIR: unitDir, GATEHOUSE_TLS_CERT_FILE: join(dir, "missing.crt"), GATEHOUSE_TLS_KEY_FILE: join(dir, "missing.key") });
  expect(bad.code).toBe(2);
  expect(jsonLines(bad.stderr).text).toContain("GATEHOUSE_TLS_CERT_FILE: cannot read");

  const noKey = gatehouse(["config", "check", "--env-file", envFile], { GATEHOUSE_DATA_DIR: unitDir, GATEHOUSE_SECRET_KEY_FILE: join(dir, "missing.key") });
  expect(noKey.code).toBe(2);
  expect(jsonLines(noKey.stderr).text).toContain("GATEHOUSE_SECRET_KEY_FILE: cannot read");
}, 30_000); // four starts of the CLI from source: seconds on a loaded machine

test("an invalid admin token is never printed, not even in the error naming it", () => {
  const secret = "hunter2 with spaces";
  const r = gatehouse(["config", "check", "--env-file", envFile], { GATEHOUSE_DATA_DIR: unitDir, GATEHOUSE_ADMIN_TOKEN: secret });
  expect(r.code).toBe(2);
  expect(jsonLines(r.stderr).text).toContain("GATEHOUSE_ADMIN_TOKEN: expected a token of visible ASCII characters");
  expect(r.stdout + r.stderr).not.toContain("hunter2");
});
