import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../../helpers";

/** Projects (and every entity in them) and API tokens belong to a workspace. */
const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => (await r.json()) as any;

test("an API token reaches its own workspace's projects only; a project of another workspace is not found", async () => {
  const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Alpha" }));
  const alpha = await json(await t.admin("POST", "/api/admin/api-tokens", { name: "alpha CI", workspaceId: ws.id }));
  expect(alpha.workspaceId).toBe(ws.id);
  const main = await json(await t.admin("POST", "/api/admin/api-tokens", { name: "default CI" }));
  expect(main.workspaceId).toBe(1);
  const call = (token: string, method: string, path: string, body?: unknown) => t.request(method, `/api/v1${path}`, { body, headers: { token } });

  expect((await call(alpha.token, "POST", "/project", { title: "Alpha project", code: "ALP" })).status).toBe(200);
  expect((await call(main.token, "POST", "/project", { title: "Main project", code: "MAI" })).status).toBe(200);
  const listed = async (token: string) => (await json(await call(token, "GET", "/project"))).result.entities.map((p: any) => p.code);
  expect(await listed(alpha.token)).toEqual(["ALP"]);
  expect(await listed(main.token)).toEqual(["MAI"]);

  for (const [method, path, body] of [["GET", "/project/ALP"], ["POST", "/case/ALP", { title: "x" }], ["GET", "/case/ALP"], ["POST", "/suite/alp", { title: "x" }], ["GET", "/run/ALP"]] as const) {
    const r = await call(main.token, method, path, body);
    expect(`${method} ${path} → ${r.status}`).toBe(`${method} ${path} → 404`);
  }
  const run = await json(await call(alpha.token, "POST", "/run/ALP", { title: "alpha run" }));
  const results = { results: [{ title: "a case", execution: { status: "passed" } }] };
  expect((await t.request("POST", `/api/v2/ALP/run/${run.result.id}/results`, { body: results, headers: { token: main.token } })).status).toBe(404);
  expect((await t.request("POST", `/api/v2/ALP/run/${run.result.id}/results`, { body: results, headers: { token: alpha.token } })).status).toBe(200);
  expect((await call(alpha.token, "POST", "/case/ALP", { title: "mine" })).status).toBe(200);
  // project codes stay unique in the organization
  expect((await call(main.token, "POST", "/project", { title: "Clash", code: "alp" })).status).toBe(409);

  // archiving the workspace stops its tokens
  await t.admin("PATCH", `/api/admin/workspaces/${ws.id}`, { archived: true });
  expect((await call(alpha.token, "GET", "/project")).status).toBe(403);
  expect((await t.admin("POST", "/api/admin/api-tokens", { name: "late", workspaceId: ws.id })).status).toBe(409);
  await t.admin("PATCH", `/api/admin/workspaces/${ws.id}`, { archived: false });
  expect((await call(alpha.token, "GET", "/project")).status).toBe(200);
  expect((await t.admin("POST", "/api/admin/api-tokens", { name: "nowhere", workspaceId: 999 })).status).toBe(404);
});

test("a token attributed to a user needs the user to be a member of the token's workspace", async () => {
  const scimToken = await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "idp" }));
  const u = await json(await t.request("POST", "/scim/v2/Users", {
    body: { userName: "member@example.com", name: { givenName: "M", familyName: "B" } },
    headers: { authorization: `Bearer ${scimToken.token}`, "content-type": "application/scim+json" },
  }));
  const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Beta" }));
  expect((await t.admin("POST", "/api/admin/api-tokens", { name: "b", userId: Number(u.id), workspaceId: ws.id })).status).toBe(400);
  expect((await t.admin("POST", "/api/admin/api-tokens", { name: "d", userId: Number(u.id) })).status).toBe(201);
});

test("another workspace's project answers exactly as a missing one, by the same path: 404 before the body is read or validated", async () => {
  const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Gamma" }));
  const gamma = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "gamma CI", workspaceId: ws.id }))).token;
  const other = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "other CI" }))).token;
  expect((await t.request("POST", "/api/v1/project", { body: { title: "Gamma", code: "GAM" }, headers: { token: gamma } })).status).toBe(200);
  const answer = async (method: string, path: string, body?: unknown) => {
    const r = await t.request(method, path, { body, headers: { token: other } });
    return `${r.status} ${await r.text()}`;
  };
  for (const [method, path, body] of [
    ["GET", "/api/v1/project/{code}"],
    ["GET", "/api/v1/case/{code}?severity=constructor"], // an invalid query too
    ["POST", "/api/v1/case/{code}", { title: "x" }],
    ["POST", "/api/v1/case/{code}", { nonsense: true }], // an invalid body too
    ["GET", "/api/v1/run/{code}/1"],
    ["POST", "/api/v2/{code}/run/1/results", { results: [] }],
  ] as const) {
    const existing = await answer(method, path.replace("{code}", "GAM"), body);
    const missing = await answer(method, path.replace("{code}", "NOP"), body);
    expect(existing.startsWith("404 ")).toBe(true);
    expect(existing.replaceAll("GAM", "NOP")).toBe(missing);
  }
});
