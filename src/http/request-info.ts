/**
 * What the edge knows about one request, for every layer that logs or audits it: its id (also
 * the `x-request-id` answer header), the route template it matched, the TCP peer and the client
 * address behind trusted proxies. Set by the app's hooks and the listener's wrapper
 * (src/ops/observe.ts); read by the request log, the audit log and the provisioning log.
 */
import { BlockList, isIP } from "node:net";

// `peer` is looked up lazily: asking Bun for the socket address costs more than the rest of the
// bookkeeping, and only the request log line and /metrics' loopback check need it.
export type RequestState = { id: string; route?: string; peer?: () => string | null; trusted?: BlockList | null };
// Kept on the Request itself under a module-private symbol: cheaper than a WeakMap lookup, and
// this runs several times per request.
const STATE = Symbol("gatehouse.requestState");
type WithState = Request & { [STATE]?: RequestState };

// A caller-supplied id (from a reverse proxy) is kept when it is short and plain, so one id
// follows a request across hops; anything else is replaced (log-injection guard).
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** The request's state, made on first use (the listener's wrapper adds the peer and the trusted proxies). */
export function requestStateOf(request: Request): RequestState {
  let s = (request as WithState)[STATE];
  if (!s) {
    const given = request.headers.get("x-request-id");
    s = { id: given && ACCEPTABLE_ID.test(given) ? given : Bun.randomUUIDv7() };
    (request as WithState)[STATE] = s;
  }
  return s;
}

/** The request's id (assigned on first call); also sent back as the `x-request-id` header. */
export function requestIdOf(request: Request): string {
  return requestStateOf(request).id;
}

/** Records the matched route template; called from the app's parse/transform hooks. */
export function noteRoute(request: Request, route: string | undefined): void {
  if (route) requestStateOf(request).route = route;
}

/** Address of the TCP peer, when the request came through our listener (null via app.handle). */
export function peerAddressOf(request: Request): string | null {
  return (request as WithState)[STATE]?.peer?.() ?? null;
}

/**
 * The client's address: the TCP peer, or — when the peer is a trusted proxy
 * (GATEHOUSE_TRUSTED_PROXIES) — the nearest address in `X-Forwarded-For` that is not itself a
 * trusted proxy (read right to left: the left part is whatever the client chose to send).
 */
export function clientAddressOf(request: Request): string | null {
  const state = (request as WithState)[STATE];
  return forwardedClient(state?.peer?.() ?? null, request.headers.get("x-forwarded-for"), state?.trusted ?? null);
}

/** Pure core of clientAddressOf. */
export function forwardedClient(peer: string | null, forwardedFor: string | null, trusted: BlockList | null): string | null {
  if (!peer || !trusted || !forwardedFor || !isTrustedAddress(trusted, peer)) return peer;
  const hops = forwardedFor.split(",").map((h) => h.trim());
  let nearest = peer;
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = hops[i]!;
    if (!isIP(hop)) return nearest; // a malformed entry: trust nothing beyond it
    if (!isTrustedAddress(trusted, hop)) return hop;
    nearest = hop;
  }
  return nearest;
}

/** GATEHOUSE_TRUSTED_PROXIES as a lookup; null when none are configured. */
export function trustedProxyList(entries: readonly string[]): BlockList | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix] = entry.split("/") as [string, string | undefined];
    const family = isIP(address) === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(address, family);
    else list.addSubnet(address, Number(prefix), family);
  }
  return list;
}

function isTrustedAddress(list: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** True for 127.0.0.0/8 and ::1, also in IPv4-mapped IPv6 form. */
export function isLoopbackAddress(address: string | null | undefined): boolean {
  if (!address) return false;
  const a = address.toLowerCase().replace(/^::ffff:/, "");
  return a === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}

/**
 * Whether the request is from this host. A request carrying proxy headers is not — behind a
 * reverse proxy on the same host every peer is 127.0.0.1, so loopback alone would expose
 * loopback-only endpoints to the internet — unless it comes from a trusted proxy and the client
 * that proxy names is itself on loopback.
 */
export function isDirectLoopbackRequest(request: Request): boolean {
  const proxied = request.headers.has("forwarded") || request.headers.has("x-forwarded-for") || request.headers.has("x-real-ip");
  if (!proxied) return isLoopbackAddress(peerAddressOf(request));
  const state = (request as WithState)[STATE];
  const peer = peerAddressOf(request);
  if (!peer || !state?.trusted || !isTrustedAddress(state.trusted, peer) || request.headers.has("forwarded") || request.headers.has("x-real-ip")) return false;
  return isLoopbackAddress(clientAddressOf(request));
}
