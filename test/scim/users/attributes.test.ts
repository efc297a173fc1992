import { afterAll, describe, expect, test } from "bun:test";
import { createScimTestApp, json, newUser, PATCH_SCHEMA, USER_SCHEMA } from "../helpers";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../../src/db/statement";

/**
 * Every attribute of the RFC 7643 User schema and the enterprise extension is stored, returned,
 * patchable (with and without a path, in both Entra dialects) and filterable.
 */
const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const t = await createScimTestApp();
afterAll(() => t.close());

/** A user carrying every writable attribute (the `manager` is set once the manager exists). */
function fullUser(userName: string, managerId?: string) {
  return {
    schemas: [USER_SCHEMA, ENTERPRISE],
    userName,
    externalId: `ext-${userName}`,
    name: { formatted: "Ms. Barbara J Jensen, III", familyName: "Jensen", givenName: "Barbara", middleName: "Jane", honorificPrefix: "Ms.", honorificSuffix: "III" },
    displayName: "Babs Jensen",
    nickName: "Babs",
    profileUrl: "https://login.example.com/bjensen",
    title: "Tour Guide",
    userType: "read-only",
    preferredLanguage: "en-US",
    locale: "en-US",
    timezone: "America/Los_Angeles",
    active: true,
    emails: [
      { value: userName, type: "work", primary: true, display: "Work mail" },
      { value: `home.${userName}`, type: "home" },
    ],
    phoneNumbers: [{ value: "555-555-5555", type: "work", primary: true }, { value: "555-555-4444", type: "mobile", display: "cell" }],
    ims: [{ value: "someaimhandle", type: "aim" }],
    photos: [{ value: "https://photos.example.com/profilephoto/72930000000Ccne/F", type: "photo" }],
    addresses: [
      { type: "work", streetAddress: "100 Universal City Plaza", locality: "Hollywood", region: "CA", postalCode: "91608", country: "US", formatted: "100 Universal City Plaza\nHollywood, CA 91608 USA", primary: true },
      { type: "home", streetAddress: "456 Hollywood Blvd", locality: "Hollywood", region: "CA", postalCode: "91608", country: "US" },
    ],
    entitlements: [{ value: "Desk phone", display: "Phone", primary: true }],
    roles: [{ value: "Tour guide", type: "staff" }],
    x509Certificates: [{ value: "MIIDQzCCAqygAwIBAgICEAAwDQYJKoZIhvcNAQEFBQAwTjELMAkGA1UEBhMCVVMx" }],
    [ENTERPRISE]: {
      employeeNumber: "701984",
      costCenter: "4130",
      organization: "Universal Studios",
      division: "Theme Park",
      department: "Tour Operations",
      ...(managerId ? { manager: { value: managerId } } : {}),
    },
  };
}

/** What a GET returns for `fullUser`: the same, plus the server's own attributes. */
function expected(body: ReturnType<typeof fullUser>, id: string, manager?: { id: string; displayName: string }) {
  const { schemas, ...rest } = body;
  const ext = { ...body[ENTERPRISE] } as Record<string, unknown>;
  if (manager) ext.manager = { value: manager.id, $ref: `https://gatehouse.test/scim/v2/Users/${manager.id}`, displayName: manager.displayName };
  return {
    ...rest,
    schemas,
    id,
    emails: body.emails.map((e) => ({ primary: false, ...e })),
    [ENTERPRISE]: ext,
    meta: expect.objectContaining({ resourceType: "User", location: `https://gatehouse.test/scim/v2/Users/${id}` }),
  };
}

describe("every User attribute round-trips", () => {
  test("POST stores and returns every attribute; GET and a list return the same; password is never returned", async () => {
    const boss = await json(await t.scim("POST", "/Users", newUser("boss@example.com", { displayName: "The Boss" })));
    const body = { ...fullUser("bjensen@example.com", boss.id), password: "t1meMa$heen" };
    const r = await t.scim("POST", "/Users", body);
    expect(r.status).toBe(201);
    const created = await json(r);
    const { password, ...withoutPassword } = body;
    expect(created).toEqual(expected(withoutPassword, created.id, { id: boss.id, displayName: "The Boss" }));
    expect(await json(await t.scim("GET", `/Users/${created.id}`))).toEqual(created);
    const listed = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent(`id eq "${created.id}"`)}`));
    expect(listed.Resources).toEqual([created]);
    expect(JSON.stringify(created)).not.toContain("t1meMa$heen");
    const [stored] = await rowsOf(t.ctx.db, sql`SELECT * FROM users WHERE id = ${Number(created.id)}`);
    expect(JSON.stringify(stored)).not.toContain("t1meMa$heen");
  });

  test("PUT replaces every attribute; attributes left out are cleared", async () => {
    const created = await json(await t.scim("POST", "/Users", newUser("put-all@example.com")));
    const body = fullUser("put-all@example.com");
    const put = await json(await t.scim("PUT", `/Users/${created.id}`, body));
    expect(put).toEqual(expected(body, created.id));
    const cleared = await json(await t.scim("PUT", `/Users/${created.id}`, newUser("put-all@example.com")));
    for (const key of ["nickName", "phoneNumbers", "addresses", "roles", ENTERPRISE]) expect(cleared[key]).toBeUndefined();
    expect(cleared.name).toEqual({ givenName: "Given", familyName: "Family" });
    expect(cleared.schemas).toEqual([USER_SCHEMA]);
  });

  test("PATCH with a path for every attribute (Entra's default dialect), then remove each", async () => {
    const boss = await json(await t.scim("POST", "/Users", newUser("boss2@example.com", { displayName: "Boss Two" })));
    const created = await json(await t.scim("POST", "/Users", newUser("patch-all@example.com", { emails: [{ value: "patch-all@example.com", type: "work", primary: true }] })));
    const ops = [
      ["name.middleName", "Jane"], ["name.honorificPrefix", "Ms."], ["name.honorificSuffix", "III"], ["nickName", "Babs"],
      ["profileUrl", "https://login.example.com/bjensen"], ["preferredLanguage", "en-US"], ["locale", "en-US"], ["timezone", "America/Los_Angeles"],
      ['phoneNumbers[type eq "work"].value', "555-555-5555"], ['phoneNumbers[type eq "mobile"].value', "555-555-4444"],
      ['ims[type eq "aim"].value', "someaimhandle"], ['photos[type eq "photo"].value', "https://photos.example.com/p"],
      ['addresses[type eq "work"].streetAddress', "100 Universal City Plaza"], ['addresses[type eq "work"].locality', "Hollywood"],
      ['addresses[type eq "work"].region', "CA"], ['addresses[type eq "work"].postalCode', "91608"], ['addresses[type eq "work"].country', "US"],
      ['addresses[type eq "work"].formatted', "100 Universal City Plaza, Hollywood"], ["entitlements", [{ value: "Desk phone" }]], ["roles", [{ value: "Tour guide", primary: "True" }]],
      ["x509Certificates", [{ value: "MIIDQzCC" }]], ['emails[type eq "work"].display', "Work mail"],
      [`${ENTERPRISE}:employeeNumber`, "701984"], [`${ENTERPRISE}:costCenter`, "4130"], [`${ENTERPRISE}:organization`, "Universal Studios"],
      [`${ENTERPRISE}:division`, "Theme Park"], [`${ENTERPRISE}:department`, "Tour Operations"], [`${ENTERPRISE}:manager`, boss.id],
    ] as const;
    const r = await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: ops.map(([path, value]) => ({ op: "Add", path, value })) });
    if (r.status !== 200) throw new Error(await r.text());
    const u = await json(r);
    expect(u.name).toEqual({ givenName: "Given", familyName: "Family", middleName: "Jane", honorificPrefix: "Ms.", honorificSuffix: "III" });
    expect(u).toMatchObject({ nickName: "Babs", profileUrl: "https://login.example.com/bjensen", preferredLanguage: "en-US", locale: "en-US", timezone: "America/Los_Angeles" });
    expect(u.phoneNumbers).toEqual([{ type: "work", value: "555-555-5555" }, { type: "mobile", value: "555-555-4444" }]);
    expect(u.ims).toEqual([{ type: "aim", value: "someaimhandle" }]);
    expect(u.photos).toEqual([{ type: "photo", value: "https://photos.example.com/p" }]);
    expect(u.addresses).toEqual([{ type: "work", streetAddress: "100 Universal City Plaza", locality: "Hollywood", region: "CA", postalCode: "91608", country: "US", formatted: "100 Universal City Plaza, Hollywood" }]);
    expect(u.entitlements).toEqual([{ value: "Desk phone" }]);
    expect(u.roles).toEqual([{ value: "Tour guide", primary: true }]);
    expect(u.x509Certificates).toEqual([{ value: "MIIDQzCC" }]);
    expect(u.emails).toEqual([{ value: "patch-all@example.com", type: "work", primary: true, display: "Work mail" }]);
    expect(u.schemas).toEqual([USER_SCHEMA, ENTERPRISE]);
    expect(u[ENTERPRISE]).toEqual({
      employeeNumber: "701984", costCenter: "4130", organization: "Universal Studios", division: "Theme Park", department: "Tour Operations",
      manager: { value: boss.id, $ref: `https://gatehouse.test/scim/v2/Users/${boss.id}`, displayName: "Boss Two" },
    });
    expect(await json(await t.scim("GET", `/Users/${created.id}`))).toEqual(u);

    // a sub-attribute of one entry; the manager as an object (RFC) as well as an id (Entra)
    const more = await json(await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [
      { op: "Replace", path: 'phoneNumbers[type eq "work"].primary', value: "True" },
      { op: "Replace", path: `${ENTERPRISE}:manager`, value: { value: created.id } },
    ] }));
    expect(more.phoneNumbers[0]).toEqual({ type: "work", value: "555-555-5555", primary: true });
    expect(more[ENTERPRISE].manager.value).toBe(created.id);

    const removed = await json(await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [
      ...["name.middleName", "name.honorificPrefix", "name.honorificSuffix", "nickName", "profileUrl", "preferredLanguage", "locale", "timezone",
        'phoneNumbers[type eq "mobile"]', "ims", "photos", "addresses", "entitlements", "roles", "x509Certificates",
        `${ENTERPRISE}:employeeNumber`, `${ENTERPRISE}:costCenter`, `${ENTERPRISE}:organization`, `${ENTERPRISE}:division`, `${ENTERPRISE}:department`,
        `${ENTERPRISE}:manager`].map((path) => ({ op: "Remove", path })),
    ] }));
    expect(removed.name).toEqual({ givenName: "Given", familyName: "Family" });
    expect(removed.phoneNumbers).toEqual([{ type: "work", value: "555-555-5555", primary: true }]);
    for (const key of ["nickName", "profileUrl", "preferredLanguage", "locale", "timezone", "ims", "photos", "addresses", "entitlements", "roles", "x509Certificates", ENTERPRISE])
      expect(removed[key] === undefined ? key : `${key} still ${JSON.stringify(removed[key])}`).toBe(key);
    expect(removed.schemas).toEqual([USER_SCHEMA]);
  });

  test("PATCH without a path (Entra aadOptscim062020, Okta): URN-prefixed, dotted and value-filter keys, and the extension object", async () => {
    const created = await json(await t.scim("POST", "/Users", newUser("nopath@example.com")));
    const r = await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [
      { op: "add", value: { nickName: "Nick", "name.middleName": "M", 'phoneNumbers[type eq "work"].value': "+1 206 555 0100", [`${ENTERPRISE}:department`]: "QA" } },
      { op: "replace", value: { [ENTERPRISE]: { employeeNumber: "42", manager: { value: "1" } }, addresses: [{ type: "work", locality: "Redmond" }], "urn:ietf:params:scim:schemas:core:2.0:User:timezone": "Europe/Berlin" } },
    ] });
    expect(r.status).toBe(200);
    const u = await json(r);
    expect(u).toMatchObject({ nickName: "Nick", timezone: "Europe/Berlin", name: { middleName: "M" }, phoneNumbers: [{ type: "work", value: "+1 206 555 0100" }], addresses: [{ type: "work", locality: "Redmond" }] });
    expect(u[ENTERPRISE]).toMatchObject({ department: "QA", employeeNumber: "42", manager: { value: "1" } });
  });

  test("PATCH with a path naming the whole enterprise extension (RFC 7644 §3.5.2, scim2-tester): add, replace, remove", async () => {
    const created = await json(await t.scim("POST", "/Users", newUser("extpath@example.com")));
    const patch = (op: string, value?: unknown) => t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op, path: ENTERPRISE, value }] });
    const added = await patch("add", { department: "QA", employeeNumber: "7" });
    expect(added.status).toBe(200);
    expect((await json(added))[ENTERPRISE]).toMatchObject({ department: "QA", employeeNumber: "7" });
    // replace sets what it names and leaves the other sub-attributes (§3.5.2.3)
    const replaced = await json(await patch("replace", { department: "Ops", costCenter: "C1" }));
    expect(replaced[ENTERPRISE]).toMatchObject({ department: "Ops", costCenter: "C1", employeeNumber: "7" });
    const removed = await json(await patch("Remove"));
    expect(removed[ENTERPRISE] ?? {}).toEqual({});
    expect((await json(await t.scim("GET", `/Users/${created.id}`)))[ENTERPRISE] ?? {}).toEqual({});
    // the path in another case is the same path; a value that is not an object, or an unknown attribute in it, is 400
    expect((await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: ENTERPRISE.toUpperCase(), value: { division: "D" } }] })).status).toBe(200);
    expect((await json(await patch("add", "QA"))).scimType).toBe("invalidValue");
    expect((await json(await patch("add", { nope: 1 }))).scimType).toBe("invalidPath");
  });

  test("wrong types and read-only attributes", async () => {
    const created = await json(await t.scim("POST", "/Users", newUser("types@example.com")));
    for (const [path, value] of [["nickName", 5], ["phoneNumbers", "x"], ['phoneNumbers[type eq "work"].primary', "maybe"], [`${ENTERPRISE}:department`, { a: 1 }]] as const) {
      const r = await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path, value }] });
      expect(r.status === 400 ? path : `${path}: ${r.status}`).toBe(path);
      expect((await json(r)).scimType).toBe("invalidValue");
    }
    const post = await t.scim("POST", "/Users", newUser("types2@example.com", { phoneNumbers: [{ value: 5 }] }));
    expect(post.status).toBe(400);
    // groups is read-only: echoed back in a PUT it is ignored, named in a PATCH path it is 400 mutability
    expect((await t.scim("PUT", `/Users/${created.id}`, newUser("types@example.com", { groups: [{ value: "g" }] }))).status).toBe(200);
    const r = await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: "groups", value: [{ value: "g" }] }] });
    expect(r.status).toBe(400);
    expect((await json(r)).scimType).toBe("mutability");
  });

  test("groups: returned on request, from the teams' member lists", async () => {
    const u = await json(await t.scim("POST", "/Users", newUser("member@example.com")));
    const g = await json(await t.scim("POST", "/Groups", { displayName: "Tour Guides", members: [{ value: u.id }] }));
    expect((await json(await t.scim("GET", `/Users/${u.id}`))).groups).toBeUndefined();
    const withGroups = await json(await t.scim("GET", `/Users/${u.id}?attributes=userName,groups`));
    expect(withGroups.groups).toEqual([{ value: g.id, $ref: `https://gatehouse.test/scim/v2/Groups/${g.id}`, display: "Tour Guides", type: "direct" }]);
    const listed = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent(`groups.value eq "${g.id}"`)}&attributes=groups`));
    expect(listed.Resources.map((x: any) => x.id)).toEqual([u.id]);
    expect(listed.Resources[0].groups[0].display).toBe("Tour Guides");
  });
});

describe("every User attribute filters and sorts", () => {
  test("eq on each attribute finds exactly the user carrying it", async () => {
    const o = await createScimTestApp();
    try {
      const a = await json(await o.scim("POST", "/Users", fullUser("a.filter@example.com")));
      const b = await json(await o.scim("POST", "/Users", newUser("b.filter@example.com")));
      await o.scim("PATCH", `/Users/${a.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: `${ENTERPRISE}:manager`, value: b.id }] });
      const filters = [
        'name.middleName eq "jane"', 'name.honorificPrefix eq "Ms."', 'name.honorificSuffix eq "III"', 'nickName eq "babs"', 'profileUrl sw "https://login."',
        'preferredLanguage eq "en-US"', 'locale eq "en-us"', 'timezone ew "angeles"', 'emails.display eq "Work mail"', 'emails[type eq "home"]',
        'phoneNumbers eq "555-555-5555"', 'phoneNumbers[type eq "mobile" and value co "4444"]', 'phoneNumbers.display eq "cell"', "phoneNumbers.primary eq true",
        'ims.value eq "someaimhandle"', 'photos.type eq "photo"', 'addresses[type eq "work" and locality eq "Hollywood"]', 'addresses.postalCode eq "91608"',
        'addresses[country eq "US" and primary eq true]', 'entitlements.value eq "Desk phone"', 'roles.type eq "staff"', "x509Certificates.value pr",
        `${ENTERPRISE}:employeeNumber eq "701984"`, `${ENTERPRISE}:costCenter eq "4130"`, `${ENTERPRISE}:organization co "universal"`,
        `${ENTERPRISE}:division eq "Theme Park"`, `${ENTERPRISE}:department eq "Tour Operations"`, `${ENTERPRISE}:manager.value eq "${b.id}"`,
        `${ENTERPRISE}:manager eq "${b.id}"`, `${ENTERPRISE}:manager.displayName eq "Given Family"`, 'userType eq "read-only"', 'title eq "Tour Guide"',
      ];
      for (const f of filters) {
        const r = await json(await o.scim("GET", `/Users?filter=${encodeURIComponent(f)}`));
        expect(r.Resources ? `${f} → ${r.Resources.map((x: any) => x.id)}` : `${f} → ${JSON.stringify(r)}`).toBe(`${f} → ${a.id}`);
        const negated = await json(await o.scim("GET", `/Users?filter=${encodeURIComponent(`not (${f})`)}`));
        expect(`not (${f}) → ${negated.Resources.map((x: any) => x.id)}`).toBe(`not (${f}) → ${b.id}`);
      }
      // sorting on profile attributes: users without the value sort last in both orders
      for (const order of ["ascending", "descending"]) {
        const sorted = await json(await o.scim("GET", `/Users?sortBy=${encodeURIComponent(`${ENTERPRISE}:department`)}&sortOrder=${order}`));
        expect(sorted.Resources.map((x: any) => x.id)).toEqual([a.id, b.id]);
      }
    } finally {
      o.close();
    }
  });
});

test("every attribute a full User carries is declared in /Schemas, with the right multiValued flag and sub-attributes", async () => {
  const boss = await json(await t.scim("POST", "/Users", newUser("boss3@example.com")));
  const created = await json(await t.scim("POST", "/Users", fullUser("declared@example.com", boss.id)));
  await t.scim("POST", "/Groups", { displayName: "Declared", members: [{ value: created.id }] });
  const user = await json(await t.scim("GET", `/Users/${created.id}?attributes=${encodeURIComponent(`userName,groups,${Object.keys(created).join(",")}`)}`));
  expect(user.groups).toHaveLength(1);
  const check = (resource: Record<string, any>, schema: any) => {
    const declared = new Map<string, any>(schema.attributes.map((a: any) => [a.name, a]));
    for (const key of Object.keys(resource).filter((k) => !["schemas", "id", "meta", ENTERPRISE].includes(k))) {
      const a = declared.get(key);
      expect(a ? key : `undeclared ${key}`).toBe(key);
      expect(Array.isArray(resource[key])).toBe(a.multiValued);
      if (a.type === "complex") {
        const subs = new Set(a.subAttributes.map((s: any) => s.name));
        for (const v of Array.isArray(resource[key]) ? resource[key] : [resource[key]]) for (const sub of Object.keys(v)) expect(subs.has(sub) ? sub : `undeclared ${key}.${sub}`).toBe(sub);
      }
    }
  };
  check(user, await json(await t.scim("GET", `/Schemas/${USER_SCHEMA}`)));
  check(user[ENTERPRISE], await json(await t.scim("GET", `/Schemas/${ENTERPRISE}`)));
  expect(Object.keys(user[ENTERPRISE])).toHaveLength(6);
});
