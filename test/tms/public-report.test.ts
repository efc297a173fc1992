import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "./harness";

let h: Harness;
let run: number;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Public <b>", code: "PUB" });
  const a = (await h.api("POST", "/case/PUB", { title: "Log in <script>alert(1)</script>" })).body.result.id;
  const b = (await h.api("POST", "/case/PUB", { title: "Log out" })).body.result.id;
  run = (await h.api("POST", "/run/PUB", { title: "Nightly & weekly", cases: [a, b], environment_slug: "staging" })).body.result.id;
  await h.api("POST", `/result/PUB/${run}`, { case_id: a, status: "failed" });
});
afterAll(() => h.close());

const page = (url: string) => h.t.request("GET", new URL(url).pathname);

test("the public report: read-only HTML at the returned address, escaped, strict CSP, no token needed", async () => {
  const url = (await h.api("PATCH", `/run/PUB/${run}/public`, { status: true })).body.result.url as string;
  expect(url).toMatch(/^https:\/\/gatehouse\.test\/public\/report\/[A-Za-z0-9_-]{32}$/);
  expect((await h.api("GET", `/run/PUB/${run}`)).body.result.public_url).toBe(url);
  const r = await page(url);
  expect(r.status).toBe(200);
  const csp = r.headers.get("content-security-policy")!;
  expect(csp).toStartWith("default-src 'none'; style-src 'sha256-");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(r.headers.get("x-content-type-options")).toBe("nosniff");
  const html = await r.text();
  expect(html).toContain("Nightly &#38; weekly");
  expect(html).toContain("Log in &#60;script&#62;alert(1)&#60;/script&#62;");
  expect(html).not.toContain("<script");
  expect(html).toContain('<td class="failed">failed</td>');
  expect(html).toContain("environment staging");
  // Making it public again keeps the address.
  expect((await h.api("PATCH", `/run/PUB/${run}/public`, { status: true })).body.result.url).toBe(url);
});

test("turning public off revokes the address for good; turning it on again issues a new one", async () => {
  const first = (await h.api("PATCH", `/run/PUB/${run}/public`, { status: true })).body.result.url as string;
  await h.api("PATCH", `/run/PUB/${run}/public`, { status: false });
  const gone = await page(first);
  expect(gone.status).toBe(404);
  expect(gone.headers.get("content-type")).toBe("text/html; charset=utf-8");
  expect((await h.api("GET", `/run/PUB/${run}`)).body.result.public_url).toBeNull();
  const second = (await h.api("PATCH", `/run/PUB/${run}/public`, { status: true })).body.result.url as string;
  expect(second).not.toBe(first);
  expect((await page(first)).status).toBe(404);
  expect((await page(second)).status).toBe(200);
  expect((await h.t.request("GET", "/public/report/not-a-token")).status).toBe(404);
});

test("a client asking for JSON only gets the API's error body for a missing report; a browser gets the page", async () => {
  const json = await h.t.request("GET", "/public/report/not-a-token", { headers: { accept: "application/json" } });
  expect([json.status, json.headers.get("content-type")?.split(";")[0]]).toEqual([404, "application/json"]);
  expect(await json.json()).toMatchObject({ status: false, error: { code: "not_found" } });
  const browser = await h.t.request("GET", "/public/report/not-a-token", { headers: { accept: "text/html,application/xhtml+xml,application/json;q=0.9,*/*;q=0.8" } });
  expect([browser.status, browser.headers.get("content-type")]).toEqual([404, "text/html; charset=utf-8"]);
});

test("the page stops when its workspace is archived (and returns with it), and never lists a deleted case", async () => {
  const ws = (await (await h.t.admin("POST", "/api/admin/workspaces", { name: "Archivable" })).json()) as { id: number };
  const token = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "w", workspaceId: ws.id })).json()) as { token: string }).token;
  const api = async (method: string, path: string, body?: unknown) => ((await (await h.t.request(method, `/api/v1${path}`, { body, headers: { token } })).json()) as any).result;
  await api("POST", "/project", { title: "Archived soon", code: "ARCH" });
  const kept = (await api("POST", "/case/ARCH", { title: "Kept case" })).id;
  const gone = (await api("POST", "/case/ARCH", { title: "Secret deleted case" })).id;
  const r = (await api("POST", "/run/ARCH", { title: "Run", cases: [kept, gone] })).id;
  const url = (await api("PATCH", `/run/ARCH/${r}/public`, { status: true })).url as string;
  expect(await (await page(url)).text()).toContain("Secret deleted case");
  await api("DELETE", `/case/ARCH/${gone}`);
  const html = await (await page(url)).text();
  expect(html).toContain("Kept case");
  expect(html).not.toContain("Secret deleted case");

  expect((await h.t.admin("PATCH", `/api/admin/workspaces/${ws.id}`, { archived: true })).status).toBe(200);
  expect((await page(url)).status).toBe(404);
  expect((await h.t.admin("PATCH", `/api/admin/workspaces/${ws.id}`, { archived: false })).status).toBe(200);
  expect((await page(url)).status).toBe(200);
});

test("the run link the reporters print ({host}/run/{CODE}/dashboard/{id}, host = base or base/api) is a page saying how to see the run, reading nothing", async () => {
  for (const path of ["/run/demo/dashboard/7", "/api/run/DEMO/dashboard/7?source=logs&search=x"]) {
    const r = await h.t.request("GET", path);
    expect([r.status, r.headers.get("content-type"), r.headers.get("content-security-policy")?.startsWith("default-src 'none'")]).toEqual([200, "text/html; charset=utf-8", true]);
    const html = await r.text();
    expect(html).toContain("Test run 7 of project DEMO");
    expect(html).toContain("/api/v1/run/DEMO/7");
  }
  const evil = await (await h.t.request("GET", "/run/%3Cscript%3E/dashboard/1")).text();
  expect(evil).not.toContain("<script>");
});
