import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers";

/** GET /api/admin/projects: what the console's subscription form offers as a subscription's project. */

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => (await r.json()) as any;

test("projects by code, with their workspace; ?workspaceId keeps one workspace's; a viewer may read them", async () => {
  const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Berlin" }));
  const tokenOf = async (workspaceId: number) => (await json(await t.admin("POST", "/api/admin/api-tokens", { name: `reporter ${workspaceId}`, workspaceId }))).token as string;
  const project = async (token: string, code: string, title: string) => expect((await t.request("POST", "/api/v1/project", { body: { code, title }, headers: { token } })).status).toBe(200);
  const def = await tokenOf(1);
  const berlin = await tokenOf(ws.id);
  await project(def, "WEB", "Web app");
  await project(berlin, "BER", "Berlin app");
  await project(def, "API", "Public API");

  expect(await json(await t.admin("GET", "/api/admin/projects"))).toEqual({
    total: 3,
    items: [
      { code: "API", title: "Public API", workspaceId: 1 },
      { code: "BER", title: "Berlin app", workspaceId: ws.id },
      { code: "WEB", title: "Web app", workspaceId: 1 },
    ],
  });
  expect((await json(await t.admin("GET", `/api/admin/projects?workspaceId=${ws.id}`))).items.map((p: any) => p.code)).toEqual(["BER"]);
  expect((await json(await t.admin("GET", "/api/admin/projects?workspaceId=999"))).total).toBe(0);
  expect((await t.admin("GET", "/api/admin/projects?workspaceId=abc")).status).toBe(400);
  expect((await t.admin("GET", "/api/admin/projects?workspaceId=1.5")).status).toBe(400);
  expect((await t.request("GET", "/api/admin/projects")).status).toBe(401);
  const viewer = (await json(await t.admin("POST", "/api/admin/admin-tokens", { name: "viewer", role: "viewer", expiresInDays: 1 }))).token;
  expect((await t.request("GET", "/api/admin/projects", { headers: { authorization: `Bearer ${viewer}` } })).status).toBe(200);
});
