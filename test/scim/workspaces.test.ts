import { describe, expect, test } from "bun:test";
import { createScimTestApp, expectScimError, json, newUser, PATCH_SCHEMA } from "./helpers";
import { entraDefault, entraFlagged, okta, replay, type Step } from "./users/fixtures/idp";

/**
 * Multi-workspace organizations: workspace and organization SCIM tokens, isolation between
 * workspaces, a person in several workspaces, and organization-wide deactivation.
 */
const SEARCH = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";

function organization(overrides: Parameters<typeof createScimTestApp>[0] = {}) {
  const app = createScimTestApp(overrides);
  const as = (token: string) => ({
    scim: (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
      app.request(method, `/scim/v2${path}`, {
        body,
        headers: { authorization: `Bearer ${token}`, accept: "application/scim+json", ...(body !== undefined ? { "content-type": "application/scim+json" } : {}), ...headers },
      }),
  });
  const workspace = async (name: string) => {
    const r = await app.admin("POST", "/api/admin/workspaces", { name });
    expect(r.status).toBe(201);
    const id = (await json(r)).id as number;
    const token = await app.admin("POST", "/api/admin/scim-tokens", { name: `${name} IdP`, workspaceId: id });
    expect(token.status).toBe(201);
    const body = await json(token);
    expect(body.workspaceId).toBe(id);
    return { id, ...as(body.token) };
  };
  return { app, org: as(app.token), workspace };
}

describe("IdP sequences with a workspace token and with the organization token", () => {
  const sequences: [string, Step[], Parameters<typeof createScimTestApp>[0]][] = [
    ["Entra ID, default dialect", entraDefault, {}],
    ["Entra ID, aadOptscim062020", entraFlagged, {}],
    ["Okta", okta, { scimDuplicateStatus: 409 }],
  ];
  for (const [name, steps, config] of sequences) {
    test(`${name}: workspace token — the user is a member of that workspace only`, async () => {
      const { app, workspace, org } = organization(config);
      try {
        const a = await workspace("Alpha");
        const b = await workspace("Beta");
        const ids = await replay(steps, b);
        expect(await json(await org.scim("GET", `/Users/${ids.user}`))).toMatchObject({ id: ids.user });
        await expectScimError(await a.scim("GET", `/Users/${ids.user}`), 404);
        const members = app.ctx.sqlite.query("SELECT workspace_id FROM workspace_members WHERE user_id = ?").all(Number(ids.user)) as { workspace_id: number }[];
        expect(members.map((m) => m.workspace_id)).toEqual([b.id]);
      } finally {
        app.close();
      }
    });
    test(`${name}: organization token — as a single-workspace installation (default workspace)`, async () => {
      const { app, org } = organization(config);
      try {
        const ids = await replay(steps, org);
        const members = app.ctx.sqlite.query("SELECT workspace_id FROM workspace_members WHERE user_id = ?").all(Number(ids.user)) as { workspace_id: number }[];
        expect(members.map((m) => m.workspace_id)).toEqual([1]);
      } finally {
        app.close();
      }
    });
  }
});

describe("a person in two workspaces", () => {
  test("POST of an existing userName through another workspace's token joins them (201, same id); deactivation through one token is organization-wide", async () => {
    const { app, org, workspace } = organization({ licenseSeats: 5 });
    try {
      const a = await workspace("Alpha");
      const b = await workspace("Beta");
      const created = await a.scim("POST", "/Users", newUser("ada@example.com", { displayName: "Ada" }));
      expect(created.status).toBe(201);
      const ada = await json(created);
      // Beta's IdP app looks the person up (not visible yet), then creates: joined, same id
      expect((await json(await b.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ada@example.com"')}`))).totalResults).toBe(0);
      const joined = await b.scim("POST", "/Users", newUser("ADA@example.com", { displayName: "Ada from Beta" }));
      expect(joined.status).toBe(201);
      expect(joined.headers.get("location")).toBe(`https://gatehouse.test/scim/v2/Users/${ada.id}`);
      expect((await json(joined)).id).toBe(ada.id);
      expect((await json(await b.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ada@example.com"')}`))).totalResults).toBe(1);
      // a second POST through the same workspace is a real duplicate
      await expectScimError(await b.scim("POST", "/Users", newUser("ada@example.com")), 400, "invalidValue");

      const ga = await json(await a.scim("POST", "/Groups", { displayName: "Engineering", members: [{ value: ada.id }] }));
      const gb = await json(await b.scim("POST", "/Groups", { displayName: "Engineering", members: [{ value: ada.id }] })); // same name, other workspace: fine
      expect(ga.members).toHaveLength(1);
      expect(gb.members).toHaveLength(1);
      const apiToken = await json(await app.admin("POST", "/api/admin/api-tokens", { name: "Ada's reporter", userId: Number(ada.id), workspaceId: a.id }));
      expect(apiToken.workspaceId).toBe(a.id);
      expect((await app.request("GET", "/api/v1/project", { headers: { token: apiToken.token } })).status).toBe(200);
      expect((await json(await app.admin("GET", "/api/admin/scim"))).seats.regular).toBe(1);

      // Beta's IdP unassigns her: DELETE through Beta's token
      expect((await b.scim("DELETE", `/Users/${ada.id}`)).status).toBe(204);
      for (const scim of [a, b, org]) {
        const u = await json(await scim.scim("GET", `/Users/${ada.id}`));
        expect(u.active).toBe(false);
      }
      expect((await json(await a.scim("GET", `/Groups/${ga.id}`))).members).toEqual([]);
      expect((await json(await b.scim("GET", `/Groups/${gb.id}`))).members).toEqual([]);
      expect((await app.request("GET", "/api/v1/project", { headers: { token: apiToken.token } })).status).toBe(401);
      expect((await json(await app.admin("GET", "/api/admin/scim"))).seats.regular).toBe(0);
      // reactivation (any token) restores no group membership
      await a.scim("PATCH", `/Users/${ada.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: true }] });
      expect((await json(await b.scim("GET", `/Groups/${gb.id}`))).members).toEqual([]);
    } finally {
      app.close();
    }
  });

  test("PATCH active false through a workspace token deactivates in one transaction (a failing step leaves everything as it was)", async () => {
    const { app, workspace } = organization();
    try {
      const a = await workspace("Alpha");
      const u = await json(await a.scim("POST", "/Users", newUser("tx@example.com")));
      const g = await json(await a.scim("POST", "/Groups", { displayName: "T", members: [{ value: u.id }] }));
      const r = await a.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: "False" }, { op: "replace", path: "userType", value: "collaborator" }] });
      expect(r.status).toBe(400);
      expect((await json(await a.scim("GET", `/Users/${u.id}`))).active).toBe(true);
      expect((await json(await a.scim("GET", `/Groups/${g.id}`))).members).toHaveLength(1);
    } finally {
      app.close();
    }
  });
});

describe("isolation: a workspace token cannot see or change another workspace's users or groups", () => {
  test("list, get, filter, .search, PUT, PATCH, DELETE of users and groups", async () => {
    const { app, org, workspace } = organization();
    try {
      const a = await workspace("Alpha");
      const b = await workspace("Beta");
      const alice = await json(await a.scim("POST", "/Users", newUser("alice@example.com", { title: "A" })));
      const bob = await json(await b.scim("POST", "/Users", newUser("bob@example.com", { title: "B" })));
      const ga = await json(await a.scim("POST", "/Groups", { displayName: "Alpha team", members: [{ value: alice.id }] }));
      const gb = await json(await b.scim("POST", "/Groups", { displayName: "Beta team", members: [{ value: bob.id }] }));

      const ids = (r: any) => r.Resources.map((x: any) => x.id);
      expect(ids(await json(await a.scim("GET", "/Users")))).toEqual([alice.id]);
      expect(ids(await json(await a.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "bob@example.com"')}`)))).toEqual([]);
      expect(ids(await json(await a.scim("GET", `/Users?filter=${encodeURIComponent('title eq "B" or title eq "A"')}`)))).toEqual([alice.id]);
      expect(ids(await json(await a.scim("POST", "/Users/.search", { schemas: [SEARCH] })))).toEqual([alice.id]);
      expect(ids(await json(await a.scim("POST", "/.search", { schemas: [SEARCH] })))).toEqual([alice.id, ga.id]);
      expect(ids(await json(await a.scim("GET", "/Groups")))).toEqual([ga.id]);
      expect(ids(await json(await a.scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Beta team"')}`)))).toEqual([]);
      expect(ids(await json(await a.scim("POST", "/Groups/.search", { schemas: [SEARCH] })))).toEqual([ga.id]);

      await expectScimError(await a.scim("GET", `/Users/${bob.id}`), 404);
      await expectScimError(await a.scim("PUT", `/Users/${bob.id}`, newUser("bob@example.com", { title: "hacked" })), 404);
      await expectScimError(await a.scim("PATCH", `/Users/${bob.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "title", value: "hacked" }] }), 404);
      await expectScimError(await a.scim("DELETE", `/Users/${bob.id}`), 404);
      await expectScimError(await a.scim("GET", `/Groups/${gb.id}`), 404);
      await expectScimError(await a.scim("PUT", `/Groups/${gb.id}`, { displayName: "hacked" }), 404);
      await expectScimError(await a.scim("PATCH", `/Groups/${gb.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "displayName", value: "hacked" }] }), 404);
      await expectScimError(await a.scim("DELETE", `/Groups/${gb.id}`), 404);
      // a member from another workspace is unknown to this workspace's group: skipped, as spec 2.2 says
      const patched = await json(await a.scim("PATCH", `/Groups/${ga.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: bob.id }] }] }));
      expect(patched.members.map((m: any) => String(m.value))).toEqual([alice.id]);

      const bobNow = await json(await org.scim("GET", `/Users/${bob.id}`));
      expect(bobNow).toMatchObject({ active: true, title: "B" });
      expect((await json(await org.scim("GET", `/Groups/${gb.id}`))).displayName).toBe("Beta team");
      // the organization token sees everything
      expect(ids(await json(await org.scim("GET", "/Users")))).toEqual([alice.id, bob.id]);
      expect(ids(await json(await org.scim("GET", "/Groups"))).sort()).toEqual([ga.id, gb.id].sort());
    } finally {
      app.close();
    }
  });

  test("group names are unique per workspace; an organization token's groups and users go to the default workspace", async () => {
    const { app, org, workspace } = organization();
    try {
      const a = await workspace("Alpha");
      await a.scim("POST", "/Groups", { displayName: "QA" });
      await expectScimError(await a.scim("POST", "/Groups", { displayName: "qa" }), 400, "invalidValue");
      expect((await org.scim("POST", "/Groups", { displayName: "QA" })).status).toBe(201);
      const u = await json(await org.scim("POST", "/Users", newUser("org@example.com")));
      await expectScimError(await a.scim("GET", `/Users/${u.id}`), 404);
      const rows = app.ctx.sqlite.query("SELECT workspace_id FROM groups ORDER BY workspace_id").all() as { workspace_id: number }[];
      expect(rows.map((r) => r.workspace_id)).toEqual([1, a.id]);
    } finally {
      app.close();
    }
  });
});

describe("admin API: workspaces", () => {
  test("create, list, rename, archive and restore; archived workspaces' tokens answer 403; the default cannot be archived", async () => {
    const { app, workspace } = organization();
    try {
      const list0 = await json(await app.admin("GET", "/api/admin/workspaces"));
      expect(list0.items).toEqual([expect.objectContaining({ id: 1, name: "Default", archived: false })]);
      const a = await workspace("Alpha");
      expect((await app.admin("POST", "/api/admin/workspaces", { name: "alpha" })).status).toBe(409);
      expect((await app.admin("POST", "/api/admin/workspaces", { name: "" })).status).toBe(400);
      const renamed = await json(await app.admin("PATCH", `/api/admin/workspaces/${a.id}`, { name: "Alpha Squad" }));
      expect(renamed).toMatchObject({ id: a.id, name: "Alpha Squad", archived: false });
      await a.scim("POST", "/Users", newUser("in-alpha@example.com"));
      expect((await json(await app.admin("GET", `/api/admin/workspaces/${a.id}`))).members).toBe(1);

      const archived = await json(await app.admin("PATCH", `/api/admin/workspaces/${a.id}`, { archived: true }));
      expect(archived.archived).toBe(true);
      await expectScimError(await a.scim("GET", "/Users"), 403);
      expect((await app.admin("POST", "/api/admin/scim-tokens", { name: "late", workspaceId: a.id })).status).toBe(409);
      await app.admin("PATCH", `/api/admin/workspaces/${a.id}`, { archived: false });
      expect((await a.scim("GET", "/Users")).status).toBe(200);

      expect((await app.admin("PATCH", "/api/admin/workspaces/1", { archived: true })).status).toBe(409);
      expect((await app.admin("PATCH", "/api/admin/workspaces/999", { name: "x" })).status).toBe(404);
      expect((await app.admin("POST", "/api/admin/scim-tokens", { name: "nowhere", workspaceId: 999 })).status).toBe(404);
      const tokens = await json(await app.admin("GET", "/api/admin/scim-tokens"));
      expect(tokens.map((t: any) => t.workspaceId)).toEqual([null, a.id]);
      expect((await app.request("GET", "/api/admin/workspaces")).status).toBe(401);
    } finally {
      app.close();
    }
  });
});
