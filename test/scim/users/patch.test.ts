import { afterAll, describe, expect, test } from "bun:test";
import { applyUserPatch } from "../../../src/scim/users/patch";
import type { UserState } from "../../../src/directory/users";
import { ScimError } from "../../../src/scim/errors";
import { createScimTestApp, expectScimError, json, newUser, PATCH_SCHEMA } from "../helpers";

const base: UserState = {
  userName: "u@example.com", externalId: null, givenName: "Given", familyName: "Family", formattedName: null, displayNameGiven: null,
  title: null, userType: "regular", active: true, emails: [{ value: "u@example.com", type: "work", primary: true }], profile: {},
};
const patch = (...ops: unknown[]) => applyUserPatch(base, ops as never);
const fails = (scimType: string, ...ops: unknown[]) => {
  try {
    patch(...ops);
  } catch (e) {
    expect(e).toBeInstanceOf(ScimError);
    expect((e as ScimError).scimType).toBe(scimType as never);
    return;
  }
  throw new Error("patch applied but should fail");
};

describe("applyUserPatch (pure)", () => {
  test("op in any case; add on single-valued = replace", () => {
    for (const op of ["replace", "Replace", "REPLACE", "add", "Add"]) expect(patch({ op, path: "title", value: "CTO" }).title).toBe("CTO");
    expect(patch({ op: "Remove", path: "title" }).title).toBeNull();
    fails("invalidSyntax", { op: "frobnicate", path: "title", value: "x" });
    fails("invalidSyntax", { path: "title", value: "x" });
  });

  test("active as boolean or \"True\"/\"False\"", () => {
    expect(patch({ op: "Replace", path: "active", value: "False" }).active).toBe(false);
    expect(patch({ op: "replace", path: "active", value: false }).active).toBe(false);
    expect(patch({ op: "replace", path: "ACTIVE", value: "true" }).active).toBe(true);
    fails("invalidValue", { op: "replace", path: "active", value: "nope" });
    fails("invalidValue", { op: "replace", path: "active", value: 0 });
  });

  test("the spec's paths and the extra ones IdPs send", () => {
    const s = patch(
      { op: "replace", path: "name.givenName", value: "Ada" },
      { op: "replace", path: "userType", value: "read-only" },
      { op: "replace", path: "userName", value: "ada@example.com" },
      { op: "replace", path: "externalId", value: "x1" },
      { op: "replace", path: "displayName", value: "Ada L." },
      { op: "replace", path: "title", value: "Countess" },
      { op: "replace", path: "name.familyName", value: "Lovelace" },
      { op: "replace", path: "name.formatted", value: "Ada Lovelace" },
    );
    expect(s).toMatchObject({ givenName: "Ada", familyName: "Lovelace", formattedName: "Ada Lovelace", userType: "read-only", userName: "ada@example.com", externalId: "x1", displayNameGiven: "Ada L.", title: "Countess" });
    expect(patch({ op: "replace", path: "urn:ietf:params:scim:schemas:core:2.0:User:name.givenName", value: "Urn" }).givenName).toBe("Urn");
  });

  test("no path: value object with plain, dotted, URN-prefixed and value-filter keys", () => {
    const s = patch({
      op: "replace",
      value: {
        active: false,
        "name.givenName": "Dot",
        "urn:ietf:params:scim:schemas:core:2.0:User:title": "UrnTitle",
        'emails[type eq "work"].value': "new@example.com",
        "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:employeeNumber": "42",
        name: { familyName: "Obj" },
        unknownThing: 1,
      },
    });
    expect(s).toMatchObject({ active: false, givenName: "Dot", familyName: "Obj", title: "UrnTitle", emails: [{ value: "new@example.com", type: "work", primary: true }] });
    fails("noTarget", { op: "remove" });
    fails("invalidValue", { op: "replace", value: "x" });
  });

  test("emails[type eq \"work\"].value updates the match or creates the entry", () => {
    expect(patch({ op: "replace", path: 'emails[type eq "work"].value', value: "w@example.com" }).emails).toEqual([{ value: "w@example.com", type: "work", primary: true }]);
    const created = applyUserPatch({ ...base, emails: [] }, [{ op: "Add", path: 'emails[type eq "work"].value', value: "w@example.com" }]);
    expect(created.emails).toEqual([{ value: "w@example.com", type: "work", primary: false }]);
    const home = patch({ op: "add", path: 'emails[type eq "home"].value', value: "h@example.com" });
    expect(home.emails).toHaveLength(2);
    expect(patch({ op: "remove", path: 'emails[type eq "work"]' }).emails).toEqual([]);
    expect(patch({ op: "remove", path: "emails" }).emails).toEqual([]);
    expect(patch({ op: "add", path: "emails", value: [{ value: "b@example.com", type: "home" }] }).emails).toHaveLength(2);
    expect(patch({ op: "replace", path: "emails", value: [{ value: "b@example.com", type: "home" }] }).emails).toEqual([{ value: "b@example.com", type: "home", primary: false }]);
    expect(patch({ op: "replace", path: 'emails[value eq "U@EXAMPLE.COM"].primary', value: false }).emails[0]!.primary).toBe(false);
    fails("noTarget", { op: "replace", path: 'emails[value co "zzz"].type', value: "work" });
  });

  test("unknown paths → invalidPath; read-only → mutability; every RFC attribute is stored; password is discarded", () => {
    fails("invalidPath", { op: "replace", path: "shoeSize", value: "42" });
    fails("invalidPath", { op: "replace", path: "name.nickname", value: "x" });
    fails("invalidPath", { op: "replace", path: 'emails[type eq "work"].colour', value: "x" });
    fails("invalidPath", { op: "replace", path: "emails[type eq", value: "x" });
    fails("invalidPath", { op: "replace", path: "urn:example:custom:User:x", value: "x" });
    fails("mutability", { op: "replace", path: "id", value: "7" });
    fails("mutability", { op: "add", path: "groups", value: [{ value: "g1" }] });
    fails("mutability", { op: "replace", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:manager.displayName", value: "Boss" });
    fails("invalidPath", { op: "replace", path: "nickName.first", value: "x" });
    fails("invalidPath", { op: "replace", path: 'title[value eq "x"]', value: "x" });
    expect(patch({ op: "Add", path: 'phoneNumbers[type eq "work"].value', value: "+1 555" }).profile).toEqual({ phoneNumbers: [{ type: "work", value: "+1 555" }] });
    expect(patch({ op: "Add", path: "preferredLanguage", value: "en-US" }).profile).toEqual({ preferredLanguage: "en-US" });
    expect(patch({ op: "Add", path: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department", value: "QA" }).profile).toEqual({
      "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "QA" },
    });
    expect(patch({ op: "replace", path: "password", value: "hunter2" })).toEqual(base);
  });

  test("wrong value types → invalidValue; removing a required attribute → mutability; removing active deactivates", () => {
    fails("invalidValue", { op: "replace", path: "title", value: 5 });
    fails("invalidValue", { op: "replace", path: "name", value: "x" });
    fails("invalidValue", { op: "replace", path: "userType", value: "collaborator" });
    for (const path of ["userName", "name", "name.givenName", "NAME.familyName", "urn:ietf:params:scim:schemas:core:2.0:User:userName"]) fails("mutability", { op: "remove", path });
    expect(patch({ op: "remove", path: "name.formatted" }).formattedName).toBeNull();
    // RFC 7644 §3.5.2.2: the removed attribute is unassigned, and a user without `active` is not active
    expect(patch({ op: "remove", path: "active" }).active).toBe(false);
  });
});

const t = await createScimTestApp();
describe("PATCH /Users/{id}", () => {
  afterAll(() => t.close());

  test("updates only what is named and returns the resource", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("p1@example.com", { title: "Dev" })));
    const r = await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "Replace", path: "name.givenName", value: "Pat" }] });
    expect(r.status).toBe(200);
    const v = await json(r);
    expect(v).toMatchObject({ name: { givenName: "Pat", familyName: "Family" }, title: "Dev", displayName: "Pat Family" });
    expect(v.meta.lastModified >= u.meta.lastModified).toBe(true);
  });

  test("several operations are atomic: one fails → nothing changes, 400", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("p2@example.com")));
    const r = await t.scim("PATCH", `/Users/${u.id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: "replace", path: "title", value: "Changed" }, { op: "replace", path: "active", value: false }, { op: "replace", path: "nope", value: 1 }],
    });
    await expectScimError(r, 400, "invalidPath");
    const after = await json(await t.scim("GET", `/Users/${u.id}`));
    expect(after).toEqual(u);
    // a rule failing after the operations applied (name too long) also changes nothing
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "title", value: "x" }, { op: "replace", path: "name.familyName", value: "f".repeat(61) }] }), 400, "invalidValue");
    expect(await json(await t.scim("GET", `/Users/${u.id}`))).toEqual(u);
  });

  test("userName rules apply: e-mail, uniqueness", async () => {
    const a = await json(await t.scim("POST", "/Users", newUser("p3@example.com")));
    await t.scim("POST", "/Users", newUser("p4@example.com"));
    await expectScimError(await t.scim("PATCH", `/Users/${a.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "userName", value: "nope" }] }), 400, "invalidValue");
    await expectScimError(await t.scim("PATCH", `/Users/${a.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "userName", value: "P4@example.com" }] }), 400, "invalidValue");
  });

  test("malformed PATCH bodies → 400", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("p5@example.com")));
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA] }), 400);
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [] }), 400);
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: "replace" }), 400);
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: 1 }] }), 400);
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, undefined), 400);
    // lower-case "operations" key is accepted (attribute names are case-insensitive)
    expect((await t.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], operations: [{ op: "replace", path: "title", value: "ok" }] })).status).toBe(200);
  });

  test("schemas naming something other than PatchOp → 400 invalidSyntax; omitted schemas are tolerated", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("p6@example.com")));
    await expectScimError(await t.scim("PATCH", `/Users/${u.id}`, { schemas: ["urn:wrong"], Operations: [{ op: "replace", path: "title", value: "x" }] }), 400, "invalidSyntax");
    expect((await json(await t.scim("GET", `/Users/${u.id}`))).title).toBeUndefined();
    const r = await t.scim("PATCH", `/Users/${u.id}`, { Operations: [{ op: "replace", path: "title", value: "Lenient" }] });
    expect(r.status).toBe(200);
    expect((await json(r)).title).toBe("Lenient");
  });
});

test("PATCH remove active deactivates over HTTP: inactive, out of every group", async () => {
  const o = await createScimTestApp();
  try {
    const u = await json(await o.scim("POST", "/Users", newUser("remove-active@example.com")));
    const g = await json(await o.scim("POST", "/Groups", { displayName: "Team", members: [{ value: u.id }] }));
    const r = await o.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: "active" }] });
    expect(r.status).toBe(200);
    expect((await json(r)).active).toBe(false);
    expect((await json(await o.scim("GET", `/Groups/${g.id}`))).members).toEqual([]);
    await expectScimError(await o.scim("PATCH", `/Users/${u.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: "userName" }] }), 400, "mutability");
    await expectScimError(await o.scim("PATCH", `/Groups/${g.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: "displayName" }] }), 400, "mutability");
  } finally {
    o.close();
  }
});
