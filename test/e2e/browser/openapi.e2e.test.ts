/**
 * /openapi in a real browser (playwright-core over Debian chromium), opened from two origins of
 * the same server: the configured base URL (http://127.0.0.1:PORT) and another loopback name
 * (http://localhost:PORT). The page renders every tag and its link to the console with no request
 * leaving the machine, and Scalar's own "Test Request" client sends an admin, a SCIM and a v1 call: the test opens the
 * operation's client, types the token into the client's auth field, clicks Send and reads the
 * status the client shows; the effect is then checked through the API.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { createApp } from "../../../src/app";
import { testConfig } from "../../../src/config";
import { openTestDatabase } from "../../support/test-database";
import { silentLogger } from "../../../src/log";
import { createScimToken } from "../../../src/scim/tokens/service";
import { launchBrowser, type GuardedBrowser } from "./chromium";
import { ephemeralSecretBox } from "../../../src/lib/secret-box";

declare const document: any;

const ADMIN = "browser-openapi-admin-token";
let g: GuardedBrowser;
let server: ReturnType<typeof Bun.serve>;
let dir: string;
let close: () => void;
let scimToken: string;
let apiToken: string;
let app: ReturnType<typeof createApp>;

/** An admin API call straight to the app (to check what a click in the page did). */
async function adminApi(method: string, path: string) {
  return (await (await app.handle(new Request(`http://127.0.0.1${path}`, { method, headers: { authorization: `Bearer ${ADMIN}` } }))).json()) as any[];
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "gatehouse-openapi-browser-"));
  // the port first, so the base URL can name it
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (r) => app.handle(r) });
  const handle = openTestDatabase(dir); // the run's engine: SQLite, or a database of its own on PostgreSQL
  const config = testConfig({ dataDir: dir, adminToken: ADMIN, baseUrl: `http://127.0.0.1:${server.port}` });
  app = createApp({ config, db: handle.db, sqlite: handle.sqlite, groupCommit: handle.groupCommit, log: silentLogger, version: "browser", secrets: ephemeralSecretBox() });
  close = () => handle.close();
  scimToken = (await createScimToken(handle.db, "browser")).token;
  const created = await app.handle(new Request("http://127.0.0.1/api/admin/api-tokens", {
    method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "browser" }),
  }));
  apiToken = ((await created.json()) as { token: string }).token;
  const project = await app.handle(new Request("http://127.0.0.1/api/v1/project", {
    method: "POST", headers: { token: apiToken, "content-type": "application/json" }, body: JSON.stringify({ title: "Browser", code: "BRW" }),
  }));
  if (project.status !== 200) throw new Error(`project: ${project.status}`);
  g = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await g?.close();
  server?.stop(true);
  close?.();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * Opens the operation titled `summary` (in the sidebar group `group`) in Scalar's API client,
 * types `token` into the client's field for the operation's security scheme, sends the request as
 * the client prefilled it (the document's examples), and returns what the client shows.
 */
async function sendFromScalar(page: Page, group: string, summary: string, token: string) {
  const open = page.getByRole("button", { name: `Open Group - ${group}`, exact: true });
  if (await open.count()) await open.first().click();
  await page.getByRole("link", { name: new RegExp(`^${summary.replace(/[()]/g, "\\$&")}`) }).first().click();
  const section = page.locator("section").filter({ has: page.getByRole("heading", { name: summary, exact: true }) }).last();
  await section.locator("button.show-api-client-button").first().click();
  const client = page.getByRole("dialog");
  await client.getByRole("button", { name: /^Send \w+ request to/ }).waitFor();
  // the client shows the auth section collapsed
  const auth = client.getByRole("button", { name: /^Authentication/ }).first();
  if ((await auth.getAttribute("aria-expanded")) !== "true") await auth.click();
  // the auth section's own input (Bearer Token, or the value of the `Token` header) comes first
  await client.locator('input[id^="scalar-client-"]').first().fill(token, { timeout: 10_000 });
  const sendTo = (await client.getByRole("button", { name: /^Send \w+ request to/ }).textContent())!;
  await client.getByRole("button", { name: /^Send \w+ request to/ }).click();
  // the client's response panel reads "Status: 201 Created" once the answer arrived
  let text = "";
  for (const deadline = Date.now() + 15_000; !/Status:\s*\d{3}/.test(text) && Date.now() < deadline; await Bun.sleep(100)) text = await client.innerText();
  const status = Number(/Status:\s*(\d{3})/.exec(text)?.[1]);
  await client.getByRole("button", { name: "Close Client" }).click();
  return { sendTo, status, text };
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

    // The client sends the document's example name; a live token's name is unique, so the other host's run left none.
    for (const t of await adminApi("GET", "/api/admin/scim-tokens")) if (t.name === "Entra ID production" && !t.revokedAt) await app.handle(new Request(`http://127.0.0.1/api/admin/scim-tokens/${t.id}`, { method: "DELETE", headers: { authorization: `Bearer ${ADMIN}` } }));
    const tokensBefore = (await adminApi("GET", "/api/admin/scim-tokens")).length;
    const admin = await sendFromScalar(page, "Admin: SCIM", "Create a SCIM bearer token (shown once)", ADMIN);
    expect(admin.sendTo).toContain(origin);
    expect(admin.status).toBe(201);
    expect((await adminApi("GET", "/api/admin/scim-tokens")).length).toBe(tokensBefore + 1);

    const scim = await sendFromScalar(page, "SCIM Users", "Create (provision) a user", scimToken);
    expect(scim.status).toBe(201);
    const byName = async () => {
      const r = await app.handle(new Request(`http://127.0.0.1/scim/v2/Users?filter=${encodeURIComponent('userName eq "ada@example.com"')}`, { headers: { authorization: `Bearer ${scimToken}` } }));
      return ((await r.json()) as { Resources: { id: string }[] }).Resources;
    };
    const provisioned = await byName();
    expect(provisioned).toHaveLength(1);
    // the next origin provisions the document's example user again: free its userName
    const renamed = await app.handle(new Request(`http://127.0.0.1/scim/v2/Users/${provisioned[0]!.id}`, {
      method: "PATCH", headers: { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" },
      body: JSON.stringify({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "userName", value: `ada-from-${host}@example.com` }] }),
    }));
    expect(renamed.status).toBe(200);

    const v1 = await sendFromScalar(page, "Projects", "List projects", apiToken);
    expect(v1.status).toBe(200);
    expect(v1.text).toContain('"code": "BRW"');

    expect(cspViolations).toEqual([]);
    expect(g.outsideRequests).toEqual([]);
    await page.context().close();
  }, 120_000);
}
