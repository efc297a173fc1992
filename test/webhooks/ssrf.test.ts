import { expect, test } from "bun:test";
import { classifyAddress, resolveTarget, TargetRefusedError, validateTargetUrl } from "../../src/webhooks/ssrf";

test.each([
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["93.184.216.34", "public"],
  ["0.0.0.0", "unspecified"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["10.1.2.3", "private"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.1", "public"],
  ["192.168.1.1", "private"],
  ["100.64.0.1", "shared"],
  ["169.254.1.1", "link-local"],
  ["169.254.169.254", "metadata"],
  ["100.100.100.200", "metadata"],
  ["192.0.2.5", "documentation"],
  ["224.0.0.1", "multicast"],
  ["255.255.255.255", "reserved"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  // IPv4-embedding forms are judged as the IPv4 address they carry.
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:8.8.8.8", "public"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:169.254.169.254", "metadata"],
  ["::127.0.0.1", "loopback"],
  ["::ffff:0:127.0.0.1", "loopback"], // SIIT (RFC 2765)
  ["::ffff:0:a00:1", "private"],
  ["::ffff:0:169.254.169.254", "metadata"],
  ["::ffff:0:8.8.8.8", "public"],
  ["64:ff9b::a00:1", "private"],
  ["64:ff9b::7f00:1", "loopback"],
  ["2001:4860::5efe:10.0.0.1", "private"], // ISATAP
  ["2001:4860::200:5efe:127.0.0.1", "loopback"],
  ["64:ff9b::808:808", "public"],
  ["2002:7f00:1::", "ipv4-translated"],
  ["fc00::1", "unique-local"],
  ["fd12:3456::1", "unique-local"],
  ["fd00:ec2::254", "metadata"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["2001:db8::1", "documentation"],
  ["2001:0:4136:e378::1", "reserved"],
  ["2606:4700:4700::1111", "public"],
  ["2a00:1450:4001:80b::200e", "public"],
])("%s is %s", (ip, cls) => {
  expect(classifyAddress(ip)).toBe(cls as ReturnType<typeof classifyAddress>);
});

test("URL validation: http(s) only, no credentials, private literals refused unless allowed", () => {
  expect(validateTargetUrl("https://hooks.example.com/x", false)).toBeNull();
  expect(validateTargetUrl("ftp://hooks.example.com/x", false)).toMatch(/http or https/);
  expect(validateTargetUrl("not a url", false)).toMatch(/absolute/);
  expect(validateTargetUrl("https://user:pw@hooks.example.com/x", false)).toMatch(/credentials/);
  expect(validateTargetUrl("http://127.0.0.1:8080/x", false)).toMatch(/loopback/);
  expect(validateTargetUrl("http://[::1]/x", false)).toMatch(/loopback/);
  expect(validateTargetUrl("http://localhost/x", false)).toMatch(/loopback/);
  for (const name of ["localhost.", "LOCALHOST", "localhost..", "app.localhost.", "localhost.localdomain", "ip6-localhost", "ip6-loopback"])
    expect(validateTargetUrl(`http://${name}:8080/x`, false)).toMatch(/loopback/);
  expect(validateTargetUrl("http://[::ffff:0:127.0.0.1]/x", false)).toMatch(/loopback/);
  expect(validateTargetUrl("http://[::ffff:0:a9fe:a9fe]/x", false)).toMatch(/metadata/);
  expect(validateTargetUrl("http://169.254.169.254/latest", false)).toMatch(/metadata/);
  expect(validateTargetUrl("http://127.0.0.1:8080/x", true)).toBeNull();
});

test("resolution refuses a name with any non-public answer and pins the checked address", async () => {
  const rebinding = async () => ["93.184.216.34", "10.0.0.5"];
  await expect(resolveTarget("https://hooks.example.com/x", false, rebinding)).rejects.toBeInstanceOf(TargetRefusedError);
  const ok = await resolveTarget("https://hooks.example.com:8443/in?a=1", false, async () => ["93.184.216.34"]);
  expect(ok).toEqual({ hostHeader: "hooks.example.com:8443", serverName: "hooks.example.com", candidates: [{ address: "93.184.216.34", connectUrl: "https://93.184.216.34:8443/in?a=1" }] });
  const v6 = await resolveTarget("http://hooks.example.com/in", false, async () => ["2606:4700:4700::1111", "93.184.216.34"]);
  expect(v6.candidates.map((c) => c.connectUrl)).toEqual(["http://[2606:4700:4700::1111]/in", "http://93.184.216.34/in"]);
  expect(v6.serverName).toBeNull();
  await expect(resolveTarget("http://localhost:9/x", false)).rejects.toThrow(/loopback/);
  await expect(resolveTarget("http://127.0.0.1:9/x", false)).rejects.toThrow(/loopback/);
  expect((await resolveTarget("http://127.0.0.1:9/x", true)).candidates[0]!.address).toBe("127.0.0.1");
});
