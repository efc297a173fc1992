import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());

test("/console is a static page whose assets all come from this server", async () => {
  const r = await t.request("GET", "/console");
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toContain("text/html");
  const html = await r.text();
  expect(html).not.toMatch(/(?:src|href)\s*=\s*["']?(?:[a-z]+:)?\/\//i);
  const assets = [...html.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]!);
  expect(assets.sort()).toEqual(["/console/console.css", "/console/console.js"]);
  for (const a of assets) {
    const res = await t.request("GET", a);
    expect(res.status).toBe(200);
    expect(await res.text()).not.toMatch(/https?:\/\//);
  }
  // No inline script or style is allowed, and nothing but this origin.
  const csp = r.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(html).not.toMatch(/<script>|<style>|\son[a-z]+=/i);
});

test("the console script is valid JavaScript that calls the admin API with the bearer token", async () => {
  const script = await (await t.request("GET", "/console/console.js")).text();
  expect(() => new Function(script)).not.toThrow();
  for (const path of ["/api/admin/scim", "/api/admin/scim-tokens", "/api/admin/webhooks", "/deliveries?status=failed", "/redeliver"]) expect(script).toContain(path);
  expect(script).toContain('authorization: "Bearer " + token');
  // Rendering never goes through innerHTML (subscription URLs, errors and response bodies are untrusted).
  expect(script).not.toContain("innerHTML");
});

test("the console page shows the version", async () => {
  expect(await (await t.request("GET", "/console")).text()).toContain('<span id="version" class="muted">test</span>');
});
