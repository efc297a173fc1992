/**
 * Request observability: request ids, one JSON log line per request, HTTP metrics.
 *
 * Two halves, because Elysia's after-response hook does not see the final status of responses
 * produced by the error handler:
 * - hooks inside the app (`createApp` registers them) give every response an `x-request-id`
 *   and note the matched route template (`/scim/v2/Users/:id`, never the raw path, so the
 *   metric label set stays small);
 * - `instrumentedHandler` wraps `app.handle` where the server listens: it sees the real final
 *   Response, measures it, logs it and counts it.
 */
import type { Server } from "bun";
import { BlockList, isIP } from "node:net";
import type { AppContext } from "../context";
import { apiErrorResponse, ApiError } from "../http/errors";
import { metricsFor } from "./metrics";

// `peer` is looked up lazily: asking Bun for the socket address costs more than the rest of the
// bookkeeping, and only the request log line and /metrics' loopback check need it.
type RequestState = { id: string; route?: string; peer?: () => string | null; trusted?: BlockList | null };
// Kept on the Request itself under a module-private symbol: cheaper than a WeakMap lookup, and
// this runs several times per request.
const STATE = Symbol("gatehouse.requestState");
type WithState = Request & { [STATE]?: RequestState };

// A caller-supplied id (from a reverse proxy) is kept when it is short and plain, so one id
// follows a request across hops; anything else is replaced (log-injection guard).
const ACCEPTABLE_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function stateOf(request: Request): RequestState {
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
  return stateOf(request).id;
}

/** Records the matched route template; called from the app's parse/transform hooks. */
export function noteRoute(request: Request, route: string | undefined): void {
  if (route) stateOf(request).route = route;
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

// Probes and scrapes are frequent and uninteresting when they succeed: logged at debug.
const QUIET_PATHS = new Set(["/healthz", "/readyz", "/metrics"]);

export function httpMetrics(ctx: AppContext) {
  const registry = metricsFor(ctx);
  return {
    requests: registry.counter("gatehouse_http_requests_total", "HTTP requests answered, by method, route template and status.", ["method", "route", "status"]),
    duration: registry.histogram("gatehouse_http_request_duration_seconds", "Time from request received to response ready, by method and route template.", ["method", "route"]),
    inFlight: registry.gauge("gatehouse_http_requests_in_flight", "HTTP requests being handled now."),
  };
}

/**
 * Elysia finds the path with `url.indexOf("/", 11)`, assuming the scheme and host take at least
 * 11 characters. A client that reaches us by a very short host name (`http://tms/scim/v2/Users`:
 * the path starts at index 10) would be routed to `/v2/Users` and get 404s. Such a request is
 * re-addressed to `localhost` — only the URL the router reads changes; headers (Host included),
 * method and body are kept, and nothing in Gatehouse derives addresses from the request URL's
 * host (`meta.location` comes from GATEHOUSE_BASE_URL).
 */
export function withRoutablePath(request: Request): Request {
  const url = request.url;
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart === -1 || pathStart >= 11) return request;
  const parsed = new URL(url);
  parsed.hostname = "localhost";
  return new Request(parsed.toString(), request);
}

/**
 * The path of an absolute request URL, as `new URL(url).pathname` gives it for the URLs a server
 * receives (already normalised by Bun), without parsing the whole URL on every request.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = url.length;
  const query = url.indexOf("?", start);
  if (query !== -1) end = query;
  const hash = url.indexOf("#", start);
  if (hash !== -1 && hash < end) end = hash;
  return url.slice(start, end);
}

/**
 * Wraps `app.handle` for `Bun.serve`: remembers the peer address, measures, logs one line
 * per request (never headers, query strings or bodies: they may hold tokens), counts.
 */
export function instrumentedHandler(app: { handle(request: Request): Promise<Response> }, ctx: AppContext) {
  const m = httpMetrics(ctx);
  const trusted = trustedProxyList(ctx.config.trustedProxies);
  return async (incoming: Request, server?: Server<unknown>): Promise<Response> => {
    const started = performance.now();
    const request = withRoutablePath(incoming);
    const state = stateOf(request);
    let peer: string | null | undefined;
    state.peer = () => (peer === undefined ? (peer = server?.requestIP(incoming)?.address ?? null) : peer);
    state.trusted = trusted;
    m.inFlight.inc();
    let response: Response;
    try {
      response = await app.handle(request);
    } catch (error) {
      // The app's own error handler answers nearly everything; this is the last resort.
      ctx.log.error("unhandled error", { requestId: state.id, error: String((error as Error)?.stack ?? error) });
      response = apiErrorResponse(new ApiError(500, "internal", "Internal server error"));
      response.headers.set("x-request-id", state.id);
    } finally {
      m.inFlight.dec();
    }
    const seconds = (performance.now() - started) / 1000;
    const route = state.route ?? (response.status === 404 ? "unmatched" : "unknown");
    m.requests.inc({ method: request.method, route, status: String(response.status) });
    m.duration.observe({ method: request.method, route }, seconds);
    if (ctx.log.enabled("info")) {
      const path = pathOf(request.url);
      const quiet = QUIET_PATHS.has(path) && response.status < 400;
      if (!quiet || ctx.log.enabled("debug")) {
        const remote = clientAddressOf(request);
        (quiet ? ctx.log.debug : ctx.log.info)("request", {
          requestId: state.id,
          method: request.method,
          path,
          route,
          status: response.status,
          durationMs: Math.round(seconds * 100_000) / 100,
          remote: remote ?? undefined,
          ...(trusted && remote !== state.peer() ? { proxy: state.peer() } : {}),
        });
      }
    }
    return response;
  };
}
