/**
 * Admins are people, in a real browser: the compiled binary configured for OIDC against a real
 * OpenID Provider (panva's oidc-provider on 127.0.0.1, tests/signin/op.ts, with its own minimal
 * sign-in page). Owner, operator and viewer sign in through the IdP and see and do what their role
 * allows; someone outside the admin groups gets the "not an admin" page; a forged cross-origin
 * change is refused (no CSRF token); sign-out ends the session here and at the IdP; a session past
 * its time limit sends the console back to sign-in; every action taken appears in the audit log,
 * read through the console, under the person's name. axe-core and 390 px on the new pages; no
 * request leaves 127.0.0.1. Screenshots go to test-artifacts/console-oidc/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import type { BrowserContextOptions, Page } from "playwright-core";
import { buildBinary, ROOT, startBinary, type RunningBinary } from "../binary";
import { until } from "../../helpers";
import { CLIENT_ID, CLIENT_SECRET, GROUP_ENV, startOp } from "../../signin/op";
import { launchBrowser, type GuardedBrowser } from "./chromium";

declare const document: any, window: any;

const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
const SUITE = "console-oidc";
const ADMIN_TOKEN = "oidc-console-test-admin-token-0123456789";
let g: GuardedBrowser;
/** A webhook receiver on 127.0.0.1 that always answers 500 (deliveries fail, so recover and redeliver have work). */
let receiver: ReturnType<typeof Bun.serve>;
let op: Awaited<ReturnType<typeof startOp>>;
let bin: RunningBinary;
/** A second instance whose sessions last 3 s, for the expiry test. */
let brief: RunningBinary;
const pageErrors: string[] = [];

/** A port free on 127.0.0.1 now: the redirect URL registered at the OP must be known before the binary starts. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function gatehouse(port: number, issuer: string, extra: Record<string, string> = {}) {
  return startBinary({
    env: {
      GATEHOUSE_PORT: String(port),
      GATEHOUSE_BASE_URL: `http://127.0.0.1:${port}`,
      GATEHOUSE_OIDC_ISSUER: issuer,
      GATEHOUSE_OIDC_CLIENT_ID: CLIENT_ID,
      GATEHOUSE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      GATEHOUSE_OIDC_SCOPES: "openid email profile groups",
      ...GROUP_ENV,
      // Kept for this test's own checks through the API (break-glass); the people use the IdP.
      GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEHOUSE_ADMIN_TOKEN_WITH_OIDC: "true",
      GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      GATEHOUSE_WEBHOOK_RETRY_SCHEDULE: "100ms",
      GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "50",
      ...extra,
    },
  });
}

beforeAll(async () => {
  await buildBinary();
  const [port, briefPort] = [await freePort(), await freePort()];
  op = await startOp([`http://127.0.0.1:${port}`, `http://127.0.0.1:${briefPort}`]);
  [bin, brief] = await Promise.all([gatehouse(port, op.issuer), gatehouse(briefPort, op.issuer, { GATEHOUSE_SESSION_ABSOLUTE_TIMEOUT: "3s" })]);
  g = await launchBrowser();
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (req) => (await req.text(), new Response("nope", { status: 500 })) });
}, 120_000);
afterAll(async () => {
  receiver?.stop(true);
  await g?.close();
  await Promise.all([bin?.stop(), brief?.stop()]);
  await op?.close();
});

/** The admin API with the break-glass token: how the tests check what the browser did. */
async function admin(method: string, path: string, body?: unknown, on = bin): Promise<any> {
  const r = await fetch(`${on.url}/api/admin${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${await r.text()}`);
  return r.status === 204 ? null : r.json();
}

async function newPage(options: BrowserContextOptions = {}): Promise<Page> {
  const page = await g.newPage({ viewport: { width: 1280, height: 900 }, ...options });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  // A refused API call is logged by the browser as a failed resource load; the tests cause some on purpose.
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && pageErrors.push(m.text()));
  return page;
}

/** Signs `login` in through the console's button and the IdP's form; resolves on the console page that follows. */
async function signInThroughIdp(page: Page, login: string, on = bin) {
  await page.goto(`${on.url}/console`);
  await page.getByRole("link", { name: "Sign in with your organization" }).click();
  await page.getByRole("heading", { name: "Sign in to the test IdP" }).waitFor();
  await page.getByLabel("Username").fill(login);
  await page.getByLabel("Password").fill("any");
  await page.getByRole("button", { name: "Sign in" }).click();
}

async function signedInAs(login: string, role: string, options: BrowserContextOptions = {}, on = bin): Promise<Page> {
  const page = await newPage(options);
  await signInThroughIdp(page, login, on);
  await page.getByText(`${login}@example.com · ${role}`).waitFor();
  await page.getByRole("heading", { level: 1, name: "SCIM provisioning" }).waitFor();
  return page;
}

const navLinks = (page: Page) => page.locator("#nav li:not([hidden]) a").allInnerTexts();

async function go(page: Page, hash: string, heading: string | RegExp) {
  await page.goto(`${bin.url}/console${hash}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

const confirmIn = async (page: Page, button: string) => {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  await dialog.getByRole("button", { name: button }).click();
  await dialog.waitFor({ state: "detached" });
};

async function axeViolations(page: Page) {
  await page.evaluate(`(() => { ${AXE}\n })()`);
  const result = await page.evaluate(() => window.axe.run(document, { resultTypes: ["violations"] }));
  return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}
const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

test("the sign-in page offers the organization's sign-in first, the admin token as break-glass; axe and 390 px clean", async () => {
  for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
    const page = await newPage({ viewport });
    await page.goto(`${bin.url}/console`);
    await page.getByRole("link", { name: "Sign in with your organization" }).waitFor();
    expect(await page.getByText("Break-glass: sign in with the admin token").isVisible()).toBe(true);
    expect(await page.getByLabel("Admin token").isVisible()).toBe(false); // folded away
    expect(await axeViolations(page)).toEqual([]);
    expect(await overflow(page)).toBe(0);
    await g.screenshot(page, SUITE, `sign-in-${viewport.width}`);
    await page.context().close();
  }
}, 60_000);

test("owner: every section; switches SCIM off and on, creates and revokes an admin token; sees it all in the audit log under their name; signs out here and at the IdP", async () => {
  const page = await signedInAs("olive.owner", "owner");
  expect(await navLinks(page)).toEqual(["SCIM", "Provisioning log", "Users", "Groups", "Workspaces", "API tokens", "Webhooks", "Audit log", "Admin tokens", "Instance"]);
  await page.getByRole("button", { name: "Disable SCIM" }).click();
  await confirmIn(page, "Disable SCIM");
  await page.getByRole("button", { name: "Enable SCIM" }).click();
  await page.getByRole("button", { name: "Disable SCIM" }).waitFor();
  expect((await admin("GET", "/scim")).enabled).toBe(true);

  await go(page, "#/admin-tokens", "Admin tokens");
  await page.getByLabel("Token name").fill("nightly export");
  await page.getByLabel("Role").selectOption("viewer");
  await page.getByRole("button", { name: "Create admin token" }).click();
  await page.getByText("Admin token “nightly export” created").waitFor();
  const made = (await admin("GET", "/admin-tokens")).items.find((t: any) => t.name === "nightly export");
  expect(made).toMatchObject({ role: "viewer", createdBy: "olive.owner@example.com", state: "active" });
  await page.getByRole("button", { name: "Revoke admin token nightly export" }).click();
  await confirmIn(page, "Revoke token");
  await page.getByRole("row", { name: /nightly export.*revoked/ }).waitFor();

  // The audit log, read in the console, names the person for each action, newest first.
  await go(page, "#/audit", "Audit log");
  await page.getByLabel("Who (exact name)").fill("olive.owner@example.com");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("1–5 of 5").waitFor();
  const rows = await page.locator("tbody tr").allInnerTexts();
  expect(rows.map((r) => /\b(session|scim|admin_token)\.[a-z_]+/.exec(r)![0])).toEqual(["admin_token.revoke", "admin_token.create", "scim.enable", "scim.disable", "session.sign_in"]);
  for (const r of rows) expect(r).toContain("olive.owner@example.com");
  for (const r of rows) expect(r).toMatch(/person, owner/);
  expect(rows[3]).toContain("success");
  await g.screenshot(page, SUITE, "audit-owner");
  expect(await axeViolations(page)).toEqual([]);

  // Sign out: the session ends on the server (its cookie opens nothing any more) and at the IdP.
  const cookie = (await page.context().cookies(bin.url)).find((c) => c.name === "gatehouse_session")!;
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { name: "Sign out of the test IdP" }).waitFor();
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in to the Gatehouse console" }).waitFor();
  expect((await fetch(`${bin.url}/api/admin/me`, { headers: { cookie: `gatehouse_session=${cookie.value}` } })).status).toBe(401);
  const out = (await admin("GET", "/audit-log?action=session.sign_out&actor=olive.owner%40example.com")).items;
  expect(out).toHaveLength(1);
  // Signing in again asks for the password again: the IdP's session ended too.
  await page.getByRole("link", { name: "Sign in with your organization" }).click();
  await page.getByRole("heading", { name: "Sign in to the test IdP" }).waitFor();
  await page.context().close();
}, 90_000);

test("every admin action taken in the console is in the audit log, under the person who took it", async () => {
  const since = new Date().toISOString();
  const page = await signedInAs("olive.owner", "owner");
  // Workspaces: create, rename, archive, restore.
  await go(page, "#/workspaces", "Workspaces");
  await page.getByLabel("Workspace name").fill("Audit WS");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await page.getByRole("button", { name: "Rename workspace Audit WS" }).click();
  await page.getByLabel("New name for Audit WS").fill("Audit WS 2");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("button", { name: "Archive workspace Audit WS 2" }).click();
  await confirmIn(page, "Archive workspace");
  await page.getByRole("button", { name: "Restore workspace Audit WS 2" }).click();
  await page.getByRole("button", { name: "Archive workspace Audit WS 2" }).waitFor();
  // A SCIM token and an API token: create, revoke.
  await go(page, "#/scim", "SCIM provisioning");
  await page.getByLabel("Token name").fill("Audit IdP");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByRole("button", { name: "Revoke SCIM token Audit IdP" }).click();
  await confirmIn(page, "Revoke token");
  await page.getByRole("row", { name: /Audit IdP.*revoked/ }).waitFor();
  await go(page, "#/api-tokens", "API tokens");
  await page.getByLabel("Token name").fill("Audit reporter");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByRole("button", { name: "Revoke API token Audit reporter" }).click();
  await confirmIn(page, "Revoke token");
  await page.getByRole("row", { name: /Audit reporter.*revoked/ }).waitFor();
  // A subscription: create, test event, recover, redeliver, edit, disable, enable, rotate, delete.
  await go(page, "#/webhooks/new", "New subscription");
  await page.getByLabel("Endpoint URL").fill(`http://127.0.0.1:${receiver.port}/fails`);
  await page.getByLabel("Description (optional)").fill("Audit hook");
  await page.getByRole("button", { name: "Create subscription" }).click();
  await page.getByRole("heading", { level: 1, name: "Audit hook" }).waitFor();
  const id = Number(page.url().split("#/webhooks/")[1]);
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText(/Test case\.created queued/).waitFor();
  const failed = async () => (await admin("GET", `/webhooks/${id}/deliveries?status=failed`)).items[0];
  const delivery = await until(failed, "the test delivery dead-lettered");
  await page.getByRole("button", { name: "Recover failed deliveries" }).click();
  await page.getByText("1 failed delivery was queued again.").waitFor();
  await until(failed, "failed again");
  await go(page, `#/webhooks/${id}/deliveries/${delivery.id}`, /^Delivery /);
  await page.getByRole("button", { name: "Redeliver" }).click();
  await page.getByText(/Redelivered: attempt \d+/).waitFor();
  await go(page, `#/webhooks/${id}`, "Audit hook");
  await page.getByText("Edit subscription").click();
  await page.getByLabel("Description (optional)").fill("Audit hook, edited");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("heading", { level: 1, name: "Audit hook, edited" }).waitFor();
  await page.getByRole("button", { name: "Disable", exact: true }).click();
  await page.getByRole("button", { name: "Enable", exact: true }).click();
  await page.getByRole("button", { name: "Disable", exact: true }).waitFor();
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await confirmIn(page, "Rotate secret");
  await page.getByText("New signing secret").waitFor();
  await page.getByRole("button", { name: "Delete subscription" }).click();
  await confirmIn(page, "Delete subscription");
  await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();

  const entries = (await admin("GET", `/audit-log?since=${encodeURIComponent(since)}&limit=500`)).items.filter((e: any) => e.actor.name === "olive.owner@example.com");
  expect(entries.every((e: any) => e.actor.kind === "person" && e.actor.role === "owner" && e.outcome === "success" && e.source.ip === "127.0.0.1")).toBe(true);
  expect(entries.map((e: any) => e.action).reverse()).toEqual([
    "session.sign_in",
    "workspace.create", "workspace.rename", "workspace.archive", "workspace.restore",
    "scim_token.create", "scim_token.revoke",
    "api_token.create", "api_token.revoke",
    "webhook.create", "webhook.test", "webhook.recover", "delivery.redeliver", "webhook.update", "webhook.disable", "webhook.enable", "webhook.rotate_secret", "webhook.delete",
  ]);
  // No secret reached the log.
  expect(JSON.stringify(entries)).not.toMatch(/whsec_|scim_[A-Za-z0-9_-]{20}|gadm_/);
  // And the console shows them so: the webhook family, newest first, each with the person.
  await go(page, "#/audit", "Audit log");
  await page.getByLabel("Action").selectOption("webhook.");
  await page.getByLabel("Who (exact name)").fill("olive.owner@example.com");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("1–8 of 8").waitFor();
  for (const row of await page.locator("tbody tr").allInnerTexts()) expect(row).toMatch(/olive\.owner@example\.com\s+person, owner/);
  await page.context().close();
}, 120_000);

test("operator: webhooks and tokens but not SCIM on/off or admin tokens; the refusal is shown beside the button and audited", async () => {
  const page = await signedInAs("oscar.operator", "operator");
  expect(await navLinks(page)).toEqual(["SCIM", "Provisioning log", "Users", "Groups", "Workspaces", "API tokens", "Webhooks", "Audit log", "Instance"]);
  await page.getByRole("button", { name: "Disable SCIM" }).click();
  await confirmIn(page, "Disable SCIM");
  await page.getByText("This needs the owner role; you have operator (HTTP 403)").waitFor();
  expect((await admin("GET", "/scim")).enabled).toBe(true);

  await go(page, "#/webhooks/new", "New subscription");
  await page.getByLabel("Endpoint URL").fill("http://127.0.0.1:9/operator-hook");
  await page.getByLabel("Description (optional)").fill("Operator's hook");
  await page.getByRole("button", { name: "Create subscription" }).click();
  await page.getByRole("heading", { level: 1, name: "Operator's hook" }).waitFor();
  expect(await page.locator(".secret-value").innerText()).toStartWith("whsec_");

  await go(page, "#/scim", "SCIM provisioning");
  await page.getByLabel("Token name").fill("Okta (operator)");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText("SCIM token “Okta (operator)” created").waitFor();

  // An owner-only page opened by address: the API refuses, the page says why.
  await go(page, "#/admin-tokens", /Admin tokens|Something went wrong/);
  await page.getByText(/needs the owner role/).waitFor();

  const mine = (await admin("GET", "/audit-log?actor=oscar.operator%40example.com")).items.map((e: any) => [e.action, e.outcome]);
  expect(mine).toContainEqual(["webhook.create", "success"]);
  expect(mine).toContainEqual(["scim_token.create", "success"]);
  expect(mine).toContainEqual(["access.denied", "denied"]);
  expect(mine).toContainEqual(["session.sign_in", "success"]);
  await go(page, "#/audit", "Audit log");
  await page.getByLabel("Who (exact name)").fill("oscar.operator@example.com");
  await page.getByLabel("Outcome").selectOption("denied");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByRole("row", { name: /access\.denied/ }).first().waitFor();
  expect(await page.locator("tbody").innerText()).toContain("needs owner");
  await page.context().close();
}, 90_000);

test("viewer: reads, changes nothing; no secret is shown; no audit log or admin tokens in the navigation", async () => {
  const page = await signedInAs("vera.viewer", "viewer");
  expect(await navLinks(page)).toEqual(["SCIM", "Provisioning log", "Users", "Groups", "Workspaces", "API tokens", "Webhooks", "Instance"]);
  const sub = await admin("POST", "/webhooks", { url: "http://127.0.0.1:9/viewer-sees", events: ["*"], description: "Seen by a viewer" });
  await go(page, "#/webhooks", "Webhooks");
  await page.getByRole("link", { name: "http://127.0.0.1:9/viewer-sees" }).click();
  await page.getByRole("heading", { level: 1, name: "Seen by a viewer" }).waitFor();
  expect(page.url()).toEndWith(`#/webhooks/${sub.id}`);
  expect(await page.locator(".secret-value").count()).toBe(0);
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await confirmIn(page, "Rotate secret");
  await page.getByText("This needs the operator role; you have viewer (HTTP 403)").waitFor();
  expect(await page.locator(".secret-value").count()).toBe(0);

  await go(page, "#/api-tokens", "API tokens");
  await page.getByLabel("Token name").fill("viewer's token");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText("This needs the operator role; you have viewer (HTTP 403)").waitFor();
  expect((await admin("GET", "/api-tokens")).items.some((t: any) => t.name === "viewer's token")).toBe(false);
  await g.screenshot(page, SUITE, "viewer-refused", false);

  await go(page, "#/audit", /Audit log|Something went wrong/);
  await page.getByText(/needs the operator role/).waitFor();
  const refused = (await admin("GET", "/audit-log?actor=vera.viewer%40example.com&outcome=denied")).items.map((e: any) => e.resource.id);
  expect(refused).toContain("POST /api/admin/api-tokens");
  await page.context().close();
}, 60_000);

test("someone outside the admin groups gets the 'not an admin' page (axe and 390 px clean), no session, and a denied entry", async () => {
  const page = await newPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await signInThroughIdp(page, "nina.nobody");
  await page.getByRole("heading", { name: "You are not a Gatehouse admin" }).waitFor();
  expect(page.url()).toBe(`${bin.url}/auth/not-admin`);
  expect(await axeViolations(page)).toEqual([]);
  expect(await overflow(page)).toBe(0);
  await g.screenshot(page, SUITE, "not-admin-390");
  expect((await page.context().cookies(bin.url)).some((c) => c.name === "gatehouse_session")).toBe(false);
  await page.goto(`${bin.url}/console`);
  await page.getByRole("link", { name: "Sign in with your organization" }).waitFor(); // not a loop
  expect((await admin("GET", "/audit-log?action=session.sign_in&outcome=denied")).items[0]).toMatchObject({ actor: { name: "nina.nobody@example.com" }, detail: "not in an admin group" });
  await page.context().close();
}, 60_000);

test("a forged change from another origin carries the session cookie but not the CSRF token: refused, nothing changes, and it is audited", async () => {
  const page = await signedInAs("olive.owner", "owner");
  // The IdP's origin stands in for a hostile page on the same machine (same site, other origin:
  // SameSite=Lax lets the browser send the cookie; only the CSRF token can tell).
  const hostile = await page.context().newPage();
  await hostile.goto(`${op.issuer}/.well-known/openid-configuration`);
  const status = await hostile.evaluate(async (url) => {
    const r = await fetch(url + "/api/admin/scim", { method: "PATCH", credentials: "include", headers: { "content-type": "application/json" }, body: JSON.stringify({ enabled: false }) }).catch(() => null);
    return r ? r.status : "blocked";
  }, bin.url);
  // Either CORS stops the preflight (the request never runs) or it runs and is refused: never 200.
  expect(status === "blocked" || status === 403).toBe(true);
  // A form post needs no preflight: the browser sends it with the cookie, and the server refuses it.
  await hostile.setContent(`<form method="post" action="${bin.url}/api/admin/scim" enctype="text/plain"><input name='{"enabled":false,"x":"' value='"}'></form>`);
  const [answer] = await Promise.all([hostile.waitForResponse(`${bin.url}/api/admin/scim`), hostile.evaluate(() => document.forms[0].submit())]);
  expect(answer.status()).toBe(403);
  expect((await admin("GET", "/scim")).enabled).toBe(true);
  const refused = (await admin("GET", "/audit-log?action=access.csrf_refused")).items;
  expect(refused[0]).toMatchObject({ actor: { kind: "person", name: "olive.owner@example.com" }, outcome: "denied", resource: { type: "route", id: "POST /api/admin/scim" } });
  // The console itself, with its token, still changes things.
  await page.getByRole("button", { name: "Disable SCIM" }).click();
  await confirmIn(page, "Disable SCIM");
  await page.getByRole("button", { name: "Enable SCIM" }).click();
  await page.getByRole("button", { name: "Disable SCIM" }).waitFor();
  await page.context().close();
}, 60_000);

test("a session past its time limit: the next click lands on the sign-in page with the reason", async () => {
  const page = await signedInAs("oscar.operator", "operator", {}, brief);
  await Bun.sleep(3_500);
  await page.getByRole("link", { name: "Webhooks" }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in to the Gatehouse console" }).waitFor();
  await page.getByText(/Your session has ended/).waitFor();
  expect((await admin("GET", "/audit-log?action=session.sign_in", undefined, brief)).total).toBe(1);
  await page.context().close();
}, 60_000);

test("no request left 127.0.0.1, and no page raised a script error", () => {
  expect(g.outsideRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
});
