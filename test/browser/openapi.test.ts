/**
 * /openapi in a real browser (playwright-core over Debian chromium), opened from two origins of
 * the same server: the configured base URL (http://127.0.0.1:PORT) and another loopback name
 * (http://localhost:PORT). The page renders every tag and its link to the console with no request
 * leaving the machine,
 * and the document's first server, resolved against the page's own address as "try it" resolves
 * it, answers an admin, a SCIM and a v1 call made from the page under its Content-Security-Policy.
 * (What this does not do: click Scalar's own "Test Request" button — the calls are the ones that
 * button sends, to the address it sends them to.)
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { createApp } from "../../src/app";
import { testConfig } from "../../src/config";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { silentLogger } from "../../src/log";
import { createScimToken } from "../../src/scim/tokens/service";
import { launchBrowser, type GuardedBrowser } from "./chromium";

declare const document: any;

const ADMIN = "browser-openapi-admin-token";
let g: GuardedBrowser;
let server: ReturnType<typeof Bun.serve>;
let dir: string;
let close: () => void;
let scimToken: string;
let apiToken: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-openapi-browser-"));
  let app: ReturnType<typeof createApp> | null = null;
  // the port first, so the base URL can name it
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => app!.handle(r) });
  const handle = openDatabase(join(dir, "gatehouse.db"), { groupCommit: true });
  const config = testConfig({ dataDir: dir, adminToken: ADMIN, baseUrl: `http://127.0.0.1:${server.port}` });
  app = createApp({ config, db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: "browser" });
  close = () => closeDatabase(handle);
  scimToken = createScimToken(handle.db, "browser").token;
  const created = await app.handle(new Request("http://127.0.0.1/api/admin/api-tokens", {
    method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "browser" }),
  }));
  apiToken = ((await created.json()) as { token: string }).token;
  g = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await g?.close();
  server?.stop(true);
  close?.();
  rmSync(dir, { recursive: true, force: true });
});

/** What "try it" does: the first server, resolved against the page's address, plus the path. */
async function tryIt(page: Page, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  return page.evaluate(
    async ({ method, path, headers, body }) => {
      const doc = (await (await fetch("/openapi/json")).json()) as { servers: { url: string }[] };
      const base = new URL(doc.servers[0]!.url, document.location.href).href.replace(/\/$/, "");
      const r = await fetch(base + path, { method, headers: { ...headers, ...(body ? { "content-type": "application/json" } : {}) }, body: body ? JSON.stringify(body) : undefined });
      return { url: base + path, status: r.status, body: (await r.json()) as any };
    },
    { method, path, headers, body },
  );
}

for (const host of ["127.0.0.1", "localhost"]) {
  test(`/openapi opened at http://${host}: every tag listed, admin, SCIM and v1 calls answer through the first server, nothing leaves the machine`, async () => {
    const origin = `http://${host}:${server.port}`;
    const page = await g.newPage({ viewport: { width: 1280, height: 900 } });
    const cspViolations: string[] = [];
    page.on("console", (m) => /Content Security Policy/i.test(m.text()) && cspViolations.push(m.text()));
    await page.goto(`${origin}/openapi`);
    // the sidebar lists every tag (grouped), the intro links to the console
    await page.getByText("Open Group - SCIM Users").first().waitFor({ timeout: 30_000 });
    const text: string = await page.evaluate(() => document.body.innerText);
    for (const tag of ["SCIM Groups", "Test cases", "Admin: API tokens", "Webhooks (admin)", "Webhook events"]) expect(text).toContain(tag);
    expect(await page.locator('a[href="/console"]').count()).toBeGreaterThan(0);
    await g.screenshot(page, "openapi", `openapi-${host}`, false);

    const admin = await tryIt(page, "GET", "/api/admin/scim-tokens", { authorization: `Bearer ${ADMIN}` });
    expect(admin.url.startsWith(origin)).toBe(true);
    expect(admin.status).toBe(200);
    expect(admin.body.map((tok: { name: string }) => tok.name)).toContain("browser");
    const scim = await tryIt(page, "GET", "/scim/v2/ServiceProviderConfig", { authorization: `Bearer ${scimToken}` });
    expect(scim.status).toBe(200);
    expect(scim.body.patch.supported).toBe(true);
    const v1 = await tryIt(page, "GET", "/api/v1/project", { Token: apiToken });
    expect(v1.status).toBe(200);
    expect(v1.body.status).toBe(true);

    expect(cspViolations).toEqual([]);
    expect(g.outsideRequests).toEqual([]);
    await page.context().close();
  }, 60_000);
}
