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
  const assets = [...new Set([...html.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]!))];
  expect(assets.sort()).toEqual(["/console/app.mjs", "/console/console.css", "/console/favicon.svg"]);
  // The modules the entry imports, transitively: all from this server, none from elsewhere.
  const seen = new Set<string>();
  const visit = async (path: string) => {
    if (seen.has(path)) return;
    seen.add(path);
    const res = await t.request("GET", path);
    expect(res.status).toBe(200);
    const text = await res.text();
    // (an SVG's xmlns names a namespace; nothing is fetched from it)
    expect(text.replace('xmlns="http://www.w3.org/2000/svg"', "")).not.toMatch(/https?:\/\//);
    if (path.endsWith(".mjs")) {
      expect(res.headers.get("content-type")).toStartWith("text/javascript");
      for (const m of text.matchAll(/^import .* from "\.\/([a-z-]+\.mjs)";$/gm)) await visit("/console/" + m[1]);
    }
  };
  for (const a of assets) await visit(a);
  expect(seen.size).toBeGreaterThan(10);
  // No inline script or style is allowed, and nothing but this origin.
  const csp = r.headers.get("content-security-policy")!;
  expect(csp).toContain("default-src 'none'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).not.toContain("unsafe-inline");
  expect(html).not.toMatch(/<script>|<style>|\son[a-z]+=/i);
  expect(html).toContain("<noscript>");
});

test("the console modules never render through innerHTML and send the admin token only as a bearer header", async () => {
  for (const name of ["app", "api", "dom", "scim", "provisioning", "directory", "api-tokens", "webhooks", "deliveries", "instance", "workspaces"]) {
    const text = await (await t.request("GET", `/console/${name}.mjs`)).text();
    // Subscription URLs, errors and response bodies are untrusted: text nodes only.
    expect(text).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(|new Function/);
  }
  const api = await (await t.request("GET", "/console/api.mjs")).text();
  expect(api).toContain('authorization: "Bearer " + session.token');
  expect(api).toContain('fetch("/api/admin" + path');
});

test("the console page shows the version", async () => {
  expect(await (await t.request("GET", "/console")).text()).toContain('<span id="version" class="muted">test</span>');
});

test("the console is light: every file is sent gzipped when the browser accepts it, ~35 KB in all", async () => {
  const html = await (await t.request("GET", "/console")).text();
  const files = ["/console", "/console/console.css", "/console/favicon.svg", ...["app", "api", "dom", "scim", "provisioning", "directory", "api-tokens", "webhooks", "deliveries", "instance", "workspaces", "audit", "admin-tokens"].map((m) => `/console/${m}.mjs`)];
  let raw = 0;
  let sent = 0;
  for (const path of files) {
    const plain = await t.request("GET", path);
    const zipped = await t.request("GET", path, { headers: { "accept-encoding": "gzip, deflate, br" } });
    expect(zipped.headers.get("content-encoding")).toBe("gzip");
    expect(zipped.headers.get("vary")).toBe("accept-encoding");
    const body = new Uint8Array(await zipped.arrayBuffer());
    const text = await plain.text();
    expect(new TextDecoder().decode(Bun.gunzipSync(body))).toBe(text);
    raw += text.length;
    sent += body.length;
  }
  expect(html.length).toBeGreaterThan(0);
  expect(sent).toBeLessThan(40_000);
  expect(sent).toBeLessThan(raw / 2.5);
});
