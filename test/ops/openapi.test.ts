import { afterAll, expect, test } from "bun:test";
import { Validator } from "@seriousme/openapi-schema-validator";
import { applyDefaultSecurity } from "../../src/ops/openapi";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());

/** Every absolute URL a browser would fetch for the page: src and href attributes, CSS url(), imports. */
function externalReferences(html: string): string[] {
  const refs = [...html.matchAll(/(?:src|href|action)\s*=\s*["']?([^"'\s>]+)/gi)].map((m) => m[1]!);
  refs.push(...[...html.matchAll(/url\(\s*["']?([^"')]+)/gi)].map((m) => m[1]!));
  refs.push(...[...html.matchAll(/@import\s+["']([^"']+)/gi)].map((m) => m[1]!));
  return refs.filter((r) => /^(?:[a-z][a-z0-9+.-]*:)?\/\//i.test(r));
}

test("/openapi is an HTML page that loads nothing from another host", async () => {
  const r = await t.request("GET", "/openapi");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/html");
  const html = await r.text();
  expect(externalReferences(html)).toEqual([]);
  expect(html).not.toMatch(/https?:\/\//);
  // The browser enforces it too: only this origin (and the public base URL for "try it").
  const csp = r.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("connect-src 'self' https://gatehouse.test");
  expect(csp).not.toMatch(/(?:script|style|font|img)-src[^;]*https?:/);
});

test("the UI bundle comes from the binary, gzipped when asked", async () => {
  const html = await (await t.request("GET", "/openapi")).text();
  const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
  expect(scripts.length).toBe(1);
  expect(scripts[0]).toStartWith("/openapi/assets/");
  const plain = await t.request("GET", scripts[0]!);
  expect(plain.status).toBe(200);
  expect(plain.headers.get("content-type")).toContain("javascript");
  const body = await plain.text();
  expect(body).toContain("createApiReference");
  const gz = await t.request("GET", scripts[0]!, { headers: { "accept-encoding": "gzip, br" } });
  expect(gz.headers.get("content-encoding")).toBe("gzip");
  expect(new TextDecoder().decode(Bun.gunzipSync(new Uint8Array(await gz.arrayBuffer())))).toBe(body);
});

test("/openapi/json is a valid OpenAPI 3.1 document with the bearer schemes", async () => {
  const r = await t.request("GET", "/openapi/json");
  expect(r.status).toBe(200);
  const doc = (await r.json()) as any;
  const result = await new Validator().validate(doc);
  if (!result.valid) console.error(JSON.stringify(result.errors, null, 2));
  expect(result.valid).toBe(true);
  // …and the validator does reject a broken document.
  expect((await new Validator().validate({ ...doc, info: { title: 1 } })).valid).toBe(false);
  expect(doc.openapi).toStartWith("3.1");
  expect(doc.info.title).toBe("Gatehouse");
  // relative first, so "try it" calls the address the page was opened at; the base URL second
  expect(doc.servers.map((s: { url: string }) => s.url)).toEqual(["/", "https://gatehouse.test"]);
  expect(doc.components.securitySchemes.scimBearer).toMatchObject({ type: "http", scheme: "bearer" });
  expect(doc.components.securitySchemes.adminBearer).toMatchObject({ type: "http", scheme: "bearer" });
  expect(doc.paths["/healthz"].get.summary).toBe("Process is up");
  // The docs' own routes are not operations.
  expect(Object.keys(doc.paths).filter((p) => p.startsWith("/openapi"))).toEqual([]);
});

test("operations get their area's bearer scheme unless they declare one", () => {
  const doc = applyDefaultSecurity({
    paths: {
      "/scim/v2/Users": { get: {}, post: { security: [] } },
      "/api/admin/webhooks": { get: {} },
      "/healthz": { get: {} },
    },
  });
  expect(doc.paths["/scim/v2/Users"]!.get!.security).toEqual([{ scimBearer: [] }]);
  expect(doc.paths["/scim/v2/Users"]!.post!.security).toEqual([]);
  expect(doc.paths["/api/admin/webhooks"]!.get!.security).toEqual([{ adminBearer: [] }]);
  expect(doc.paths["/healthz"]!.get!.security).toBeUndefined();
});
