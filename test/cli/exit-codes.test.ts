import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { classifyFailure, EXIT_ADMIN_MUST_ACT, EXIT_TRANSIENT } from "../../src/cli/exit-codes";
import { DatabaseNewerThanBinaryError } from "../../src/db/migrate";
import { DatabaseConnectError } from "../../src/db/postgres/connect-error";
import { StartupConfigError } from "../../src/server";

/** The real error SQLite raises on a full disk (max_page_count stands in for the disk). */
function diskFullError(): unknown {
  const db = new Database(":memory:");
  db.exec("CREATE TABLE t (v TEXT)");
  const pages = (db.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  db.exec(`PRAGMA max_page_count = ${pages + 1}`);
  try {
    for (let i = 0; i < 100; i++) db.run("INSERT INTO t VALUES (?)", ["x".repeat(8192)]);
  } catch (e) {
    return e;
  } finally {
    db.close();
  }
  throw new Error("the database never filled up");
}

test("the exit-code table: the admin must act → 2, a retry may succeed → 1", () => {
  const errno = (code: string) => Object.assign(new Error(code), { code });
  const table: [unknown, number][] = [
    [new StartupConfigError("GATEHOUSE_TLS_KEY_FILE: the key does not belong to the certificate"), EXIT_ADMIN_MUST_ACT],
    [new DatabaseNewerThanBinaryError("the database is at schema version 20"), EXIT_ADMIN_MUST_ACT],
    [new DatabaseConnectError("PostgreSQL at …: authentication failed", false), EXIT_ADMIN_MUST_ACT],
    [new DatabaseConnectError("PostgreSQL at …: connection refused — retrying", true), EXIT_TRANSIENT],
    [errno("EADDRINUSE"), EXIT_ADMIN_MUST_ACT],
    [errno("EACCES"), EXIT_ADMIN_MUST_ACT],
    [diskFullError(), EXIT_TRANSIENT],
    [errno("ENOSPC"), EXIT_TRANSIENT],
    [errno("EIO"), EXIT_TRANSIENT],
    [new TypeError("undefined is not a function"), EXIT_TRANSIENT],
  ];
  for (const [error, code] of table) expect({ error: String(error), code: classifyFailure(error).code as number }).toEqual({ error: String(error), code });
  expect(classifyFailure(diskFullError()).message).toContain("storage failure");
  expect(classifyFailure(errno("EADDRINUSE")).message).toContain("address in use");
});

test("the systemd unit does not restart after exit 2 and does after 1", async () => {
  const unit = await Bun.file(new URL("../../scripts/gatehouse@.service", import.meta.url)).text();
  expect(unit).toMatch(/^Restart=on-failure$/m);
  expect(unit).toMatch(/^RestartPreventExitStatus=2$/m);
});

test("systemd-analyze verify accepts the template unit as an instance", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-unit-"));
  try {
    // verify checks that ExecStart names an executable: point it at a stand-in.
    const stand = join(dir, "gatehouse");
    writeFileSync(stand, "#!/bin/sh\n", { mode: 0o755 });
    const unit = readFileSync(new URL("../../scripts/gatehouse@.service", import.meta.url), "utf8").replaceAll("/usr/local/bin/gatehouse", stand);
    writeFileSync(join(dir, "gatehouse@.service"), unit);
    writeFileSync(join(dir, "gatehouse@acme.service"), unit);
    for (const name of ["gatehouse@.service", "gatehouse@acme.service"]) {
      const r = Bun.spawnSync(["systemd-analyze", "verify", "--man=no", join(dir, name)], { stdout: "pipe", stderr: "pipe" });
      // Any warning (an unknown directive, a bad value) is printed even when the exit code is 0.
      expect({ name, code: r.exitCode, output: r.stdout.toString() + r.stderr.toString() }).toEqual({ name, code: 0, output: "" });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
