/**
 * Where the plain-HTTP listener sends a request: the same path and query on the HTTPS address.
 * When GATEHOUSE_BASE_URL is https, its origin is the public HTTPS address (the bind host may be
 * 0.0.0.0 or behind NAT); otherwise the host the client asked for, on the HTTPS port.
 * 308 (not 301) so clients keep the method and the body (a SCIM POST stays a POST).
 */
export function redirectTarget(requestUrl: string, baseUrl: string, httpsPort: number): string {
  const requested = new URL(requestUrl);
  const base = new URL(baseUrl);
  const origin = base.protocol === "https:" ? base.origin : `https://${requested.hostname}${httpsPort === 443 ? "" : `:${httpsPort}`}`;
  return `${origin}${requested.pathname}${requested.search}`;
}
