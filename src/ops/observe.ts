/**
 * Request observability: one JSON log line per request and HTTP metrics (the request's id and
 * addresses are src/http/request-info.ts).
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
import type { AppContext } from "../context";
import { apiErrorResponse, ApiError } from "../http/errors";
import { clientAddressOf, requestStateOf, trustedProxyList } from "../http/request-info";
import { metricsFor } from "../lib/metrics";

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
  // The series of each route, method and status, bound at first use: counting a request then
  // builds no label object and no key (the label set is small: route templates, not paths).
  type Series = { requests: { inc(): void }; duration: { observe(seconds: number): void } };
  const seriesByRoute = new Map<string, Map<string, Map<number, Series>>>();
  const seriesOf = (method: string, route: string, status: number): Series => {
    let byMethod = seriesByRoute.get(route);
    if (!byMethod) seriesByRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let series = byStatus.get(status);
    if (!series) {
      series = { requests: m.requests.bind({ method, route, status: String(status) }), duration: m.duration.bind({ method, route }) };
      byStatus.set(status, series);
    }
    return series;
  };
  return async (incoming: Request, server?: Server<unknown>): Promise<Response> => {
    const started = performance.now();
    const request = withRoutablePath(incoming);
    const state = requestStateOf(request);
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
    const series = seriesOf(request.method, route, response.status);
    series.requests.inc();
    series.duration.observe(seconds);
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
