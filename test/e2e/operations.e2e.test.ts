/**
 * What an admin's systemd unit relies on, against the compiled binary: SIGHUP reloads the TLS
 * pair without a failed request, exit codes follow the table in src/cli/exit-codes.ts, and
 * everything on stderr is a JSON line.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connect } from "node:tls";
import { acceptQueueMigration } from "../../src/server/accept-queue";
import { jsonLines } from "../cli/json-lines";
import { freePort } from "../server/harness";
import { buildBinary, runBinaryCommand, startBinary } from "./binary";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-ops-"));
beforeAll(() => buildBinary(), 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function certificate(name: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const gen = Bun.spawnSync(
    ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", `/CN=${name}`, "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"],
    { stderr: "pipe" },
  );
  if (gen.exitCode !== 0) throw new Error(gen.stderr.toString());
  return { cert, key };
}

/** The CN of the certificate a fresh TLS handshake is served. */
function servedName(url: string): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port), rejectUnauthorized: false, servername: "localhost" }, () => {
      const cn = socket.getPeerCertificate().subject?.CN;
      socket.destroy();
      resolve(String(cn));
    });
    socket.on("error", reject);
  });
}

/**
 * Turns on net.ipv4.tcp_migrate_req for the test when this user may (root in CI, per network
 * namespace), as docs/operations.md tells admins to; answers whether it is on and how to undo.
 */
function migrateAcceptQueue(): { on: boolean; restore: () => void } {
  const file = "/proc/sys/net/ipv4/tcp_migrate_req";
  const before = acceptQueueMigration();
  if (before !== false) return { on: before === true, restore: () => {} };
  try {
    writeFileSync(file, "1");
  } catch {
    return { on: false, restore: () => {} };
  }
  return { on: readFileSync(file, "utf8").trim() === "1", restore: () => writeFileSync(file, "0") };
}

test("SIGHUP with a rotated certificate: new handshakes get the new one, no request fails; a bad one is refused and the old keeps serving", async () => {
  const migration = migrateAcceptQueue();
  const a = certificate("old-cert");
  const b = certificate("new-cert");
  const live = { cert: join(dir, "live.crt"), key: join(dir, "live.key") };
  copyFileSync(a.cert, live.cert);
  copyFileSync(a.key, live.key);
  const bin = await startBinary({ env: { GATEHOUSE_TLS_CERT_FILE: live.cert, GATEHOUSE_TLS_KEY_FILE: live.key } });
  try {
    expect(await servedName(bin.url)).toBe("old-cert");
    // Clients keep calling throughout, some on kept-alive connections, some on fresh ones.
    let stop = false;
    const failures: string[] = [];
    let answered = 0;
    const client = async (keepalive: boolean) => {
      while (!stop) {
        try {
          const r = await fetch(`${bin.url}/healthz`, { keepalive, tls: { rejectUnauthorized: false } } as RequestInit);
          if (r.status !== 200) failures.push(`status ${r.status}`);
          await r.arrayBuffer();
          answered++;
        } catch (e) {
          failures.push(`${keepalive ? "kept-alive" : "fresh"}: ${String(e)}`);
        }
      }
    };
    const clients = [true, true, true, false, false, false].map(client);
    await Bun.sleep(200);

    copyFileSync(b.cert, live.cert);
    copyFileSync(b.key, live.key);
    bin.proc.kill("SIGHUP");
    for (let i = 0; i < 200 && !bin.logs().includes('"msg":"previous TLS listener closed'); i++) await Bun.sleep(25);
    expect(bin.logs()).toContain('"msg":"TLS certificate reloaded"');
    expect(await servedName(bin.url)).toBe("new-cert");

    // A broken pair (the new certificate with the old key): refused, logged, still serving the new one.
    copyFileSync(a.key, live.key);
    bin.proc.kill("SIGHUP");
    for (let i = 0; i < 200 && !bin.logs().includes('"msg":"TLS reload refused: still serving the previous certificate"'); i++) await Bun.sleep(25);
    expect(bin.logs()).toContain("does not belong to the certificate");
    await Bun.sleep(200);
    expect(await servedName(bin.url)).toBe("new-cert");

    stop = true;
    await Promise.all(clients);
    if (migration.on) {
      expect(failures).toEqual([]);
      expect(bin.logs()).not.toContain("tcp_migrate_req is 0");
    } else {
      // Without migration the kernel may reset a fresh connection queued on the closing listener
      // (never a kept-alive one, which moved on `connection: close`); the admin was warned at start.
      expect(bin.logs()).toContain("tcp_migrate_req is 0");
      for (const failure of failures) expect(failure).toMatch(/^fresh: .*ECONNRESET/);
    }
    expect(answered).toBeGreaterThan(50);
  } finally {
    migration.restore();
    expect(await bin.stop()).toBe(0);
  }
  for (const line of bin.logs().split("\n").filter(Boolean)) JSON.parse(line);
}, 60_000);

test("exit codes: a certificate/key mismatch, a taken port and a bad value exit 2 with one JSON line and create no database", async () => {
  const a = certificate("pair-a");
  const b = certificate("pair-b");
  const dataDir = join(dir, "never-created");
  const base = { GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: "0", GATEHOUSE_DATA_DIR: dataDir };

  const mismatch = await runBinaryCommand(["serve"], { ...base, GATEHOUSE_TLS_CERT_FILE: a.cert, GATEHOUSE_TLS_KEY_FILE: b.key });
  expect(mismatch.code).toBe(2);
  const said = jsonLines(mismatch.stderr);
  expect(said.lines).toHaveLength(1);
  expect(said.text).toContain(`GATEHOUSE_TLS_KEY_FILE: the key in ${b.key} does not belong to the certificate in ${a.cert}`);
  expect(mismatch.stderr).not.toContain("    at ");
  expect(existsSync(dataDir)).toBe(false);

  const garbage = join(dir, "garbage.crt");
  writeFileSync(garbage, "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n");
  const unreadable = await runBinaryCommand(["serve"], { ...base, GATEHOUSE_TLS_CERT_FILE: garbage, GATEHOUSE_TLS_KEY_FILE: a.key });
  expect(unreadable.code).toBe(2);
  expect(jsonLines(unreadable.stderr).text).toContain("GATEHOUSE_TLS_CERT_FILE");

  const badValue = await runBinaryCommand(["serve"], { ...base, GATEHOUSE_WEBHOOK_TIMEOUT_MS: "soon" });
  expect(badValue.code).toBe(2);
  expect(jsonLines(badValue.stderr).lines).toHaveLength(1);
  expect(existsSync(dataDir)).toBe(false);

  // Two organizations given the same HTTPS port by mistake: the second says so and exits 2
  // (the listener's SO_REUSEPORT, used for reloads, must not let it share the port silently).
  const port = freePort();
  const first = await startBinary({ env: { GATEHOUSE_PORT: String(port), GATEHOUSE_TLS_CERT_FILE: a.cert, GATEHOUSE_TLS_KEY_FILE: a.key } });
  try {
    for (const tls of [{ GATEHOUSE_TLS_CERT_FILE: b.cert, GATEHOUSE_TLS_KEY_FILE: b.key }, {}] as Record<string, string>[]) {
      const second = await runBinaryCommand(["serve"], { ...base, GATEHOUSE_DATA_DIR: join(dir, `second-${Object.keys(tls).length}`), GATEHOUSE_PORT: String(port), ...tls });
      expect(second.code).toBe(2);
      expect(jsonLines(second.stderr).text).toContain("address in use");
    }
  } finally {
    expect(await first.stop()).toBe(0);
  }
}, 60_000);
