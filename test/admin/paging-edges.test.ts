import { afterAll, beforeAll, expect, test } from "bun:test";
import { createScimToken } from "../../src/scim/tokens/service";
import { ADMIN_TOKEN, createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());
let apiToken: string;
let scimToken: string;

beforeAll(async () => {
  apiToken = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "edges" })).json()) as any).token;
  scimToken = (await createScimToken(t.ctx.db, "edges")).token;
  expect((await t.request("POST", "/api/v1/project", { body: { title: "Edge", code: "EDGE" }, headers: { token: apiToken } })).status).toBe(200);
  expect((await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/x", events: ["*"] })).status).toBe(201);
});

const doc = (await (await t.request("GET", "/openapi/json")).json()) as { paths: Record<string, Record<string, { parameters?: { name: string; in: string }[] }>> };
const PAGING = new Set(["offset", "limit", "startIndex", "count"]);
const EDGE_VALUES = ["1e20", "9223372036854775807", "1.5", "-1", "abc"];
const pagedLists = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([method, op]) => method === "get" && op.parameters?.some((p) => p.in === "query" && PAGING.has(p.name)))
    .flatMap(([, op]) => op.parameters!.filter((p) => p.in === "query" && PAGING.has(p.name)).map((p) => [path, p.name] as const)),
);

const credentials = (path: string): Record<string, string> =>
  path.startsWith("/scim/") ? { authorization: `Bearer ${scimToken}` } : path.startsWith("/api/admin/") ? { authorization: `Bearer ${ADMIN_TOKEN}` } : { token: apiToken };

test("the walk finds the paged lists of every area", () => {
  const paths = pagedLists.map(([p]) => p);
  expect(paths).toContain("/api/admin/webhooks/{id}/deliveries");
  expect(paths.some((p) => p.startsWith("/api/v1/"))).toBe(true);
});

test.each(pagedLists)("%s ?%s= out-of-range and non-integer values → 4xx, never 500", async (path, name) => {
  const concrete = path.replace("{code}", "EDGE").replace(/\{[^}]+\}/g, "1");
  for (const value of EDGE_VALUES) {
    const r = await t.request("GET", `${concrete}?${name}=${encodeURIComponent(value)}`, { headers: credentials(path) });
    if (r.status >= 500) throw new Error(`${concrete}?${name}=${value} → ${r.status}: ${await r.text()}`);
    expect(r.status === 200 || (r.status >= 400 && r.status < 500)).toBe(true);
  }
});

const withPathParams = Object.entries(doc.paths).flatMap(([path, item]) =>
  /\{[^}]+\}/.test(path) ? Object.keys(item).map((method) => [method.toUpperCase(), path] as const) : [],
);

test.each(withPathParams)("%s %s with out-of-range or non-integer path ids → 4xx, never 500", async (method, path) => {
  for (const value of EDGE_VALUES) {
    const concrete = path.replace("{code}", "EDGE").replace(/\{[^}]+\}/g, encodeURIComponent(value));
    const r = await t.request(method, concrete, { headers: credentials(path), ...(method === "GET" || method === "DELETE" ? {} : { body: {} }) });
    if (r.status >= 500) throw new Error(`${method} ${concrete} → ${r.status}: ${await r.text()}`);
  }
});
