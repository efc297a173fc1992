import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { queryLoggingDb } from "../support/query-log";
import { sql } from "drizzle-orm";
import { createGroupService } from "../../src/scim/groups/service";
import { createScimTestApp, expectScimError, json, newUser, PATCH_SCHEMA } from "./helpers";
import { execute, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";

const GROUP_URN = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_URN = "urn:ietf:params:scim:api:messages:2.0:PatchOp";
const BASE = "https://gatehouse.test/scim/v2";

const t = await createScimTestApp();
afterAll(() => t.close());

let seq = 0;
async function createUser(name = `u${++seq}`): Promise<number> {
  const r = await t.scim("POST", "/Users", newUser(`${name}@example.com`, { displayName: `User ${name}` }));
  expect(r.status).toBe(201);
  return Number((await json(r)).id);
}
async function createGroup(displayName: string, members: unknown[] = []): Promise<any> {
  const r = await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName, members });
  if (r.status !== 201) throw new Error(`${r.status} ${await r.text()}`);
  return json(r);
}
const patch = (id: string, Operations: unknown[]) => t.scim("PATCH", `/Groups/${id}`, { schemas: [PATCH_URN], Operations });
const memberValues = (g: any) => (g.members ?? []).map((m: any) => m.value);

let alice: number, bob: number, carol: number, gone: number;
beforeAll(async () => {
  alice = await createUser("alice");
  bob = await createUser("bob");
  carol = await createUser("carol");
  gone = await createUser("gone");
  expect((await t.scim("DELETE", `/Users/${gone}`)).status).toBe(204);
});

describe("POST /Groups", () => {
  test("an empty group: 201, Location = meta.location, opaque id, schemas", async () => {
    const r = await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: "Empty" });
    expect(r.status).toBe(201);
    expect(r.headers.get("content-type")).toStartWith("application/scim+json");
    const g = await json(r);
    expect(g.id).toMatch(/^[0-9a-f]{32}$/);
    expect(r.headers.get("location")).toBe(`${BASE}/Groups/${g.id}`);
    expect(g).toMatchObject({ schemas: [GROUP_URN], displayName: "Empty", members: [], meta: { resourceType: "Group", location: `${BASE}/Groups/${g.id}` } });
    expect(Date.parse(g.meta.created)).toBeGreaterThan(0);
    expect(g.meta.lastModified).toBe(g.meta.created);
  });

  test("members: string or number values; unknown, deactivated and non-user members skipped silently", async () => {
    const g = await createGroup("Mixed", [
      { value: String(alice), type: "User" },
      { value: bob },
      { value: "999999" },
      { value: String(gone) },
      { value: "not-an-id" },
      { value: String(carol), type: "Group" },
    ]);
    expect(g.members).toEqual([
      { value: alice, type: "User" },
      { value: bob, type: "User" },
    ]);
  });

  test("members' display and $ref come when requested (returned: request)", async () => {
    const g = await createGroup("Shown", [{ value: String(alice) }]);
    const both = await json(await t.scim("GET", `/Groups/${g.id}?attributes=displayName,members.value,members.display,members.$ref`));
    expect(both.members).toEqual([{ value: alice, display: "User alice", $ref: `${BASE}/Users/${alice}` }]);
    const whole = await json(await t.scim("GET", `/Groups/${g.id}?attributes=members,members.display`));
    expect(whole.members).toEqual([{ value: alice, display: "User alice", type: "User" }]);
    expect(whole.displayName).toBeUndefined();
    const onWrite = await json(await patch(g.id.concat("?attributes=members,members.$ref"), [{ op: "add", path: "members", value: [{ value: String(bob) }] }]));
    expect(onWrite.members).toEqual([
      { value: alice, type: "User", $ref: `${BASE}/Users/${alice}` },
      { value: bob, type: "User", $ref: `${BASE}/Users/${bob}` },
    ]);
  });

  test("displayName is required and non-empty → 400 invalidValue", async () => {
    await expectScimError(await t.scim("POST", "/Groups", { schemas: [GROUP_URN] }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: "" }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: "   " }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: 7 }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Groups", { displayName: "Bad members", members: [{ display: "x" }] }), 400, "invalidValue");
    await expectScimError(await t.scim("POST", "/Groups", { displayName: "Bad members", members: "1" }), 400, "invalidValue");
  });

  test("duplicate displayName, compared case-insensitively (Unicode too) → 400 invalidValue by default", async () => {
    await createGroup("Équipe QA");
    const d = await expectScimError(await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: "ÉQUIPE qa" }), 400, "invalidValue");
    expect(d.detail).toContain("already exists");
  });

  test("with GATEHOUSE_SCIM_DUPLICATE_STATUS=409 → 409 uniqueness", async () => {
    const t409 = await createScimTestApp({ scimDuplicateStatus: 409 });
    try {
      expect((await t409.scim("POST", "/Groups", { displayName: "Dup" })).status).toBe(201);
      await expectScimError(await t409.scim("POST", "/Groups", { displayName: "dup" }), 409, "uniqueness");
    } finally {
      t409.close();
    }
  });
});

describe("request hygiene", () => {
  test("attribute names in bodies are case-insensitive", async () => {
    const r = await t.scim("POST", "/Groups", { Schemas: [GROUP_URN], DisplayName: "Cased", Members: [{ Value: String(alice) }] });
    expect(r.status).toBe(201);
    const g = await json(r);
    expect(g.displayName).toBe("Cased");
    expect(memberValues(g)).toEqual([alice]);
    const p = await t.scim("PATCH", `/Groups/${g.id}`, { schemas: [PATCH_URN], operations: [{ OP: "Add", Path: "members", Value: [{ value: String(bob) }] }] });
    expect(memberValues(await json(p))).toEqual([alice, bob]);
  });

  test("the SCIM plumbing covers /Groups: media type 415, malformed JSON 400, no token 401", async () => {
    await expectScimError(await t.request("POST", "/scim/v2/Groups", { rawBody: "displayName=x", headers: { authorization: `Bearer ${t.token}`, "content-type": "application/x-www-form-urlencoded" } }), 415);
    await expectScimError(await t.request("POST", "/scim/v2/Groups", { rawBody: '{"displayName":', headers: { authorization: `Bearer ${t.token}`, "content-type": "application/scim+json" } }), 400, "invalidSyntax");
    await expectScimError(await t.request("GET", "/scim/v2/Groups"), 401);
    // No Content-Type on a body is read as JSON (old IdP clients).
    const r = await t.request("POST", "/scim/v2/Groups", { rawBody: JSON.stringify({ displayName: "No content type" }), headers: { authorization: `Bearer ${t.token}` } });
    expect(r.status).toBe(201);
  });
});

describe("GET /Groups/{id}", () => {
  test("with members, without (excludedAttributes=members), projected (attributes=displayName)", async () => {
    const g = await createGroup("Readers", [{ value: String(alice) }, { value: String(carol) }]);
    const full = await json(await t.scim("GET", `/Groups/${g.id}`));
    expect(memberValues(full)).toEqual([alice, carol]);
    const bare = await json(await t.scim("GET", `/Groups/${g.id}?excludedAttributes=members`));
    expect(bare.members).toBeUndefined();
    expect(bare).toMatchObject({ id: g.id, displayName: "Readers", schemas: [GROUP_URN] });
    const projected = await json(await t.scim("GET", `/Groups/${g.id}?attributes=displayName`));
    expect(projected.displayName).toBe("Readers");
    expect(projected.id).toBe(g.id);
    expect(projected.members).toBeUndefined();
  });

  test("the pre-serialised answer is byte-for-byte the generic one (members, none, externalId with escapes)", async () => {
    const full = await json(await t.scim("POST", "/Groups", { displayName: 'Quote " \\ ü', externalId: "ext\n\"1\"", members: [{ value: carol }, { value: alice }] }));
    const empty = await createGroup("Nobody here");
    for (const g of [full, empty]) {
      const fast = await (await t.scim("GET", `/Groups/${g.id}`)).text();
      const generic = await (await t.scim("GET", `/Groups/${g.id}?attributes=schemas,id,externalId,displayName,members,meta`)).text();
      expect(fast).toBe(generic);
      expect(JSON.stringify(JSON.parse(fast))).toBe(fast);
    }
    expect(memberValues(full)).toEqual([alice, carol]);
    expect(full.externalId).toBe('ext\n"1"');
  });

  test("unknown id → 404 SCIM error", async () => {
    await expectScimError(await t.scim("GET", "/Groups/0123456789abcdef0123456789abcdef"), 404);
  });
});

describe("PUT /Groups/{id}", () => {
  test("full replacement: sets displayName and the member list; omitting members removes all", async () => {
    const g = await createGroup("Put me", [{ value: String(alice) }]);
    const r = await t.scim("PUT", `/Groups/${g.id}`, { schemas: [GROUP_URN], id: g.id, displayName: "Put you", members: [{ value: String(bob) }, { value: carol }, { value: "424242" }] });
    expect(r.status).toBe(200);
    const replaced = await json(r);
    expect(replaced.displayName).toBe("Put you");
    expect(memberValues(replaced)).toEqual([bob, carol]);
    expect(replaced.meta.created).toBe(g.meta.created);
    const emptied = await json(await t.scim("PUT", `/Groups/${g.id}`, { schemas: [GROUP_URN], displayName: "Put you" }));
    expect(emptied.members).toEqual([]);
    expect((await json(await t.scim("GET", `/Groups/${g.id}`))).members).toEqual([]);
  });

  test("renaming onto another group's name → duplicate error; unknown id → 404", async () => {
    await createGroup("Taken");
    const g = await createGroup("Free");
    await expectScimError(await t.scim("PUT", `/Groups/${g.id}`, { displayName: "TAKEN" }), 400, "invalidValue");
    // A case-only rename of itself is fine.
    expect((await json(await t.scim("PUT", `/Groups/${g.id}`, { displayName: "FREE" }))).displayName).toBe("FREE");
    await expectScimError(await t.scim("PUT", "/Groups/nope", { displayName: "x" }), 404);
  });
});

describe("PATCH /Groups/{id}", () => {
  test("Add and Remove with value arrays; answers with the full member list", async () => {
    const g = await createGroup("Patchers", [{ value: String(alice) }]);
    const added = await patch(g.id, [{ op: "Add", path: "members", value: [{ value: String(bob) }, { value: carol }, { value: String(gone) }, { value: "31337" }] }]);
    expect(added.status).toBe(200);
    expect(memberValues(await json(added))).toEqual([alice, bob, carol]);
    const removed = await json(await patch(g.id, [{ op: "Remove", path: "members", value: [{ value: String(alice) }, { value: "31337" }] }]));
    expect(memberValues(removed)).toEqual([bob, carol]);
    // Adding someone twice is harmless.
    expect(memberValues(await json(await patch(g.id, [{ op: "add", path: "members", value: [{ value: String(bob) }] }])))).toEqual([bob, carol]);
  });

  test('remove members[value eq "id"], replace members, remove all members', async () => {
    const g = await createGroup("Okta-ish", [{ value: String(alice) }, { value: String(bob) }]);
    expect(memberValues(await json(await patch(g.id, [{ op: "remove", path: `members[value eq "${alice}"]` }])))).toEqual([bob]);
    expect(memberValues(await json(await patch(g.id, [{ op: "replace", path: "members", value: [{ value: String(carol) }, { value: String(gone) }] }])))).toEqual([carol]);
    expect(memberValues(await json(await patch(g.id, [{ op: "remove", path: "members" }])))).toEqual([]);
  });

  test("rename by path and by no-path replace (Okta), op in any case, several ops in order", async () => {
    const g = await createGroup("Old name");
    const a = await json(await patch(g.id, [{ op: "REPLACE", path: "displayName", value: "Mid name" }]));
    expect(a.displayName).toBe("Mid name");
    const b = await json(
      await patch(g.id, [
        { op: "replace", value: { id: g.id, displayName: "New name" } },
        { op: "add", path: "members", value: [{ value: String(alice) }] },
        { op: "remove", path: "members", value: [{ value: String(alice) }] },
        { op: "add", path: "members", value: [{ value: String(bob) }] },
      ]),
    );
    expect(b.displayName).toBe("New name");
    expect(memberValues(b)).toEqual([bob]);
    expect(Date.parse(b.meta.lastModified)).toBeGreaterThanOrEqual(Date.parse(g.meta.lastModified));
    expect((await json(await t.scim("GET", `/Groups/${g.id}?excludedAttributes=members`))).displayName).toBe("New name");
  });

  test("rename onto an existing name → duplicate error and nothing of the request is applied", async () => {
    await createGroup("Occupied");
    const g = await createGroup("Atomic", [{ value: String(alice) }]);
    await expectScimError(
      await patch(g.id, [
        { op: "add", path: "members", value: [{ value: String(bob) }] },
        { op: "replace", path: "displayName", value: "occupied" },
      ]),
      400,
      "invalidValue",
    );
    const after = await json(await t.scim("GET", `/Groups/${g.id}`));
    expect(after.displayName).toBe("Atomic");
    expect(memberValues(after)).toEqual([alice]);
  });

  test("anything else → 400 invalidPath / invalidValue / noTarget; bad envelope → 400; unknown group → 404", async () => {
    const g = await createGroup("Strict");
    await expectScimError(await patch(g.id, [{ op: "add", path: "owners", value: [] }]), 400, "invalidPath");
    await expectScimError(await patch(g.id, [{ op: "remove", path: 'members[display eq "x"]' }]), 400, "invalidPath");
    await expectScimError(await patch(g.id, [{ op: "copy", path: "members", value: [] }]), 400, "invalidValue");
    await expectScimError(await patch(g.id, [{ op: "add", path: "members", value: "1" }]), 400, "invalidValue");
    await expectScimError(await patch(g.id, [{ op: "replace", path: "displayName", value: "" }]), 400, "invalidValue");
    await expectScimError(await patch(g.id, [{ op: "remove" }]), 400, "noTarget");
    await expectScimError(await patch(g.id, []), 400, "invalidValue");
    await expectScimError(await t.scim("PATCH", `/Groups/${g.id}`, { Operations: [] }), 400);
    await expectScimError(await t.scim("PATCH", `/Groups/${g.id}`, { schemas: ["urn:wrong"], Operations: [{ op: "add", path: "members", value: [] }] }), 400, "invalidSyntax");
    // omitted schemas are tolerated (same rule as /Users: src/scim/protocol.ts assertPatchOpSchemas)
    expect((await t.scim("PATCH", `/Groups/${g.id}`, { Operations: [{ op: "replace", path: "displayName", value: "Strict 2" }] })).status).toBe(200);
    await expectScimError(await patch("0123456789abcdef0123456789abcdef", [{ op: "add", path: "members", value: [] }]), 404);
  });
});

describe("DELETE /Groups/{id}", () => {
  test("204, then 404; members stay as users", async () => {
    const g = await createGroup("Doomed", [{ value: String(alice) }]);
    const r = await t.scim("DELETE", `/Groups/${g.id}`);
    expect(r.status).toBe(204);
    expect(await r.text()).toBe("");
    await expectScimError(await t.scim("GET", `/Groups/${g.id}`), 404);
    await expectScimError(await t.scim("DELETE", `/Groups/${g.id}`), 404);
    expect((await t.scim("GET", `/Users/${alice}`)).status).toBe(200);
    expect(await rowsOf(t.ctx.db, sql`SELECT count(*) AS n FROM group_members WHERE group_id = ${g.id}`)).toEqual([{ n: 0 }]);
  });

  test("other methods on /Groups → 405", async () => {
    await expectScimError(await t.scim("DELETE", "/Groups"), 405);
    await expectScimError(await t.scim("POST", "/Groups/abc", {}), 405);
  });
});

describe("lifecycle: deactivation removes membership, reactivation does not restore it", () => {
  test("DELETE /Users/{id} and PATCH active false both remove the user from every group", async () => {
    const dave = await createUser("dave");
    const erin = await createUser("erin");
    const g1 = await createGroup("Life 1", [{ value: dave }, { value: erin }, { value: alice }]);
    const g2 = await createGroup("Life 2", [{ value: dave }, { value: erin }]);
    await writeTransaction(t.ctx.db, (tx) => execute(tx, sql`UPDATE groups SET updated_at = '2000-01-01T00:00:00.000Z' WHERE id = ${g1.id}`));
    expect((await t.scim("DELETE", `/Users/${dave}`)).status).toBe(204);
    const p = await t.scim("PATCH", `/Users/${erin}`, { schemas: [PATCH_URN], Operations: [{ op: "Replace", path: "active", value: "False" }] });
    expect(p.status).toBe(200);
    const after1 = await json(await t.scim("GET", `/Groups/${g1.id}`));
    expect(memberValues(after1)).toEqual([alice]);
    expect(after1.meta.lastModified).not.toBe("2000-01-01T00:00:00.000Z"); // member list changed → lastModified moved
    const untouched = await createGroup("Life 3", [{ value: alice }]);
    expect((await t.scim("DELETE", `/Users/${erin}`)).status).toBe(204); // already inactive: no-op
    expect((await json(await t.scim("GET", `/Groups/${untouched.id}`))).meta.lastModified).toBe(untouched.meta.lastModified);
    expect(memberValues(await json(await t.scim("GET", `/Groups/${g2.id}`)))).toEqual([]);

    // Reactivation: still in no group…
    await t.scim("PATCH", `/Users/${dave}`, { schemas: [PATCH_URN], Operations: [{ op: "replace", value: { active: true } }] });
    expect(memberValues(await json(await t.scim("GET", `/Groups/${g2.id}`)))).toEqual([]);
    // …until the IdP pushes the group again.
    expect(memberValues(await json(await patch(g2.id, [{ op: "add", path: "members", value: [{ value: String(dave) }, { value: String(erin) }] }])))).toEqual([dave]);
  });
});

describe("GET /Groups (list)", () => {
  const names = ["alpha", "Beta", "gamma", "Delta", "beta-2"];
  let lt: Awaited<ReturnType<typeof createScimTestApp>>;
  let ids: Record<string, string>;
  let user: number;
  beforeAll(async () => {
    lt = await createScimTestApp();
    user = Number((await json(await lt.scim("POST", "/Users", newUser("lister@example.com")))).id);
    ids = {};
    for (const n of names) ids[n] = (await json(await lt.scim("POST", "/Groups", { displayName: n, members: [{ value: String(user) }] }))).id;
  });
  afterAll(() => lt.close());
  const list = async (qs: string) => {
    const r = await lt.scim("GET", `/Groups?${qs}`);
    if (r.status !== 200) throw new Error(`${r.status} ${await r.text()}`);
    return json(r);
  };
  const filtered = async (filter: string) => (await list(`filter=${encodeURIComponent(filter)}&sortBy=displayName`)).Resources.map((g: any) => g.displayName);

  test("ListResponse with members; stable order; paging", async () => {
    const all = await list("");
    expect(all.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:ListResponse"]);
    expect(all.totalResults).toBe(5);
    expect(all.startIndex).toBe(1);
    expect(all.itemsPerPage).toBe(5);
    for (const g of all.Resources) expect(memberValues(g)).toEqual([user]);
    const page = await list("startIndex=2&count=2");
    expect(page).toMatchObject({ totalResults: 5, startIndex: 2, itemsPerPage: 2 });
    expect(page.Resources.map((g: any) => g.id)).toEqual(all.Resources.slice(1, 3).map((g: any) => g.id));
    const zero = await list("count=0");
    expect(zero).toMatchObject({ totalResults: 5, itemsPerPage: 0, Resources: [] });
    expect((await list("startIndex=0&count=1")).startIndex).toBe(1);
  });

  test("sortBy displayName (case-insensitive) ascending and descending", async () => {
    expect((await list("sortBy=displayName")).Resources.map((g: any) => g.displayName)).toEqual(["alpha", "Beta", "beta-2", "Delta", "gamma"]);
    expect((await list("sortBy=displayName&sortOrder=descending")).Resources.map((g: any) => g.displayName)).toEqual(["gamma", "Delta", "beta-2", "Beta", "alpha"]);
  });

  test("excludedAttributes=members and attributes=displayName drop the members", async () => {
    for (const g of (await list("excludedAttributes=members")).Resources) expect(g.members).toBeUndefined();
    for (const g of (await list("attributes=displayName")).Resources) {
      expect(g.members).toBeUndefined();
      expect(typeof g.displayName).toBe("string");
    }
  });

  test("filter on displayName with every operator, and/or, case-insensitive names and values", async () => {
    expect(await filtered('displayName eq "beta"')).toEqual(["Beta"]);
    expect(await filtered('DISPLAYNAME EQ "BETA"')).toEqual(["Beta"]);
    expect(await filtered('displayName ne "beta"')).toEqual(["alpha", "beta-2", "Delta", "gamma"]);
    expect(await filtered('displayName co "ET"')).toEqual(["Beta", "beta-2"]);
    expect(await filtered('displayName sw "b"')).toEqual(["Beta", "beta-2"]);
    expect(await filtered('displayName ew "A"')).toEqual(["alpha", "Beta", "Delta", "gamma"]);
    expect(await filtered("displayName pr")).toEqual(["alpha", "Beta", "beta-2", "Delta", "gamma"]);
    expect(await filtered('displayName gt "beta"')).toEqual(["beta-2", "Delta", "gamma"]);
    expect(await filtered('displayName ge "beta"')).toEqual(["Beta", "beta-2", "Delta", "gamma"]);
    expect(await filtered('displayName lt "beta"')).toEqual(["alpha"]);
    expect(await filtered('displayName le "beta"')).toEqual(["alpha", "Beta"]);
    expect(await filtered('displayName sw "b" and displayName ew "2"')).toEqual(["beta-2"]);
    expect(await filtered('(displayName eq "alpha") or displayName eq "gamma"')).toEqual(["alpha", "gamma"]);
    expect(await filtered('displayName eq "100%" or displayName co "_"')).toEqual([]);
  });

  test("filter with the Group schema URN prefix; paging past the end; unknown sortBy", async () => {
    expect(await filtered('urn:ietf:params:scim:schemas:core:2.0:Group:displayName eq "gamma"')).toEqual(["gamma"]);
    expect(await list("startIndex=50")).toMatchObject({ totalResults: 5, startIndex: 50, itemsPerPage: 0, Resources: [] });
    const created = (await list("sortBy=meta.created&sortOrder=descending")).Resources.map((g: any) => g.meta.created);
    expect(created).toEqual([...created].sort().reverse());
    await expectScimError(await lt.scim("GET", "/Groups?sortBy=members"), 400, "invalidValue");
    await expectScimError(await lt.scim("GET", "/Groups?count=abc"), 400, "invalidValue");
  });

  test("not, other attributes, malformed filters → 400 invalidFilter", async () => {
    for (const f of ['not (displayName eq "alpha")', 'id eq "x"', 'members.value eq "1"', 'externalId eq "x"', 'displayName eq', "displayName zz \"a\"", '(displayName eq "a"']) {
      const r = await lt.scim("GET", `/Groups?filter=${encodeURIComponent(f)}`);
      await expectScimError(r, 400, "invalidFilter");
    }
  });

  test("member lists of a whole page are read with one query", async () => {
    const logged = queryLoggingDb(lt);
    try {
      const service = createGroupService({ db: logged.db, config: lt.ctx.config });
      const page = await service.list({ startIndex: 1, count: 100, sortOrder: "ascending" });
      expect(page.Resources).toHaveLength(5);
      expect(logged.queries.filter((q) => /group_members/.test(q))).toHaveLength(1);
    } finally {
      await logged.close();
    }
  });
});

test("returned: \"request\" member sub-attributes (display, $ref) are echoed in the answer to a write that sent them (RFC 7643 §7)", async () => {
  const o = await createScimTestApp();
  try {
    const u = await json(await o.scim("POST", "/Users", newUser("echo@example.com", { displayName: "Echo User" })));
    const ref = `https://gatehouse.test/scim/v2/Users/${u.id}`;
    const created = await json(await o.scim("POST", "/Groups", { displayName: "Echo", members: [{ value: u.id, display: "whatever the IdP thinks" }] }));
    expect(created.members).toEqual([{ value: Number(u.id), display: "Echo User", type: "User" }]);
    const put = await json(await o.scim("PUT", `/Groups/${created.id}`, { displayName: "Echo", members: [{ value: u.id, $ref: ref }] }));
    expect(put.members).toEqual([{ value: Number(u.id), $ref: ref, type: "User" }]);
    const patched = await json(await o.scim("PATCH", `/Groups/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: u.id, display: "x", $ref: ref }] }] }));
    expect(patched.members).toEqual([{ value: Number(u.id), display: "Echo User", $ref: ref, type: "User" }]);
    const noPath = await json(await o.scim("PATCH", `/Groups/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", value: { members: [{ value: u.id, display: "x" }] } }] }));
    expect(noPath.members).toEqual([{ value: Number(u.id), display: "Echo User", type: "User" }]);
    // a write that sent none gets the default member shape, and so does a GET
    const plain = await json(await o.scim("PATCH", `/Groups/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "members", value: [{ value: u.id }] }] }));
    expect(plain.members).toEqual([{ value: Number(u.id), type: "User" }]);
    expect((await json(await o.scim("GET", `/Groups/${created.id}`))).members).toEqual([{ value: Number(u.id), type: "User" }]);
  } finally {
    o.close();
  }
});
