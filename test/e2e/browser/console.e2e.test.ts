/**
 * The admin console in a real browser (playwright-core over Debian chromium) against the compiled
 * binary with seeded data and a real webhook receiver (200, 500, 410 endpoints): every admin task
 * is done through the UI and its effect checked through the admin API; axe-core finds no serious
 * or critical violation in light and dark; 390 px wide pages never scroll sideways; keyboard
 * alone can drive it; no request leaves 127.0.0.1. Screenshots go to test-artifacts/console/.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { BrowserContextOptions, Page } from "playwright-core";
import { buildBinary, ROOT } from "../binary";
import { launchBrowser, type GuardedBrowser } from "./chromium";
import { ADMIN_TOKEN, seedConsole, type Seeded } from "./console-seed";

// Browser globals used inside page.evaluate callbacks (they run in the page, not here).
declare const document: any, window: any, navigator: any, sessionStorage: any, getComputedStyle: any;

const AXE = readFileSync(join(ROOT, "node_modules/axe-core/axe.min.js"), "utf8");
const SUITE = "console";
let s: Seeded;
let g: GuardedBrowser;
const pageErrors: string[] = [];

beforeAll(async () => {
  await buildBinary();
  s = await seedConsole();
  g = await launchBrowser();
}, 120_000);
afterAll(async () => {
  await g?.close();
  await s?.stop();
});

/** A fresh browser context, signed in through the sign-in form. */
async function signedIn(options: BrowserContextOptions = {}, hash = "#/scim"): Promise<Page> {
  const page = await g.newPage({ viewport: { width: 1280, height: 900 }, ...options });
  page.on("pageerror", (e) => pageErrors.push(e.message));
  // A failed API call is logged by the browser as a failed resource load; the tests cause some on purpose.
  page.on("console", (m) => m.type() === "error" && !m.text().startsWith("Failed to load resource") && pageErrors.push(m.text()));
  await page.goto(`${s.bin.url}/console${hash}`);
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("button", { name: "Sign out" }).waitFor();
  await page.waitForFunction(() => !document.getElementById("signin-title") && document.querySelector("main h1"));
  return page;
}

async function go(page: Page, hash: string, heading: string | RegExp) {
  await page.goto(`${s.bin.url}/console${hash}`);
  await page.getByRole("heading", { level: 1, name: heading }).waitFor();
}

const confirmIn = async (page: Page, button: string) => {
  const dialog = page.getByRole("dialog");
  await dialog.waitFor();
  const text = await dialog.innerText();
  await dialog.getByRole("button", { name: button }).click();
  await dialog.waitFor({ state: "detached" });
  return text;
};

test("sign in: a wrong token is refused next to the field; sign out forgets the token", async () => {
  const page = await g.newPage();
  await page.goto(`${s.bin.url}/console`);
  expect(await page.title()).toBe("Gatehouse console");
  await page.getByLabel("Admin token").fill("not-the-token");
  await page.getByRole("button", { name: "Sign in" }).click();
  const error = page.locator("form p.error");
  await error.waitFor();
  expect(await error.innerText()).toContain("not the admin token");
  expect(await page.locator("p.error").count()).toBe(1);
  await g.screenshot(page, SUITE, "sign-in-refused", false);
  await page.getByLabel("Admin token").fill(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { level: 1, name: "SCIM provisioning" }).waitFor();
  expect(await page.evaluate(() => sessionStorage.getItem("gatehouse.adminToken"))).toBe(ADMIN_TOKEN);
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByRole("heading", { level: 1, name: "Sign in to the Gatehouse console" }).waitFor();
  expect(await page.evaluate(() => sessionStorage.getItem("gatehouse.adminToken"))).toBeNull();
  expect(await page.getByRole("status").innerText()).toContain("Signed out");
  // The favicon and the noscript message are part of the page.
  const icon = await page.evaluate(() => document.querySelector('link[rel="icon"]')?.getAttribute("href"));
  expect((await fetch(s.bin.url + icon)).headers.get("content-type")).toStartWith("image/svg+xml");
  expect(await (await fetch(s.bin.url + "/console")).text()).toContain("<noscript>");
  await page.context().close();
}, 60_000);

test("SCIM: switch off with a confirmation about 403 and on again; base URL with copy; token created once (double click), shown once, revoked", async () => {
  const page = await signedIn({ permissions: ["clipboard-read", "clipboard-write"] });
  await page.getByRole("button", { name: "Disable SCIM" }).click();
  const warning = await confirmIn(page, "Disable SCIM");
  expect(warning).toContain("403");
  await page.getByRole("button", { name: "Enable SCIM" }).waitFor();
  expect((await s.admin("GET", "/scim")).enabled).toBe(false);
  await page.getByRole("button", { name: "Enable SCIM" }).click();
  await page.getByRole("button", { name: "Disable SCIM" }).waitFor();
  expect((await s.admin("GET", "/scim")).enabled).toBe(true);

  const baseUrl = (await s.admin("GET", "/instance")).baseUrl.replace(/\/$/, "") + "/scim/v2";
  await page.getByRole("button", { name: "Copy the SCIM base URL" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(baseUrl);

  const before = (await s.admin("GET", "/scim-tokens")).length;
  await page.getByLabel("Token name").fill("Okta production");
  await page.getByRole("button", { name: "Create token" }).dblclick();
  await page.getByText("SCIM token “Okta production” created").waitFor();
  const tokens = await s.admin("GET", "/scim-tokens");
  expect(tokens.length).toBe(before + 1);
  const shown = await page.locator(".secret-value").innerText();
  expect(shown).toMatch(/^\S{20,}$/);
  // The shown token works for SCIM: it is the real one.
  expect((await fetch(`${s.bin.url}/scim/v2/Users?count=1`, { headers: { authorization: `Bearer ${shown}` } })).status).toBe(200);
  await g.screenshot(page, SUITE, "scim");
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "SCIM provisioning" }).waitFor();
  expect(await page.locator(".secret-value").count()).toBe(0); // shown once

  // A second live token with the name of one is refused, next to the form; nothing is created.
  await page.getByLabel("Token name").fill("okta PRODUCTION");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText(/already named "okta PRODUCTION".*\(HTTP 409\)/).waitFor();
  expect((await s.admin("GET", "/scim-tokens")).length).toBe(before + 1);

  await page.getByRole("button", { name: "Revoke SCIM token Okta production" }).click();
  await confirmIn(page, "Revoke token");
  await page.getByRole("row", { name: /Okta production.*revoked/ }).waitFor();
  expect((await s.admin("GET", "/scim-tokens")).find((t: any) => t.name === "Okta production").revokedAt).not.toBeNull();
  await page.context().close();
}, 60_000);

test("API tokens: a workspace and a user picked from its members (a search matching nobody is named next to the field), revoke", async () => {
  const ws = (await s.admin("POST", "/workspaces", { name: "Lisbon" })) as { id: number };
  const page = await signedIn({}, "#/api-tokens");
  await page.getByLabel("Token name").fill("Nightly reporter");
  await page.getByLabel("Find a user (optional)").fill("nobody@example.com");
  await page.getByText("No active member of this workspace matches “nobody@example.com”.").waitFor();
  await page.getByRole("button", { name: "Create token" }).click();
  await page.locator("form p.error").getByText("No active member of this workspace matches “nobody@example.com”.").waitFor();
  expect((await s.admin("GET", "/api-tokens")).items.some((t: any) => t.name === "Nightly reporter")).toBe(false);
  // Part of a name lists the matching members; one is picked.
  await page.getByLabel("Find a user (optional)").fill("lovelace");
  await page.getByText("5 users match.").waitFor();
  expect(await page.getByLabel("For user").locator("option").count()).toBe(6);
  await page.getByLabel("For user").selectOption({ label: "grace.lovelace1@example.com — Grace Lovelace" });
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText("API token “Nightly reporter” created").waitFor();
  expect(await page.locator("p.error:visible").count()).toBe(0); // the old error is gone, not repeated
  const created = (await s.admin("GET", "/api-tokens")).items.find((t: any) => t.name === "Nightly reporter");
  expect(created).toMatchObject({ userId: s.userIds[1], workspaceId: 1, revokedAt: null });
  await g.screenshot(page, SUITE, "api-tokens");
  // Another workspace: its members only (Lisbon has none), and the token reaches that workspace.
  await page.getByLabel("Token name").fill("Lisbon reporter");
  await page.getByLabel("Workspace").selectOption({ label: "Lisbon" });
  await page.getByLabel("Find a user (optional)").fill("grace.lovelace1@example.com");
  await page.getByText("No active member of this workspace matches “grace.lovelace1@example.com”.").waitFor();
  await page.getByLabel("Find a user (optional)").fill("");
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText("API token “Lisbon reporter” created").waitFor();
  expect((await s.admin("GET", "/api-tokens")).items.find((t: any) => t.name === "Lisbon reporter")).toMatchObject({ userId: null, workspaceId: ws.id });
  expect(await page.getByRole("row", { name: /Lisbon reporter/ }).innerText()).toContain("Lisbon");
  // From a user's page: the user is preselected.
  await go(page, `#/api-tokens?user=${encodeURIComponent("ada.lovelace0@example.com")}`, "API tokens");
  await page.waitForFunction(() => document.getElementById("f-for-user").value !== "");
  expect(await page.getByLabel("For user").inputValue()).toBe(String(s.userIds[0]));
  await go(page, "#/api-tokens", "API tokens");
  await page.getByRole("button", { name: "Revoke API token Nightly reporter" }).click();
  await confirmIn(page, "Revoke token");
  await page.getByRole("row", { name: /Nightly reporter.*revoked/ }).waitFor();
  expect((await s.admin("GET", "/api-tokens")).items.find((t: any) => t.name === "Nightly reporter").revokedAt).not.toBeNull();
  await page.context().close();
}, 60_000);

test("directory: search users by name or e-mail, filter by state and type, page; a user's groups and tokens; a group's members", async () => {
  const page = await signedIn({}, "#/users");
  expect(await page.locator("nav.pager").innerText()).toContain("1–50 of 50");
  await page.getByLabel("Name or e-mail").fill("hopper");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText("1–5 of 5").waitFor();
  const api = await s.admin("GET", "/directory/users?q=hopper");
  expect(await page.locator("tbody tr").count()).toBe(api.total);
  await page.getByLabel("Name or e-mail").fill("");
  await page.getByLabel("State").selectOption("false");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText("1–1 of 1").waitFor();
  expect(await page.locator("tbody").innerText()).toContain("deactivated");
  await page.getByLabel("State").selectOption("");
  await page.getByLabel("Type").selectOption("read-only");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText(`1–${(await s.admin("GET", "/directory/users?userType=read-only")).total} of`).waitFor();
  await go(page, "#/users?limit=50", "Users");
  await go(page, "#/users", "Users");

  await page.getByRole("link", { name: "grace.lovelace1@example.com" }).click();
  await page.getByRole("heading", { level: 1, name: "Grace Lovelace" }).waitFor();
  expect(await page.getByRole("link", { name: "Platform" }).isVisible()).toBe(true);
  expect(await page.getByRole("region", { name: "API tokens of grace.lovelace1@example.com" }).innerText()).toContain("CI reporter");
  await g.screenshot(page, SUITE, "user");
  await page.getByRole("link", { name: "Platform" }).click();
  await page.getByRole("heading", { level: 1, name: "Platform" }).waitFor();
  expect(await page.locator("tbody tr").count()).toBe(6);
  await go(page, "#/groups", "Groups");
  expect(await page.locator("tbody tr").count()).toBe(5);
  await g.screenshot(page, SUITE, "groups");
  await page.context().close();
}, 60_000);

test("provisioning log: every SCIM write with its outcome; filters, a time range, export; a write on an unknown id leads to a page saying so", async () => {
  const page = await signedIn({}, "#/provisioning");
  const all = await s.admin("GET", "/provisioning-log?limit=1");
  expect(await page.locator("nav.pager").innerText()).toContain(`of ${all.total}`);
  await page.getByLabel("Outcome").selectOption("failure");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("1–2 of 2").waitFor();
  const duplicate = await page.getByRole("row", { name: /invalidValue/ }).innerText();
  expect(duplicate).toContain("400");
  expect(duplicate).toContain("Entra ID production");
  await g.screenshot(page, SUITE, "provisioning-log");
  // The write on an id that does not exist is not a link; the user page for that id says why.
  const unknown = page.getByRole("row", { name: /404/ });
  expect(await unknown.innerText()).toContain("999999 (no such user)");
  expect(await unknown.getByRole("link").count()).toBe(0);
  await go(page, "#/users/999999", "No user 999999");
  expect(await page.locator("main").innerText()).toContain("never existed");
  await page.getByRole("link", { name: "Provisioning log entries for this id" }).click();
  await page.getByText("1–1 of 1").waitFor();
  expect(await page.getByLabel("Resource id").inputValue()).toBe("999999");
  await g.screenshot(page, SUITE, "provisioning-unknown-id", false);

  await go(page, "#/provisioning", "Provisioning log");
  await page.getByLabel("Operation").selectOption("delete");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByRole("row", { name: /delete user.*tim\.berners-lee49@example\.com/ }).waitFor();
  expect(await page.locator("tbody tr").count()).toBe(1);

  // A time range: from a minute ahead nothing; until a minute ahead everything (the browser's local time, ISO in the address).
  await go(page, "#/provisioning", "Provisioning log");
  const local = (ms: number) => page.evaluate((at) => { const d = new Date(at); const p = (n: number) => String(n).padStart(2, "0"); return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}`; }, ms);
  await page.getByLabel("From (your local time)").fill(await local(Date.now() + 120_000));
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("No provisioning activity matches.").waitFor();
  expect(decodeURIComponent(page.url())).toMatch(/since=\d{4}-\d\d-\d\dT\d\d:\d\d:00\.000Z/);
  await page.getByLabel("From (your local time)").fill("");
  await page.getByLabel("Until (your local time)").fill(await local(Date.now() + 120_000));
  await page.getByLabel("Outcome").selectOption("failure");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("1–2 of 2").waitFor();
  // Export takes the filters shown: the two failures, as CSV and as NDJSON.
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
  expect(csv.suggestedFilename()).toMatch(/^gatehouse-provisioning-\d{4}-\d\d-\d\d\.csv$/);
  const lines = readFileSync((await csv.path())!, "utf8").trimEnd().split("\r\n");
  expect(lines).toHaveLength(3);
  expect(lines[0]).toStartWith("id,at,token_id,token_name,operation");
  const [nd] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export NDJSON" }).click()]);
  const entries = readFileSync((await nd.path())!, "utf8").trimEnd().split("\n").map((l) => JSON.parse(l));
  expect(entries.map((e) => e.status).sort()).toEqual([400, 404]);
  await page.context().close();
}, 60_000);

test("webhooks: create with the event picker (the project picked from the workspace's; one gone meanwhile refused next to its field; secret shown once), edit, disable, re-enable the 410-disabled one, rotate, test event, recover, delete", async () => {
  await s.admin("POST", "/workspaces", { name: "Porto" }); // a workspace without projects
  const page = await signedIn({}, "#/webhooks");
  expect(await page.locator("tbody tr").count()).toBe(6);
  await g.screenshot(page, SUITE, "webhooks");
  await page.getByRole("link", { name: "New subscription" }).click();
  await page.getByRole("heading", { level: 1, name: "New subscription" }).waitFor();
  await page.getByLabel("Endpoint URL").fill(s.rx.base + "/ok?new");
  await page.getByLabel("Only these events:").check();
  // The picker is built from the catalog, each event with what it means.
  expect(await page.locator(".event-groups").innerText()).toContain("A test run is completed");
  await page.getByLabel("defect.created").check();
  await page.getByLabel("run.completed").check();
  // The project is one of the workspace's projects, picked (no free text to mistype).
  const projectChoices = () => page.getByLabel("Project (optional)").locator("option").allInnerTexts();
  expect(await projectChoices()).toEqual(["All projects", "MOB — Mobile app (Default)", "WEB — Web app (Default)"]);
  await page.getByLabel("Workspace", { exact: true }).selectOption({ label: "Porto" });
  expect(await projectChoices()).toEqual(["All projects"]);
  await page.getByLabel("Workspace", { exact: true }).selectOption({ label: "Default" });
  expect(await projectChoices()).toEqual(["All projects", "MOB — Mobile app", "WEB — Web app"]);
  await page.getByLabel("Project (optional)").selectOption("WEB");
  await page.getByLabel("Description (optional)").fill("QA dashboard");
  // A project gone since the form loaded (deleted meanwhile) is refused next to the project field, and nothing is created.
  await page.evaluate(() => { const p = document.getElementById("f-project-optional"); p.append(Object.assign(document.createElement("option"), { value: "NOPE", textContent: "NOPE" })); p.value = "NOPE"; });
  await page.getByRole("button", { name: "Create subscription" }).click();
  const projectError = page.locator(".field-with-error", { has: page.getByLabel("Project (optional)") }).locator("p.error");
  await projectError.waitFor();
  expect(await projectError.innerText()).toContain("there is no project NOPE");
  expect(await page.locator("p.error:visible").count()).toBe(1);
  expect((await s.admin("GET", "/webhooks")).items.some((x: any) => x.description === "QA dashboard")).toBe(false);
  await page.getByLabel("Project (optional)").selectOption("WEB");
  await g.screenshot(page, SUITE, "subscription-new");
  await page.getByRole("button", { name: "Create subscription" }).click();
  await page.getByRole("heading", { level: 1, name: "QA dashboard" }).waitFor();
  const secret = await page.locator(".secret-value").innerText();
  expect(secret).toStartWith("whsec_");
  const id = Number(page.url().split("#/webhooks/")[1]);
  expect(await s.admin("GET", `/webhooks/${id}`)).toMatchObject({ url: s.rx.base + "/ok?new", events: ["run.completed", "defect.created"], workspace: 1, project: "WEB", description: "QA dashboard", enabled: true });
  await page.reload();
  await page.getByRole("heading", { level: 1, name: "QA dashboard" }).waitFor();
  expect(await page.locator(".secret-value").count()).toBe(0);

  // Edit
  await page.getByText("Edit subscription").click();
  await page.getByLabel("Description (optional)").fill("QA dashboard (all events)");
  await page.getByLabel("All events, including ones added in later versions").check();
  expect(await page.getByLabel("Project (optional)").inputValue()).toBe("WEB"); // the edit form starts from what is stored
  await page.getByLabel("Project (optional)").selectOption("MOB");
  await page.getByRole("button", { name: "Save changes" }).click();
  await page.getByRole("heading", { level: 1, name: "QA dashboard (all events)" }).waitFor();
  expect(await s.admin("GET", `/webhooks/${id}`)).toMatchObject({ events: ["*"], description: "QA dashboard (all events)", workspace: 1, project: "MOB" });
  expect(await page.getByRole("region", { name: "Subscription" }).innerText()).toMatch(/Workspace\s+Default/);
  // A bad URL is refused next to the URL field, once.
  await page.getByText("Edit subscription").click();
  await page.getByLabel("Endpoint URL").fill("ftp://files.example.com/x");
  await page.getByRole("button", { name: "Save changes" }).click();
  const urlError = page.locator(".field-with-error", { has: page.getByLabel("Endpoint URL") }).locator("p.error");
  await urlError.waitFor();
  expect(await page.locator("p.error:visible").count()).toBe(1);

  // Disable, then the test event is refused next to its button
  await page.getByRole("button", { name: "Disable", exact: true }).click();
  await page.getByRole("button", { name: "Enable", exact: true }).waitFor();
  expect((await s.admin("GET", `/webhooks/${id}`)).enabled).toBe(false);
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText(/is disabled; enable it first/).waitFor();
  await page.getByRole("button", { name: "Enable", exact: true }).click();
  await page.getByRole("button", { name: "Disable", exact: true }).waitFor();

  // Test event of a chosen type
  await page.getByLabel("Test event type").selectOption("run.completed");
  await page.getByRole("button", { name: "Send test event" }).click();
  await page.getByText(/Test run\.completed queued/).waitFor();
  await s.until(async () => (await s.admin("GET", `/webhooks/${id}/deliveries?event=run.completed&status=delivered`)).total === 1, "the test event delivered");

  // Rotate the secret
  await page.getByRole("button", { name: "Rotate secret" }).click();
  await confirmIn(page, "Rotate secret");
  await page.getByText("New signing secret").waitFor();
  expect(await page.locator(".secret-value").innerText()).toStartWith("whsec_");
  expect((await s.admin("GET", `/webhooks/${id}`)).previousSecretExpiresAt).not.toBeNull();

  // Delete
  await page.getByRole("button", { name: "Delete subscription" }).click();
  expect(await confirmIn(page, "Delete subscription")).toContain("cannot be undone");
  await page.getByRole("heading", { level: 1, name: "Webhooks" }).waitFor();
  await expect(s.admin("GET", `/webhooks/${id}`)).rejects.toThrow(/404/);

  // Re-enable the subscription the engine disabled after a 410
  await go(page, `#/webhooks/${s.subs.gone}`, "Old Slack hook");
  expect(await page.locator("section").first().innerText()).toContain("410 Gone");
  await page.getByRole("button", { name: "Re-enable" }).click();
  await page.getByRole("button", { name: "Disable", exact: true }).waitFor();
  expect(await s.admin("GET", `/webhooks/${s.subs.gone}`)).toMatchObject({ enabled: true, disabledReason: null });
  await page.getByRole("button", { name: "Disable", exact: true }).click(); // leave it quiet for the next tests
  await page.getByRole("button", { name: "Enable", exact: true }).waitFor();

  // Recover failed deliveries since a time (the 500 endpoint fails them again afterwards)
  await go(page, `#/webhooks/${s.subs.fail}`, "Jira bridge");
  await page.getByRole("button", { name: "Recover failed deliveries" }).click();
  await page.getByText("42 failed deliveries were queued again.").waitFor();
  await s.until(async () => (await s.admin("GET", `/webhooks/${s.subs.fail}/deliveries?status=failed&limit=1`)).total === 42, "failed again");
  await page.context().close();
}, 90_000);

test("delivery log: health, filters, paging, a delivery's request and response per attempt, redeliver with a marker", async () => {
  const page = await signedIn({}, `#/webhooks/${s.subs.fail}`);
  const health = page.getByRole("region", { name: "Health" });
  expect(await health.innerText()).toContain("failing");
  expect(await health.innerText()).toContain("HTTP 500");
  expect(await health.innerText()).toMatch(/0% \(0 of \d+ attempts in the last 24 h\)/);
  await g.screenshot(page, SUITE, "subscription", false);
  expect(await page.locator("nav.pager").innerText()).toContain("1–25 of 42");
  await page.getByRole("button", { name: "Next page of deliveries" }).click();
  await page.getByText("26–42 of 42").waitFor();
  await page.getByLabel("Event type", { exact: true }).selectOption("run.completed");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("1–12 of 12").waitFor();
  await page.getByLabel("Status").selectOption("delivered");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("No deliveries match.").waitFor();
  await page.getByLabel("Status").selectOption("failed");
  await page.getByRole("button", { name: "Filter" }).click();
  await page.getByText("1–12 of 12").waitFor();
  // Focus stayed on the Filter button (the page re-rendered around it), so the log is in view.
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("apply-filters");
  await page.evaluate(() => document.getElementById("log-title").scrollIntoView());
  await g.screenshot(page, SUITE, "delivery-log", false);

  const first = (await s.admin("GET", `/webhooks/${s.subs.fail}/deliveries?status=failed&event=run.completed&limit=1`)).items[0];
  await page.getByRole("link", { name: `Delivery ${first.id}: run.completed, failed` }).click();
  const h1 = page.getByRole("heading", { level: 1, name: `Delivery ${first.id}: run.completed` });
  await h1.waitFor();
  expect(await page.evaluate(() => document.activeElement?.tagName)).toBe("H1"); // focus moved to the detail
  const n = (await s.admin("GET", `/deliveries/${first.id}`)).attempts.length;
  expect(n).toBeGreaterThanOrEqual(3);
  const attempt = page.getByRole("region", { name: new RegExp(`^Attempt ${n} `) }); // newest first, and open
  expect((await page.locator("section.attempt h3").allInnerTexts()).map((h) => Number(/^Attempt (\d+)/.exec(h)![1]))).toEqual(Array.from({ length: n }, (_, i) => n - i));
  expect(await page.locator("section.attempt details[open]").count()).toBe(1);
  expect(await page.getByRole("region", { name: /^Attempt 1/ }).getByText("receiver exploded").isVisible()).toBe(false); // older ones closed
  const text = await attempt.innerText();
  for (const part of ["Request", "webhook-id", "webhook-signature", "Response", "500", "x-receiver", "receiver exploded", '"event": "run.completed"']) expect(text).toContain(part);
  await g.screenshot(page, SUITE, "delivery");
  await g.screenshot(page, SUITE, "delivery-top", false);
  const before = (await s.admin("GET", `/deliveries/${first.id}`)).attempts.length;
  await page.getByRole("button", { name: "Redeliver" }).click();
  // Without a reload, the new attempt appears on top, open, with the redelivery marker below it
  // ("Queued for redelivery…" shows until then: a local receiver answers too fast to catch it).
  await page.getByText(/Redelivered: attempt \d+ answered HTTP 500\./).waitFor();
  const top = await page.locator("section.attempt h3").first().innerText();
  expect(Number(/^Attempt (\d+)/.exec(top)![1])).toBeGreaterThan(before);
  expect(await page.locator("section.attempt details[open]").count()).toBe(1);
  expect(await page.getByRole("note").last().innerText()).toContain("Redelivery started here");
  const detail = await s.until(async () => {
    const d = await s.admin("GET", `/deliveries/${first.id}`);
    return d.status === "failed" && d.attempts.length === before + 3 && d;
  }, "the redelivery's attempts");
  expect(detail.attempts[before].redelivery).toBe(true);
  await g.screenshot(page, SUITE, "delivery-redelivered");
  await page.getByRole("link", { name: "← Back to the delivery log" }).click();
  await page.getByText("1–12 of 12").waitFor(); // the filters came back with it
  await page.context().close();
}, 90_000);

test("workspaces: create, rename, archive with a confirmation, restore; a workspace SCIM token; groups by workspace", async () => {
  const page = await signedIn({}, "#/workspaces");
  await page.getByLabel("Workspace name").fill("Berlin office");
  await page.getByRole("button", { name: "Create workspace" }).click();
  await page.getByRole("link", { name: "Berlin office" }).waitFor();
  const ws = (await s.admin("GET", "/workspaces")).items.find((w: any) => w.name === "Berlin office");
  expect(ws).toMatchObject({ archived: false });
  await page.getByRole("button", { name: "Rename workspace Berlin office" }).click();
  await page.getByLabel("New name for Berlin office").fill("Berlin");
  await page.getByRole("button", { name: "Save" }).click();
  await page.getByRole("link", { name: "Berlin", exact: true }).waitFor();
  expect((await s.admin("GET", `/workspaces/${ws.id}`)).name).toBe("Berlin");
  await page.getByRole("button", { name: "Archive workspace Berlin" }).click();
  expect(await confirmIn(page, "Archive workspace")).toContain("403");
  await page.getByRole("button", { name: "Restore workspace Berlin" }).waitFor();
  expect((await s.admin("GET", `/workspaces/${ws.id}`)).archived).toBe(true);
  await g.screenshot(page, SUITE, "workspaces");
  // The default workspace cannot be archived: its button is disabled, with the reason beside it.
  expect(await page.getByRole("button", { name: "Archive workspace Default" }).isDisabled()).toBe(true);
  expect(await page.getByRole("row", { name: /Default/ }).innerText()).toContain("The default workspace cannot be archived.");
  await page.getByRole("button", { name: "Restore workspace Berlin" }).click();
  await page.getByRole("button", { name: "Archive workspace Berlin" }).waitFor();
  expect((await s.admin("GET", `/workspaces/${ws.id}`)).archived).toBe(false);

  // A SCIM token for that workspace; what it provisions shows up there.
  await go(page, "#/scim", "SCIM provisioning");
  await page.getByLabel("Token name").fill("Berlin Entra");
  await page.getByLabel("Scope").selectOption(String(ws.id));
  await page.getByRole("button", { name: "Create token" }).click();
  await page.getByText("SCIM token “Berlin Entra” created").waitFor();
  const token = await page.locator(".secret-value").innerText();
  expect((await s.admin("GET", "/scim-tokens")).find((t: any) => t.name === "Berlin Entra").workspaceId).toBe(ws.id);
  expect(await page.getByRole("row", { name: /Berlin Entra/ }).innerText()).toContain("workspace Berlin");
  const scim = (path: string, body: unknown) =>
    fetch(`${s.bin.url}/scim/v2${path}`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/scim+json" }, body: JSON.stringify(body) });
  const u = (await (await scim("/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "bo@example.com", name: { givenName: "Bo", familyName: "Berg" } })).json()) as { id: string };
  expect((await scim("/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Platform", members: [{ value: u.id }] })).status).toBe(201);
  await go(page, "#/groups", "Groups");
  await page.getByLabel("Workspace").selectOption(String(ws.id));
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText("1–1 of 1").waitFor();
  expect(await page.locator("tbody tr").innerText()).toContain("Berlin");
  await go(page, `#/users/${u.id}`, "Bo Berg");
  expect(await page.locator(".card").innerText()).toMatch(/Workspaces\s+Berlin/);
  await page.context().close();
}, 60_000);

test("instance: version, uptime, database size, backlog, links to /openapi and /metrics", async () => {
  const page = await signedIn({}, "#/instance");
  const info = await s.admin("GET", "/instance");
  const text = await page.locator(".card").innerText();
  expect(text).toContain(info.version);
  expect(text).toMatch(/Database\s+[\d.]+ (KB|MB)/);
  expect(text).toContain("deliveries pending");
  expect(await page.getByRole("link", { name: "API reference (/openapi)" }).getAttribute("href")).toBe("/openapi");
  expect(await page.getByRole("link", { name: "Prometheus metrics (/metrics)" }).getAttribute("href")).toBe("/metrics");
  await g.screenshot(page, SUITE, "instance");
  await page.context().close();
}, 60_000);

test("keyboard only: sign in, move between sections, create a token, confirm dialogs open, cancel with Escape and give focus back", async () => {
  const page = await g.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${s.bin.url}/console`);
  // The token field has focus on arrival (once the page has asked which sign-ins exist).
  await page.waitForFunction(() => document.activeElement?.getAttribute("type") === "password");
  await page.keyboard.type(ADMIN_TOKEN);
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { level: 1, name: "SCIM provisioning" }).waitFor();
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("SCIM provisioning");
  // Tab to the nav link "API tokens" and follow it.
  const focusName = () => page.evaluate(() => (document.activeElement?.getAttribute("aria-label") || document.activeElement?.textContent || "").trim());
  for (let i = 0; i < 40 && (await focusName()) !== "API tokens"; i++) await page.keyboard.press("Tab");
  expect(await focusName()).toBe("API tokens");
  // The focused element is visibly outlined.
  expect(await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle)).not.toBe("none");
  await page.keyboard.press("Enter");
  await page.getByRole("heading", { level: 1, name: "API tokens" }).waitFor();
  for (let i = 0; i < 20 && (await page.evaluate(() => document.activeElement?.id)) !== "f-token-name"; i++) await page.keyboard.press("Tab");
  await page.keyboard.type("Keyboard token");
  await page.keyboard.press("Enter");
  await page.getByText("API token “Keyboard token” created").waitFor();
  expect((await s.admin("GET", "/api-tokens")).items.some((t: any) => t.name === "Keyboard token")).toBe(true);
  // Open a confirmation from the keyboard, leave it with Escape: nothing happens and focus returns.
  const revoke = page.getByRole("button", { name: "Revoke API token Keyboard token" });
  await revoke.focus();
  await page.keyboard.press("Enter");
  await page.getByRole("dialog").waitFor();
  expect(await page.evaluate(() => document.activeElement?.textContent)).toBe("Cancel");
  await page.keyboard.press("Escape");
  await page.getByRole("dialog").waitFor({ state: "detached" });
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Revoke API token Keyboard token");
  expect((await s.admin("GET", "/api-tokens")).items.find((t: any) => t.name === "Keyboard token").revokedAt).toBeNull();
  // Past the filters in one keypress: the first Tab after a page's heading offers to skip them.
  await page.getByRole("link", { name: "Provisioning log" }).click();
  await page.getByRole("heading", { level: 1, name: "Provisioning log" }).waitFor();
  await page.waitForFunction(() => document.activeElement?.tagName === "H1");
  await page.keyboard.press("Tab");
  expect(await focusName()).toBe("Skip to the results");
  expect(await page.evaluate(() => document.activeElement.getBoundingClientRect().width)).toBeGreaterThan(0); // visible while focused
  await page.keyboard.press("Enter");
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Provisioning log");
  // A subscription's page: past its actions (the date-time field alone is several tab stops) to the delivery log.
  await page.goto(`${s.bin.url}/console#/webhooks/${s.subs.fail}`);
  await page.getByRole("heading", { level: 1, name: "Jira bridge" }).waitFor();
  await page.waitForFunction(() => document.activeElement?.tagName === "H1");
  await page.keyboard.press("Tab");
  expect(await focusName()).toBe("Skip to the delivery log");
  await page.keyboard.press("Enter");
  expect(await page.evaluate(() => document.activeElement?.id)).toBe("log-title");
  await page.context().close();
}, 60_000);

const SCREENS: [string, () => string, string | RegExp][] = [
  ["scim", () => "#/scim", "SCIM provisioning"],
  ["provisioning-log", () => "#/provisioning", "Provisioning log"],
  ["users", () => "#/users", "Users"],
  ["user", () => `#/users/${s.userIds[1]}`, "Grace Lovelace"],
  ["groups", () => "#/groups", "Groups"],
  ["workspaces", () => "#/workspaces", "Workspaces"],
  ["api-tokens", () => "#/api-tokens", "API tokens"],
  ["webhooks", () => "#/webhooks", "Webhooks"],
  ["subscription-new", () => "#/webhooks/new", "New subscription"],
  ["subscription", () => `#/webhooks/${s.subs.fail}`, "Jira bridge"],
  ["instance", () => "#/instance", "Instance"],
  ["audit", () => "#/audit", "Audit log"],
  ["admin-tokens", () => "#/admin-tokens", "Admin tokens"],
  ["unknown-user", () => "#/users/999999", "No user 999999"],
];

async function axeViolations(page: Page) {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern; nothing is fetched.
  await page.evaluate(`(() => { ${AXE}\n })()`);
  const result = await page.evaluate(() => (window as any).axe.run(document, { resultTypes: ["violations"] }));
  return (result.violations as { id: string; impact: string; nodes: { target: string[] }[] }[])
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 3).join(", ")}`);
}

for (const scheme of ["light", "dark"] as const) {
  test(`axe-core: no serious or critical violation on any main screen (${scheme})`, async () => {
    const page = await signedIn({ colorScheme: scheme });
    // The scan itself works: an image without alt text planted in the page is reported.
    await page.evaluate(() => document.querySelector("main").append(Object.assign(document.createElement("img"), { id: "axe-probe", src: "/console/favicon.svg" })));
    expect((await axeViolations(page)).some((v) => v.startsWith("image-alt (critical)") && v.includes("#axe-probe"))).toBe(true);
    await page.evaluate(() => document.getElementById("axe-probe").remove());
    const found: string[] = [];
    const firstDelivery = (await s.admin("GET", `/webhooks/${s.subs.fail}/deliveries?limit=1`)).items[0].id;
    for (const [name, hash, heading] of [...SCREENS, ["delivery", () => `#/webhooks/${s.subs.fail}/deliveries/${firstDelivery}`, /^Delivery /] as const]) {
      await go(page, hash(), heading);
      for (const v of await axeViolations(page)) found.push(`${name}: ${v}`);
      if (scheme === "dark") await g.screenshot(page, SUITE, `dark-${name}`, false);
    }
    // The confirmation dialog too.
    await go(page, "#/scim", "SCIM provisioning");
    await page.getByRole("button", { name: "Disable SCIM" }).click();
    await page.getByRole("dialog").waitFor();
    for (const v of await axeViolations(page)) found.push(`dialog: ${v}`);
    await page.keyboard.press("Escape");
    expect(found).toEqual([]);
    await page.context().close();
  }, 120_000);
}

test("390 px wide: no page scrolls sideways (tables scroll inside their own region); screenshots", async () => {
  const page = await signedIn({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  const wide: string[] = [];
  for (const [name, hash, heading] of SCREENS) {
    await go(page, hash(), heading);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    if (overflow > 0) wide.push(`${name}: ${overflow}px`);
    await g.screenshot(page, SUITE, `390-${name}`);
  }
  expect(wide).toEqual([]);
  await page.context().close();
}, 120_000);

test("no request left 127.0.0.1, and no page raised a script error", () => {
  expect(g.outsideRequests).toEqual([]);
  expect(pageErrors).toEqual([]);
});
