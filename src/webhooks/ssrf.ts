import { lookup } from "node:dns/promises";
import { isIP, isIPv4 } from "node:net";

/**
 * SSRF guard. Webhook URLs are chosen by admins, but a URL can point (or later re-point through
 * DNS) at the host itself, the internal network or a cloud metadata service. So every attempt
 * resolves the name, refuses any answer in a non-public range (unless private targets are
 * allowed), and then connects to the address it checked — never re-resolving — so DNS rebinding
 * between the check and the connect cannot slip through. TLS is still verified against the name.
 */

export type AddressClass =
  | "public"
  | "unspecified"
  | "loopback"
  | "private"
  | "shared"
  | "link-local"
  | "metadata"
  | "unique-local"
  | "site-local"
  | "multicast"
  | "documentation"
  | "reserved"
  | "ipv4-translated";

type V4Range = [base: number, bits: number, cls: AddressClass];

const v4 = (s: string): number => s.split(".").reduce((n, o) => n * 256 + Number(o), 0);
const V4_RANGES: V4Range[] = (
  [
    ["169.254.169.254", 32, "metadata"], // AWS, GCP, Azure, OpenStack
    ["100.100.100.200", 32, "metadata"], // Alibaba Cloud
    ["0.0.0.0", 8, "unspecified"],
    ["10.0.0.0", 8, "private"],
    ["100.64.0.0", 10, "shared"], // carrier-grade NAT
    ["127.0.0.0", 8, "loopback"],
    ["169.254.0.0", 16, "link-local"],
    ["172.16.0.0", 12, "private"],
    ["192.0.0.0", 24, "reserved"], // IETF protocol assignments
    ["192.0.2.0", 24, "documentation"],
    ["192.88.99.0", 24, "reserved"], // 6to4 relay anycast
    ["192.168.0.0", 16, "private"],
    ["198.18.0.0", 15, "reserved"], // benchmarking
    ["198.51.100.0", 24, "documentation"],
    ["203.0.113.0", 24, "documentation"],
    ["224.0.0.0", 4, "multicast"],
    ["240.0.0.0", 4, "reserved"], // includes 255.255.255.255
  ] as const
).map(([b, bits, cls]) => [v4(b), bits, cls]);

function classifyV4(n: number): AddressClass {
  for (const [base, bits, cls] of V4_RANGES) {
    const size = 2 ** (32 - bits);
    if (n >= base && n < base + size) return cls;
  }
  return "public";
}

/** Eight 16-bit groups of an IPv6 address (zone id ignored, embedded dotted IPv4 accepted). */
function v6Groups(ip: string): number[] {
  let s = ip.split("%")[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const n = v4(dotted[1]!);
    s = s.slice(0, -dotted[1]!.length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = s.includes("::") ? (s.split("::") as [string, string]) : [s, null];
  const h = head ? head.split(":") : [];
  const tl = tail === null ? [] : tail ? tail.split(":") : [];
  const fill = tail === null ? [] : new Array(8 - h.length - tl.length).fill("0");
  return [...h, ...fill, ...tl].map((g) => parseInt(g, 16));
}

function classifyV6(ip: string): AddressClass {
  const g = v6Groups(ip);
  const embeddedV4 = (hi: number, lo: number) => hi * 65536 + lo;
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (g.every((x) => x === 0)) return "unspecified";
  if (zeroUpTo(7) && g[7] === 1) return "loopback";
  // Forms that carry an IPv4 address in their last 32 bits are judged as that address (a
  // stack may reach it over IPv4): ::ffff:a.b.c.d (mapped), ::ffff:0:a.b.c.d (SIIT, RFC 2765),
  // ::a.b.c.d (deprecated compatible), 64:ff9b::a.b.c.d (NAT64, RFC 6052) and ISATAP
  // interface ids (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d, RFC 5214).
  const lastV4 = () => classifyV4(embeddedV4(g[6]!, g[7]!));
  if (zeroUpTo(5) && g[5] === 0xffff) return lastV4();
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return lastV4();
  if (zeroUpTo(6)) return lastV4();
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return lastV4();
  if ((g[4] === 0 || g[4] === 0x200) && g[5] === 0x5efe) {
    const inner = lastV4();
    if (inner !== "public") return inner;
  }
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1) return "ipv4-translated"; // local-use NAT64
  if (g[0] === 0x2002) {
    // 6to4: judge by the embedded IPv4 address.
    const inner = classifyV4(embeddedV4(g[1]!, g[2]!));
    return inner === "public" ? "public" : "ipv4-translated";
  }
  if (g[0] === 0x100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return "reserved"; // 100::/64 discard
  if (g[0] === 0x2001 && g[1] === 0xdb8) return "documentation";
  if (g[0] === 0x2001 && g[1]! < 0x200) return "reserved"; // 2001::/23 IETF protocol assignments (Teredo, ORCHID, ...)
  if (g[0] === 0xfd00 && g[1] === 0xec2 && g.slice(2, 7).every((x) => x === 0) && g[7] === 0x254) return "metadata"; // AWS IMDS over IPv6
  if ((g[0]! & 0xfe00) === 0xfc00) return "unique-local";
  if ((g[0]! & 0xffc0) === 0xfe80) return "link-local";
  if ((g[0]! & 0xffc0) === 0xfec0) return "site-local";
  if ((g[0]! & 0xff00) === 0xff00) return "multicast";
  return "public";
}

/** Classifies an IP address literal (v4 or v6). Anything but "public" is refused by default. */
export function classifyAddress(ip: string): AddressClass {
  if (isIPv4(ip)) return classifyV4(v4(ip));
  if (isIP(ip.split("%")[0]!) === 6) return classifyV6(ip);
  throw new Error(`not an IP address: ${ip}`);
}

/** A target the SSRF guard refused; the attempt fails with this message (and is retried: DNS may change). */
export class TargetRefusedError extends Error {}

/**
 * Static checks for a subscription URL (at create/update): absolute http(s), no credentials, a host,
 * and — when private targets are not allowed — not an IP literal or `localhost` in a refused range.
 * Returns a message for the admin, or null when acceptable. Names are checked again on every attempt.
 */
export function validateTargetUrl(raw: string, allowPrivate: boolean): string | null {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return "url must be an absolute http(s) URL";
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") return "url must use http or https";
  if (u.username || u.password) return "url must not contain credentials; use the signature to authenticate requests";
  if (!u.hostname) return "url must have a host";
  if (u.hash) return "url must not contain a fragment";
  if (!allowPrivate) {
    const host = bareHost(u);
    if (isLoopbackName(host)) return "url points at loopback (set GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow private targets)";
    if (isIP(host)) {
      const cls = classifyAddress(host);
      if (cls !== "public") return `url points at a ${cls} address (set GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow private targets)`;
    }
  }
  return null;
}

/** True when the URL's host is an IP address (no DNS involved, so its check never changes). */
export function hasIpLiteralHost(raw: string): boolean {
  try {
    return isIP(bareHost(new URL(raw))) !== 0;
  } catch {
    return false;
  }
}

/** The URL's host without IPv6 brackets or the DNS root's trailing dot, lower-cased. */
function bareHost(u: URL): string {
  return u.hostname.replace(/^\[|\]$/g, "").replace(/\.+$/, "").toLowerCase();
}

/** Names that mean this host on every usual resolver (RFC 6761 `localhost`, Debian's /etc/hosts aliases). */
function isLoopbackName(host: string): boolean {
  return host === "localhost" || host.endsWith(".localhost") || host === "localhost.localdomain" || host === "ip6-localhost" || host === "ip6-loopback";
}

export type ResolvedTarget = {
  /** `host` header to send (the original authority). */
  hostHeader: string;
  /** TLS name to verify (https only). */
  serverName: string | null;
  /** Every checked address with the URL that connects to it, in resolver order (tried in turn on connection errors). */
  candidates: { address: string; connectUrl: string }[];
};

/**
 * Resolves the target and applies the guard. Refuses if ANY resolved address is non-public (the
 * resolver's order may change between calls), then returns the checked addresses to connect to.
 */
export async function resolveTarget(raw: string, allowPrivate: boolean, resolve = defaultResolve): Promise<ResolvedTarget> {
  const u = new URL(raw);
  const host = bareHost(u);
  const addresses = isIP(host) ? [host] : [...new Set(await resolve(host))];
  if (addresses.length === 0) throw new TargetRefusedError(`${host} did not resolve`);
  if (!allowPrivate) {
    for (const a of addresses) {
      const cls = classifyAddress(a);
      if (cls !== "public") throw new TargetRefusedError(`target refused: ${host} resolves to ${a} (${cls}); set GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS=true to allow private targets`);
    }
  }
  const candidates = addresses.map((address) => {
    const connect = new URL(u.toString());
    connect.hostname = isIP(address) === 6 ? `[${address}]` : address;
    return { address, connectUrl: connect.toString() };
  });
  return { hostHeader: u.host, serverName: u.protocol === "https:" ? host : null, candidates };
}

async function defaultResolve(host: string): Promise<string[]> {
  const answers = await lookup(host, { all: true, verbatim: true });
  return answers.map((a) => a.address);
}
