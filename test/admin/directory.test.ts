import { afterAll, expect, test } from "bun:test";
import { createScimTestApp, json, USER_SCHEMA } from "../scim/helpers";

const t = await createScimTestApp();
afterAll(() => t.close());

const people = [
  ["ada@example.com", "Ada", "Lovelace", "regular"],
  ["grace@example.com", "Grace", "Hopper", "read-only"],
  ["alan@example.com", "Alan", "Turing", "billing"],
  ["edsger_w@example.com", "Edsger", "Dijkstra", "regular"],
] as const;
const ids: Record<string, number> = {};
for (const [userName, givenName, familyName, userType] of people) {
  const r = await json(await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName, userType, name: { givenName, familyName }, emails: [{ value: `${givenName.toLowerCase()}@work.example`, type: "work" }] }));
  ids[userName] = Number(r.id);
}
await t.scim("DELETE", `/Users/${ids["alan@example.com"]}`);
const team = await json(await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Compilers", members: [{ value: String(ids["grace@example.com"]) }, { value: String(ids["ada@example.com"]) }] }));
await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Empty team" });
const token = await json(await t.admin("POST", "/api/admin/api-tokens", { name: "Grace's reporter", userId: ids["grace@example.com"] }));

const users = async (q = "") => json(await t.admin("GET", `/api/admin/directory/users${q}`));

test("users: all, by search on userName, display name or e-mail, by state and type, paged", async () => {
  const all = await users();
  expect(all.total).toBe(4);
  expect(all.items[0]).toEqual({
    id: ids["ada@example.com"], userName: "ada@example.com", displayName: "Ada Lovelace", emails: ["ada@work.example"], userType: "regular", active: true,
    externalId: null, createdAt: expect.any(String), updatedAt: expect.any(String),
  });
  expect((await users("?q=HOPPER")).items.map((u: any) => u.userName)).toEqual(["grace@example.com"]);
  expect((await users("?q=alan@work")).items.map((u: any) => u.userName)).toEqual(["alan@example.com"]);
  expect((await users("?q=r_w")).items.map((u: any) => u.userName)).toEqual(["edsger_w@example.com"]); // `_` is literal
  expect((await users("?active=false")).items.map((u: any) => u.userName)).toEqual(["alan@example.com"]);
  expect((await users("?active=true&userType=regular")).total).toBe(2);
  const page = await users("?limit=2&offset=2");
  expect(page).toMatchObject({ total: 4, limit: 2, offset: 2 });
  expect(page.items.map((u: any) => u.userName)).toEqual(["alan@example.com", "edsger_w@example.com"]);
  expect((await t.admin("GET", "/api/admin/directory/users?userType=collaborator")).status).toBe(400);
  expect((await t.request("GET", "/api/admin/directory/users")).status).toBe(401);
});

test("a user's page: groups, API tokens and status", async () => {
  const grace = await json(await t.admin("GET", `/api/admin/directory/users/${ids["grace@example.com"]}`));
  expect(grace).toMatchObject({ userName: "grace@example.com", active: true, userType: "read-only", groups: [{ id: team.id, displayName: "Compilers" }] });
  expect(grace.apiTokens).toEqual([{ id: token.id, name: "Grace's reporter", createdAt: expect.any(String), lastUsedAt: null, revokedAt: null }]);
  expect(JSON.stringify(grace)).not.toContain(token.token);
  expect((await t.admin("GET", "/api/admin/directory/users/999")).status).toBe(404);
});

test("groups with member counts, and a group's members", async () => {
  const list = await json(await t.admin("GET", "/api/admin/directory/groups"));
  expect(list.items.map((g: any) => [g.displayName, g.members])).toEqual([["Compilers", 2], ["Empty team", 0]]);
  expect((await json(await t.admin("GET", "/api/admin/directory/groups?q=empty"))).total).toBe(1);
  const g = await json(await t.admin("GET", `/api/admin/directory/groups/${team.id}`));
  expect(g.memberList.map((m: any) => [m.userName, m.active])).toEqual([["ada@example.com", true], ["grace@example.com", true]]);
  expect((await t.admin("GET", "/api/admin/directory/groups/nope")).status).toBe(404);
});

test("workspaces: a user's workspaces, each group's workspace, and filters by workspace", async () => {
  const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Berlin office" }));
  const wsToken = (await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "Berlin IdP", workspaceId: ws.id }))).token;
  const scimAs = (method: string, path: string, body: unknown) =>
    t.request(method, `/scim/v2${path}`, { body, headers: { authorization: `Bearer ${wsToken}`, "content-type": "application/scim+json" } });
  // the organization puts an existing user into the workspace (its token cannot take her over by a POST)
  expect((await t.admin("PUT", `/api/admin/workspaces/${ws.id}/members/${ids["grace@example.com"]}`)).status).toBe(204);
  const joined = { id: String(ids["grace@example.com"]) };
  await scimAs("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Compilers", members: [{ value: joined.id }] });

  const grace = await json(await t.admin("GET", `/api/admin/directory/users/${ids["grace@example.com"]}`));
  expect(grace.workspaces.map((w: any) => w.name)).toEqual(["Default", "Berlin office"]);
  expect(grace.groups.map((g: any) => `${g.displayName} @ ${g.workspace.name}`).sort()).toEqual(["Compilers @ Berlin office", "Compilers @ Default"]);
  const inBerlin = await json(await t.admin("GET", `/api/admin/directory/users?workspaceId=${ws.id}`));
  expect(inBerlin.items.map((u: any) => u.userName)).toEqual(["grace@example.com"]);
  const groups = await json(await t.admin("GET", `/api/admin/directory/groups?workspaceId=${ws.id}`));
  expect(groups.items.map((g: any) => [g.displayName, g.workspace, g.members])).toEqual([["Compilers", { id: ws.id, name: "Berlin office" }, 1]]);
  const one = await json(await t.admin("GET", `/api/admin/directory/groups/${groups.items[0].id}`));
  expect(one.workspace.name).toBe("Berlin office");
});
