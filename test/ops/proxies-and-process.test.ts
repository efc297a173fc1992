import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { diskShortfall, READY_MIN_FREE_BYTES } from "../../src/ops/storage";
import { forwardedClient, trustedProxyList } from "../../src/http/request-info";
import { ADMIN_TOKEN, startInProcess } from "../server/harness";

const behindProxy = await startInProcess({ trustedProxies: ["127.0.0.1", "10.0.0.0/8"] });
const direct = await startInProcess();
afterAll(async () => {
  await behindProxy.close();
  await direct.close();
});

test("X-Forwarded-For is believed only from a listed proxy, read right to left past trusted hops", () => {
  const trusted = trustedProxyList(["127.0.0.1", "10.0.0.0/8", "fd00::/8"]);
  expect(forwardedClient("127.0.0.1", "203.0.113.9", trusted)).toBe("203.0.113.9");
  // What the client wrote itself (left) is never believed over what the proxies appended.
  expect(forwardedClient("127.0.0.1", "127.0.0.1, 198.51.100.7, 10.1.2.3", trusted)).toBe("198.51.100.7");
  expect(forwardedClient("::ffff:127.0.0.1", "2001:db8::5", trusted)).toBe("2001:db8::5");
  expect(forwardedClient("fd12::1", "198.51.100.7", trusted)).toBe("198.51.100.7");
  expect(forwardedClient("198.51.100.1", "127.0.0.1", trusted)).toBe("198.51.100.1"); // not a proxy: header ignored
  expect(forwardedClient("127.0.0.1", "garbage, 10.0.0.2", trusted)).toBe("10.0.0.2");
  expect(forwardedClient("127.0.0.1", "203.0.113.9", null)).toBe("127.0.0.1");
});

test("behind a trusted proxy: the log names the client, /metrics from a remote client needs the token, a loopback client does not", async () => {
  const remote = await fetch(`${behindProxy.base}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } });
  expect(remote.status).toBe(401);
  const line = behindProxy.lines.findLast((l) => l.msg === "request" && l.path === "/metrics");
  expect(line).toMatchObject({ remote: "203.0.113.9", proxy: "127.0.0.1", status: 401 });
  expect((await fetch(`${behindProxy.base}/metrics`, { headers: { "x-forwarded-for": "127.0.0.1" } })).status).toBe(200);
  expect((await fetch(`${behindProxy.base}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(200);
  // Without GATEHOUSE_TRUSTED_PROXIES the header proves nothing: any proxied request needs the token.
  expect((await fetch(`${direct.base}/metrics`, { headers: { "x-forwarded-for": "127.0.0.1" } })).status).toBe(401);
});

test("/metrics has the standard process metrics", async () => {
  const text = await (await fetch(`${direct.base}/metrics`)).text();
  for (const name of ["process_cpu_seconds_total", "process_open_fds", "process_max_fds", "process_virtual_memory_bytes", "process_resident_memory_bytes", "process_start_time_seconds"])
    expect(text).toMatch(new RegExp(`^${name} \\d`, "m"));
  expect(text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
  expect(Number(/^process_open_fds (\d+)/m.exec(text)![1])).toBeGreaterThan(2);
});

test("/readyz wants room for the largest write, not only for a probe", () => {
  expect(diskShortfall(null)).toBeNull();
  expect(diskShortfall(READY_MIN_FREE_BYTES)).toBeNull();
  expect(diskShortfall(60_000)).toContain("60000 bytes free");
  expect(READY_MIN_FREE_BYTES).toBeGreaterThanOrEqual(2 * 32 * 1024 * 1024);
});

test("HTTPS answers carry HSTS", async () => {
  const dir = behindProxy.dir;
  const cert = join(dir, "c.pem");
  const key = join(dir, "k.pem");
  expect(Bun.spawnSync(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=localhost"], { stderr: "pipe" }).exitCode).toBe(0);
  const tls = await startInProcess({ tlsCertFile: cert, tlsKeyFile: key });
  try {
    const r = await fetch(`${tls.base}/healthz`, { tls: { rejectUnauthorized: false } } as RequestInit);
    expect(r.headers.get("strict-transport-security")).toBe("max-age=31536000");
    expect((await fetch(`${direct.base}/healthz`)).headers.get("strict-transport-security")).toBeNull();
  } finally {
    await tls.close();
  }
});
