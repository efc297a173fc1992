/**
 * Secrets on disk and in output, against the compiled binary started under umask 022 (what a
 * shell outside systemd leaves): owner-only files, webhook secrets encrypted at rest (no `whsec_`
 * in the database, its WAL or a backup — on PostgreSQL, in a `pg_dump` of the database), and no
 * secret in anything the process prints.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BINARY, binaryDatabase, binaryOnPostgres, buildBinary, runBinaryCommand, startBinary, type BinaryDatabase } from "./binary";
import { jsonLines } from "../cli/json-lines";
import { postgresBinDir } from "../support/postgres";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-secrets-"));
let database: BinaryDatabase;
beforeAll(async () => {
  await buildBinary();
  database = await binaryDatabase("secrets");
}, 120_000);
afterAll(async () => {
  await database?.drop();
  rmSync(dir, { recursive: true, force: true });
});

const ADMIN = "secrets-e2e-admin-token-0123456789";
const umask022 = (binary: string) => ["sh", "-c", 'umask 022 && exec "$0" "$@"', binary];
const mode = (path: string) => statSync(path).mode & 0o777;

test("under umask 022: data directory 0700, every file 0600, secrets sealed in the database, WAL and backup, never printed", async () => {
  const dataDir = join(dir, "data");
  const env = { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_ADMIN_TOKEN: ADMIN, ...database.env };
  const bin = await startBinary({ command: umask022(await buildBinary()), env });
  let secrets: string[] = [];
  let backupOut = { code: -1, stdout: "", stderr: "" };
  const backup = join(dir, "acme-backup.db");
  let dumped = "";
  try {
    const admin = (path: string, body?: unknown) =>
      fetch(`${bin.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    const created = (await (await admin("/api/admin/webhooks", { url: "https://hooks.example.com/in", events: ["*"] })).json()) as { id: number; secret: string };
    const rotated = (await (await admin(`/api/admin/webhooks/${created.id}/rotate-secret`)).json()) as { secret: string };
    secrets = [created.secret, rotated.secret];
    expect(secrets.every((s) => s.startsWith("whsec_"))).toBe(true);

    if (binaryOnPostgres) {
      // The DBA's backup of a PostgreSQL instance: every row of the database, as text.
      const dump = Bun.spawnSync([join(postgresBinDir() ?? "/usr/bin", "pg_dump"), "--no-owner", database.url!], { stdout: "pipe", stderr: "pipe" });
      expect({ code: dump.exitCode, stderr: dump.stderr.toString() }).toEqual({ code: 0, stderr: "" });
      dumped = dump.stdout.toString();
      expect(dumped).toContain("COPY public.webhook_subscriptions");
    } else {
      // While serving: the WAL holds the latest writes.
      const wal = readFileSync(join(dataDir, "gatehouse.db-wal")).toString("latin1");
      expect(wal).not.toContain("whsec_");
      const viaShell = Bun.spawnSync([...umask022(BINARY), "backup", backup], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdout: "pipe", stderr: "pipe" });
      backupOut = { code: viaShell.exitCode, stdout: viaShell.stdout.toString(), stderr: viaShell.stderr.toString() };
      expect(backupOut).toMatchObject({ code: 0 });
    }
  } finally {
    expect(await bin.stop()).toBe(0);
  }

  expect(mode(dataDir)).toBe(0o700);
  const files = readdirSync(dataDir);
  expect(files).toContain("secret.key");
  expect(files).toContain("serve.lock");
  expect(files.includes("gatehouse.db")).toBe(!binaryOnPostgres);
  for (const f of files) expect({ f, mode: mode(join(dataDir, f)).toString(8) }).toEqual({ f, mode: "600" });
  if (!binaryOnPostgres) expect(mode(backup)).toBe(0o600);

  const stored = binaryOnPostgres ? [dumped] : [join(dataDir, "gatehouse.db"), backup].map((file) => readFileSync(file).toString("latin1"));
  for (const raw of stored) {
    expect(raw).not.toContain("whsec_");
    for (const s of secrets) expect(raw).not.toContain(s.slice("whsec_".length, 30));
  }
  // Nothing the server or the backup command printed holds a secret or the admin token; stderr is JSON.
  const printed = bin.logs() + backupOut.stdout + backupOut.stderr;
  for (const s of [...secrets, ADMIN]) expect(printed).not.toContain(s);
  jsonLines(backupOut.stderr);
  for (const line of bin.logs().split("\n").filter(Boolean)) JSON.parse(line);
}, 90_000);

test("a restored database without its key file is refused at start (exit 2), naming the key setting", async () => {
  const dataDir = join(dir, "data");
  rmSync(join(dataDir, "secret.key"));
  const r = await runBinaryCommand(["serve"], { GATEHOUSE_DATA_DIR: dataDir, GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: "0", ...database.env });
  expect(r.code).toBe(2);
  expect(jsonLines(r.stderr).text).toContain("GATEHOUSE_SECRET_KEY_FILE");
}, 30_000);
