import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startBinary } from "./binary";
import { freePort } from "../server/harness";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-e2e-tls-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test("the compiled binary serves HTTPS, redirects plain HTTP with 308, and exits 0 on SIGINT", async () => {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const gen = Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stderr: "pipe" });
  expect(gen.exitCode).toBe(0);
  const redirectPort = freePort();
  const bin = await startBinary({
    env: { GATEHOUSE_TLS_CERT_FILE: cert, GATEHOUSE_TLS_KEY_FILE: key, GATEHOUSE_HTTP_REDIRECT_PORT: String(redirectPort) },
  });
  try {
    expect(bin.url).toStartWith("https://127.0.0.1:");
    const r = await fetch(`${bin.url}/healthz`, { tls: { ca: await Bun.file(cert).text() } });
    expect(r.status).toBe(200);
    const redirect = await fetch(`http://127.0.0.1:${redirectPort}/openapi/json?x=1`, { redirect: "manual" });
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get("location")).toBe(`${bin.url}/openapi/json?x=1`);
  } finally {
    expect(await bin.stop("SIGINT")).toBe(0);
  }
  expect(bin.logs()).toContain('"msg":"stopped"');
});
