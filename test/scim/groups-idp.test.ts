/**
 * Group request sequences as Microsoft Entra ID and Okta send them (bodies and query strings
 * reproduced from their provisioning traffic and documentation, ids replaced by ours).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createScimTestApp, json, newUser } from "./helpers";

const GROUP_URN = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_URN = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

const t = await createScimTestApp();
afterAll(() => t.close());

const ids: string[] = [];
beforeAll(async () => {
  for (const n of ["ann", "ben", "cat"]) ids.push((await json(await t.scim("POST", "/Users", newUser(`${n}@idp.example`)))).id);
});

describe("Microsoft Entra ID", () => {
  test("create, look up by displayName with excludedAttributes=members, Add/Remove member arrays, rename, delete", async () => {
    // 1. Does the group exist? (Entra always excludes members when querying groups.)
    let r = await t.scim("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Engineering"')}`);
    expect(r.status).toBe(200);
    expect(await json(r)).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 0, itemsPerPage: 0, startIndex: 1, Resources: [] });

    // 2. Create it, with Entra's extra schema URN, externalId and a meta stub.
    r = await t.scim("POST", "/Groups", {
      schemas: [GROUP_URN, "http://schemas.microsoft.com/2006/11/ResourceManagement/ADSCIM/2.0/Group"],
      externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
      displayName: "Engineering",
      meta: { resourceType: "Group" },
    });
    expect(r.status).toBe(201);
    const created = await json(r);
    expect(created).toMatchObject({ displayName: "Engineering", externalId: "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159", members: [] });

    // 3. Found by filter, members excluded.
    r = await t.scim("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Engineering"')}`);
    const found = await json(r);
    expect(found.totalResults).toBe(1);
    expect(found.Resources[0].id).toBe(created.id);
    expect(found.Resources[0].members).toBeUndefined();

    // 4. Get by id, members excluded.
    r = await t.scim("GET", `/Groups/${created.id}?excludedAttributes=members`);
    expect(r.status).toBe(200);
    expect((await json(r)).members).toBeUndefined();

    // 5. Members are added with a value array ($ref null, value a string).
    r = await t.scim("PATCH", `/Groups/${created.id}`, {
      schemas: [PATCH_URN],
      Operations: [{ op: "Add", path: "members", value: [{ $ref: null, value: ids[0] }, { $ref: null, value: ids[1] }] }],
    });
    expect(r.status).toBe(200);
    expect((await json(r)).members.map((m: any) => m.value)).toEqual([Number(ids[0]), Number(ids[1])]);

    // 6. …and removed the same way.
    r = await t.scim("PATCH", `/Groups/${created.id}`, {
      schemas: [PATCH_URN],
      Operations: [{ op: "Remove", path: "members", value: [{ $ref: null, value: ids[0] }] }],
    });
    expect((await json(r)).members.map((m: any) => m.value)).toEqual([Number(ids[1])]);

    // 7. Rename with a path.
    r = await t.scim("PATCH", `/Groups/${created.id}`, { schemas: [PATCH_URN], Operations: [{ op: "Replace", path: "displayName", value: "Engineering (all)" }] });
    expect((await json(r)).displayName).toBe("Engineering (all)");

    // 8. Delete.
    expect((await t.scim("DELETE", `/Groups/${created.id}`)).status).toBe(204);
    r = await t.scim("GET", `/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "Engineering (all)"')}`);
    expect((await json(r)).totalResults).toBe(0);
  });
});

describe("Okta", () => {
  test("push an empty group, PUT members, replace members, rename by no-path replace, members[value eq] remove", async () => {
    // 1. Lookup before push.
    let r = await t.scim("GET", `/Groups?filter=${encodeURIComponent('displayName eq "Test SCIMv2"')}&startIndex=1&count=100`);
    expect((await json(r)).totalResults).toBe(0);

    // 2. Push of an empty group.
    r = await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: "Test SCIMv2", members: [] });
    expect(r.status).toBe(201);
    const group = await json(r);
    expect(group.members).toEqual([]);
    expect(r.headers.get("location")).toBe(group.meta.location);

    // 3. Okta reads it back, then PUTs the full group with members (value + display).
    r = await t.scim("GET", `/Groups/${group.id}`);
    expect(r.status).toBe(200);
    r = await t.scim("PUT", `/Groups/${group.id}`, {
      schemas: [GROUP_URN],
      id: group.id,
      displayName: "Test SCIMv2",
      members: [{ value: ids[0], display: "ann@idp.example" }, { value: ids[1], display: "ben@idp.example" }],
    });
    expect(r.status).toBe(200);
    expect((await json(r)).members.map((m: any) => m.value)).toEqual([Number(ids[0]), Number(ids[1])]);

    // 4. Group push with "replace members".
    r = await t.scim("PATCH", `/Groups/${group.id}`, {
      schemas: [PATCH_URN],
      Operations: [{ op: "replace", path: "members", value: [{ value: ids[1], display: "ben@idp.example" }, { value: ids[2], display: "cat@idp.example" }] }],
    });
    expect((await json(r)).members.map((m: any) => m.value)).toEqual([Number(ids[1]), Number(ids[2])]);

    // 5. Rename: no path, value carries id and displayName.
    r = await t.scim("PATCH", `/Groups/${group.id}`, {
      schemas: [PATCH_URN],
      Operations: [{ op: "replace", value: { id: group.id, displayName: "Test SCIMv2 renamed" } }],
    });
    expect(r.status).toBe(200);
    const renamed = await json(r);
    expect(renamed.displayName).toBe("Test SCIMv2 renamed");
    expect(renamed.members).toHaveLength(2);

    // 6. Unassign one member by filter path.
    r = await t.scim("PATCH", `/Groups/${group.id}`, {
      schemas: [PATCH_URN],
      Operations: [{ op: "remove", path: `members[value eq "${ids[1]}"]` }],
    });
    expect((await json(r)).members.map((m: any) => m.value)).toEqual([Number(ids[2])]);

    // 7. Add one back (Okta's add carries display).
    r = await t.scim("PATCH", `/Groups/${group.id}`, {
      schemas: [PATCH_URN],
      Operations: [{ op: "add", path: "members", value: [{ value: ids[0], display: "ann@idp.example" }] }],
    });
    expect((await json(r)).members.map((m: any) => m.value)).toEqual([Number(ids[0]), Number(ids[2])]);

    // 8. Delete.
    expect((await t.scim("DELETE", `/Groups/${group.id}`)).status).toBe(204);
  });
});
