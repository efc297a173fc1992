import { afterAll, beforeAll, expect, test } from "bun:test";
import { t as schema } from "elysia";
import { createApp } from "../../src/app";
import { isLoopbackAddress } from "../../src/http/request-info";
import { pathOf } from "../../src/ops/observe";
import { ADMIN_TOKEN, startInProcess } from "../server/harness";

let srv: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  // The real app plus one parameterised route with a validated body, to see route templates.
  srv = await startInProcess({}, {
    buildApp: (ctx) => createApp(ctx).post("/test/items/:id", ({ params, body }) => ({ id: params.id, ...body }), { body: schema.Object({ name: schema.String() }) }),
  });
});
afterAll(() => srv?.close());

const requestLines = () => srv.lines.filter((l) => l.msg === "request");

test("one JSON log line per request: id, method, path without query, route, status, duration; never the token", async () => {
  const secret = "sup3r-secret-token-value";
  const r = await fetch(`${srv.base}/scim/v2/Users/42?filter=userName%20eq%20%22x%22&access_token=${secret}`, {
    headers: { authorization: `Bearer ${secret}` },
  });
  const id = r.headers.get("x-request-id");
  expect(id).toBeTruthy();
  const line = requestLines().find((l) => l.requestId === id);
  expect(line).toMatchObject({ level: "info", method: "GET", path: "/scim/v2/Users/42", status: r.status, remote: "127.0.0.1" });
  expect(typeof line!.durationMs).toBe("number");
  expect(typeof line!.time).toBe("string");
  expect(JSON.stringify(srv.lines)).not.toContain(secret);
});

test("a plain caller-supplied x-request-id is kept; anything else is replaced", async () => {
  const kept = await fetch(`${srv.base}/nope`, { headers: { "x-request-id": "proxy-abc.123" } });
  expect(kept.headers.get("x-request-id")).toBe("proxy-abc.123");
  expect(requestLines().some((l) => l.requestId === "proxy-abc.123" && l.status === 404)).toBe(true);
  const replaced = await fetch(`${srv.base}/nope`, { headers: { "x-request-id": 'evil"\\injection' } });
  expect(replaced.headers.get("x-request-id")).not.toContain("evil");
});

test("health probes are logged at debug only", async () => {
  const r = await fetch(`${srv.base}/healthz`);
  const line = requestLines().find((l) => l.requestId === r.headers.get("x-request-id"));
  expect(line?.level).toBe("debug");
});

test("/metrics counts requests by route template and status, with latency and memory", async () => {
  await fetch(`${srv.base}/readyz`);
  await fetch(`${srv.base}/no/such/path/123`);
  const write = await fetch(`${srv.base}/api/admin/api-tokens`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "metrics" }) });
  expect(write.status).toBe(201);
  const m = await fetch(`${srv.base}/metrics`);
  expect(m.status).toBe(200);
  expect(m.headers.get("content-type")).toContain("text/plain; version=0.0.4");
  const text = await m.text();
  expect(text).toMatch(/gatehouse_http_requests_total\{method="GET",route="\/readyz",status="200"\} [1-9]/);
  expect(text).toMatch(/gatehouse_http_requests_total\{method="GET",route="unmatched",status="404"\} [1-9]/);
  expect(text).not.toContain("/no/such/path");
  expect(text).toContain('gatehouse_http_request_duration_seconds_bucket{method="GET",route="/readyz",le="+Inf"}');
  expect(text).toMatch(/process_resident_memory_bytes [1-9]\d+/);
  if (srv.databaseUrl === null) {
    expect(text).toMatch(/gatehouse_database_size_bytes\{file="db"\} [1-9]\d+/);
    expect(text).toMatch(/gatehouse_wal_syncs_total [1-9]\d*/); // the token's write was synced
    expect(text).not.toContain("gatehouse_database_pool_size");
  } else {
    // PostgreSQL: the pool's gauges; SQLite's file sizes and WAL syncs are not reported at all.
    expect(text).toMatch(/gatehouse_database_pool_size [1-9]\d*/);
    expect(text).toMatch(/gatehouse_database_server_connections\{state="idle"\} \d+/);
    expect(text).not.toContain("gatehouse_database_size_bytes");
    expect(text).not.toContain("gatehouse_wal_syncs_total");
  }
  expect(text).toContain("gatehouse_write_holds_total 0");
  expect(text).toContain("gatehouse_build_info{version=");
});

test("parameterised routes are counted by template, also when the body is invalid or unparsable", async () => {
  const post = (id: string, body: string) => fetch(`${srv.base}/test/items/${id}`, { method: "POST", headers: { "content-type": "application/json" }, body });
  expect((await post("1", JSON.stringify({ name: "a" }))).status).toBe(200);
  expect((await post("2", JSON.stringify({ name: 5 }))).status).toBe(400);
  expect((await post("3", "{not json")).status).toBe(400);
  const text = await (await fetch(`${srv.base}/metrics`)).text();
  expect(text).toContain('gatehouse_http_requests_total{method="POST",route="/test/items/:id",status="200"} 1');
  expect(text).toContain('gatehouse_http_requests_total{method="POST",route="/test/items/:id",status="400"} 2');
  expect(text).not.toMatch(/route="\/test\/items\/\d/);
});

test("/metrics: open from loopback, but not through a proxy without the admin token", async () => {
  const proxied = await fetch(`${srv.base}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9" } });
  expect(proxied.status).toBe(401);
  expect(proxied.headers.get("www-authenticate")).toBe("Bearer");
  const wrong = await fetch(`${srv.base}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9", authorization: "Bearer nope" } });
  expect(wrong.status).toBe(401);
  const withToken = await fetch(`${srv.base}/metrics`, { headers: { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(withToken.status).toBe(200);
});

test("isLoopbackAddress", () => {
  for (const a of ["127.0.0.1", "127.8.9.10", "::1", "::ffff:127.0.0.1"]) expect(isLoopbackAddress(a)).toBe(true);
  for (const a of ["10.0.0.1", "::ffff:10.0.0.1", "fe80::1", "", null]) expect(isLoopbackAddress(a)).toBe(false);
});

test("a client that reaches us by a very short host name is still routed by its real path", async () => {
  // Elysia reads the path at url.indexOf("/", 11); "http://gh/test/items/7" starts its path at 9.
  const r = await fetch(`${srv.base}/test/items/7`, { method: "POST", headers: { host: "gh", "content-type": "application/json" }, body: JSON.stringify({ name: "short host" }) });
  expect(r.status).toBe(200);
  expect(await r.json()).toEqual({ id: "7", name: "short host" });
  const line = requestLines().find((l) => l.requestId === r.headers.get("x-request-id"));
  expect(line).toMatchObject({ path: "/test/items/7", route: "/test/items/:id", remote: "127.0.0.1" });
});

test("pathOf reads the path of a request URL exactly as new URL(url).pathname does", () => {
  for (const url of [
    "http://localhost/",
    "http://localhost",
    "https://gatehouse.example:8443/scim/v2/Users?filter=userName%20eq%20%22a%2Fb%22",
    "http://127.0.0.1:3000/v1/case/GRD/1#frag",
    "http://[::1]:3000/healthz?x=/y",
    "http://localhost/a/b?c#d?e",
    "http://localhost/%2F%3F/x",
  ])
    expect(pathOf(url)).toBe(new URL(url).pathname);
});
