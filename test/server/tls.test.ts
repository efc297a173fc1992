import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runCli } from "../../src/cli";
import { redirectTarget } from "../../src/server/redirect";
import { freePort, startInProcess } from "./harness";

// A self-signed certificate for localhost/127.0.0.1, made with the openssl CLI for this run.
const certDir = mkdtempSync(join(tmpdir(), "gatehouse-tls-"));
const certFile = join(certDir, "cert.pem");
const keyFile = join(certDir, "key.pem");
beforeAll(() => {
  const r = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", keyFile, "-out", certFile, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`openssl failed: ${r.stderr.toString()}`);
});
afterAll(() => rmSync(certDir, { recursive: true, force: true }));

describe("HTTPS with a plain-HTTP 308 redirect listener", () => {
  let srv: Awaited<ReturnType<typeof startInProcess>>;
  let redirectPort: number;
  beforeAll(async () => {
    redirectPort = freePort();
    srv = await startInProcess({ tlsCertFile: certFile, tlsKeyFile: keyFile, httpRedirectPort: redirectPort });
  });
  afterAll(() => srv?.close());

  test("serves HTTPS verifiable with the certificate as CA", async () => {
    expect(srv.base.startsWith("https://")).toBe(true);
    const r = await fetch(`${srv.base}/healthz`, { tls: { ca: readFileSync(certFile, "utf8") } });
    expect(r.status).toBe(200);
    expect(await r.json()).toEqual({ status: "ok" });
  });

  test("does not speak plain HTTP on the HTTPS port", async () => {
    const port = new URL(srv.base).port;
    const plain = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.status, () => "refused");
    expect(plain).not.toBe(200);
  });

  test("the redirect listener answers 308 to the same path and query on HTTPS, for any method", async () => {
    const httpsPort = new URL(srv.base).port;
    for (const method of ["GET", "POST", "DELETE"]) {
      const r = await fetch(`http://127.0.0.1:${redirectPort}/scim/v2/Users?filter=userName%20eq%20%22a%22`, {
        method,
        redirect: "manual",
        ...(method === "POST" ? { body: JSON.stringify({ userName: "a" }), headers: { "content-type": "application/json" } } : {}),
      });
      expect(r.status).toBe(308);
      expect(r.headers.get("location")).toBe(`https://127.0.0.1:${httpsPort}/scim/v2/Users?filter=userName%20eq%20%22a%22`);
    }
  });

  test("following the redirect reaches the HTTPS server", async () => {
    const r = await fetch(`http://localhost:${redirectPort}/readyz`, { tls: { ca: readFileSync(certFile, "utf8") } });
    expect(r.status).toBe(200);
    expect(r.url).toStartWith("https://localhost:");
  });

  test("lifecycle logs say TLS is on and where the redirect listens", () => {
    expect(srv.lines.find((l) => l.msg === "listening")).toMatchObject({ tls: true });
    expect(srv.lines.find((l) => l.msg === "redirect listening")).toMatchObject({ status: 308 });
  });
});

test("redirectTarget prefers an https base URL, else the requested host on the HTTPS port", () => {
  expect(redirectTarget("http://10.0.0.5:8081/a/b?x=1", "https://gatehouse.example.com", 8443)).toBe("https://gatehouse.example.com/a/b?x=1");
  expect(redirectTarget("http://10.0.0.5:8081/a", "https://gatehouse.example.com:9443/prefix", 8443)).toBe("https://gatehouse.example.com:9443/a");
  expect(redirectTarget("http://host.lan:8081/a", "http://localhost:8080", 8443)).toBe("https://host.lan:8443/a");
  expect(redirectTarget("http://host.lan/a", "http://localhost:8080", 443)).toBe("https://host.lan/a");
  expect(redirectTarget("http://[::1]:8081/a", "http://localhost:8080", 8443)).toBe("https://[::1]:8443/a");
});

test("an unreadable or non-PEM TLS file stops `serve` with exit 2 naming the key", async () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-tlsbad-"));
  try {
    const notPem = join(dir, "cert.txt");
    writeFileSync(notPem, "hello");
    const cases: [Record<string, string>, string][] = [
      [{ GATEHOUSE_TLS_CERT_FILE: join(dir, "missing.pem"), GATEHOUSE_TLS_KEY_FILE: keyFile }, "GATEHOUSE_TLS_CERT_FILE: cannot read"],
      [{ GATEHOUSE_TLS_CERT_FILE: certFile, GATEHOUSE_TLS_KEY_FILE: join(dir, "missing.pem") }, "GATEHOUSE_TLS_KEY_FILE: cannot read"],
      [{ GATEHOUSE_TLS_CERT_FILE: notPem, GATEHOUSE_TLS_KEY_FILE: keyFile }, "GATEHOUSE_TLS_CERT_FILE: expected a PEM certificate"],
    ];
    for (const [env, message] of cases) {
      let err = "";
      const code = await runCli(["serve"], { GATEHOUSE_DATA_DIR: join(dir, "data"), GATEHOUSE_PORT: "0", GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_LOG_LEVEL: "error", ...env }, { out: () => {}, err: (t) => (err += t) });
      expect(code).toBe(2);
      expect(err).toContain(message);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
