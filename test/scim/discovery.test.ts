import { afterAll, describe, expect, test } from "bun:test";
import { createScimTestApp, expectScimError, json, newUser } from "./helpers";

const BASE = "https://gatehouse.test/scim/v2";
const USER_URN = "urn:ietf:params:scim:schemas:core:2.0:User";
const GROUP_URN = "urn:ietf:params:scim:schemas:core:2.0:Group";
const ENTERPRISE_URN = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const SPC_URN = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
const RESOURCE_TYPE_URN = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
const SCHEMA_URN = "urn:ietf:params:scim:schemas:core:2.0:Schema";
const LIST = "urn:ietf:params:scim:api:messages:2.0:ListResponse";

const t = await createScimTestApp();
afterAll(() => t.close());

async function ok(path: string): Promise<any> {
  const r = await t.scim("GET", path);
  expect(r.status).toBe(200);
  expect(r.headers.get("content-type")).toStartWith("application/scim+json");
  return json(r);
}

describe("/ServiceProviderConfig", () => {
  test("tells the truth about what this server does", async () => {
    const c = await ok("/ServiceProviderConfig");
    expect(c.schemas).toEqual(["urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig"]);
    expect(c.patch).toEqual({ supported: true });
    expect(c.bulk).toEqual({ supported: false, maxOperations: 0, maxPayloadSize: 800000 });
    expect(c.filter).toEqual({ supported: true, maxResults: 1000 });
    expect(c.changePassword).toEqual({ supported: false });
    expect(c.sort).toEqual({ supported: true });
    expect(c.etag).toEqual({ supported: false });
    expect(c.authenticationSchemes).toHaveLength(1);
    expect(c.authenticationSchemes[0]).toMatchObject({ type: "oauthbearertoken", primary: true });
    expect(typeof c.authenticationSchemes[0].name).toBe("string");
    expect(typeof c.authenticationSchemes[0].description).toBe("string");
    expect(c.meta).toMatchObject({ resourceType: "ServiceProviderConfig", location: `${BASE}/ServiceProviderConfig` });
  });

  test("announced maxResults is the real page cap", async () => {
    // 3 users exist at most here, so we check that a huge count is accepted and clamped, not refused.
    const r = await json(await t.scim("GET", "/Groups?count=100000"));
    expect(r.schemas).toEqual([LIST]);
    expect(r.itemsPerPage).toBeLessThanOrEqual(1000);
  });
});

describe("/ResourceTypes", () => {
  test("list is a ListResponse of User and Group", async () => {
    const l = await ok("/ResourceTypes");
    expect(l.schemas).toEqual([LIST]);
    expect(l.totalResults).toBe(2);
    expect(l.itemsPerPage).toBe(2);
    expect(l.startIndex).toBe(1);
    expect(l.Resources.map((r: any) => r.id)).toEqual(["User", "Group"]);
  });

  test("User and Group by id, with endpoint, schema and meta.location", async () => {
    const u = await ok("/ResourceTypes/User");
    expect(u).toMatchObject({
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:ResourceType"],
      id: "User",
      name: "User",
      endpoint: "/Users",
      schema: USER_URN,
      schemaExtensions: [{ schema: ENTERPRISE_URN, required: false }],
      meta: { resourceType: "ResourceType", location: `${BASE}/ResourceTypes/User` },
    });
    const g = await ok("/ResourceTypes/Group");
    expect(g).toMatchObject({ id: "Group", endpoint: "/Groups", schema: GROUP_URN, schemaExtensions: [], meta: { location: `${BASE}/ResourceTypes/Group` } });
  });

  test("unknown resource type → 404 SCIM error", async () => {
    await expectScimError(await t.scim("GET", "/ResourceTypes/Device"), 404);
  });
});

describe("/Schemas", () => {
  test("list holds the User schema, its enterprise extension, the Group schema and the discovery documents' own schemas", async () => {
    const l = await ok("/Schemas");
    expect(l.schemas).toEqual([LIST]);
    expect(l.totalResults).toBe(6);
    expect(l.Resources.map((s: any) => s.id)).toEqual([USER_URN, ENTERPRISE_URN, GROUP_URN, SPC_URN, RESOURCE_TYPE_URN, SCHEMA_URN]);
    for (const s of l.Resources) {
      expect(s.schemas).toEqual(["urn:ietf:params:scim:schemas:core:2.0:Schema"]);
      expect(s.meta).toEqual({ resourceType: "Schema", location: `${BASE}/Schemas/${s.id}` });
    }
  });

  test("User schema: userType canonical values, name and emails sub-attributes", async () => {
    const s = await ok(`/Schemas/${USER_URN}`);
    const byName = new Map<string, any>(s.attributes.map((a: any) => [a.name, a]));
    for (const name of ["userName", "name", "displayName", "title", "userType", "active", "emails", "externalId"]) expect(byName.has(name)).toBe(true);
    expect(byName.get("userName")).toMatchObject({ type: "string", required: true, uniqueness: "server", caseExact: false });
    expect(byName.get("userType").canonicalValues).toEqual(["regular", "read-only", "billing"]);
    expect(byName.get("active").type).toBe("boolean");
    expect(byName.get("name").subAttributes.map((a: any) => a.name).sort()).toEqual(["familyName", "formatted", "givenName", "honorificPrefix", "honorificSuffix", "middleName"]);
    // the whole RFC 7643 §4.1 User schema
    expect([...byName.keys()].sort()).toEqual(
      ["active", "addresses", "displayName", "emails", "entitlements", "externalId", "groups", "ims", "locale", "name", "nickName", "password", "phoneNumbers",
        "photos", "preferredLanguage", "profileUrl", "roles", "timezone", "title", "userName", "userType", "x509Certificates"],
    );
    expect(byName.get("password")).toMatchObject({ mutability: "writeOnly", returned: "never" });
    expect(byName.get("groups")).toMatchObject({ mutability: "readOnly", multiValued: true });
    expect(byName.get("emails")).toMatchObject({ type: "complex", multiValued: true });
    expect(byName.get("emails").subAttributes.map((a: any) => a.name)).toEqual(expect.arrayContaining(["value", "primary"]));
    // Every attribute carries the RFC 7643 §7 characteristics.
    for (const a of s.attributes)
      for (const k of ["name", "type", "multiValued", "description", "required", "caseExact", "mutability", "returned", "uniqueness"]) expect(a).toHaveProperty(k);
  });

  test("Group schema: displayName required and unique, members value/$ref/display/type", async () => {
    const s = await ok(`/Schemas/${GROUP_URN}`);
    const byName = new Map<string, any>(s.attributes.map((a: any) => [a.name, a]));
    expect(byName.get("displayName")).toMatchObject({ required: true, uniqueness: "server", caseExact: false });
    const members = byName.get("members");
    expect(members).toMatchObject({ type: "complex", multiValued: true });
    expect(members.subAttributes.map((a: any) => a.name)).toEqual(["value", "$ref", "display", "type"]);
    expect(members.subAttributes.find((a: any) => a.name === "type").canonicalValues).toEqual(["User"]);
  });

  test("schema URNs are case-insensitive; unknown → 404", async () => {
    expect((await ok(`/Schemas/${GROUP_URN.toUpperCase()}`)).id).toBe(GROUP_URN);
    expect((await ok("/Schemas/urn:ietf:params:scim:schemas:extension:enterprise:2.0:user")).id).toBe(ENTERPRISE_URN);
    await expectScimError(await t.scim("GET", "/Schemas/urn:ietf:params:scim:schemas:extension:other:2.0:User"), 404);
    await expectScimError(await t.scim("GET", "/Schemas/nope"), 404);
  });
});

describe("schemas describe what resources really carry", () => {
  const keysOf = (resource: any) => Object.keys(resource).filter((k) => !["schemas", "id", "meta"].includes(k));

  test("every attribute of a full User and a full Group is declared in its schema", async () => {
    const userSchema = await ok(`/Schemas/${USER_URN}`);
    const groupSchema = await ok(`/Schemas/${GROUP_URN}`);
    const created = await json(
      await t.scim(
        "POST",
        "/Users",
        newUser("truth@example.com", { externalId: "ext-1", displayName: "Truth Teller", title: "QA lead", userType: "billing", emails: [{ value: "truth@example.com", type: "work", primary: true }], name: { givenName: "Truth", familyName: "Teller", formatted: "Truth Teller" } }),
      ),
    );
    const user = await json(await t.scim("GET", `/Users/${created.id}`));
    const group = await json(await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: "Truth", externalId: "g-1", members: [{ value: created.id }] }));
    for (const [resource, schema] of [
      [user, userSchema],
      [group, groupSchema],
    ] as const) {
      const declared = new Map<string, any>(schema.attributes.map((a: any) => [a.name, a]));
      for (const key of keysOf(resource)) {
        expect(declared.has(key)).toBe(true);
        const a = declared.get(key);
        const values = Array.isArray(resource[key]) ? resource[key] : [resource[key]];
        expect(Array.isArray(resource[key])).toBe(a.multiValued);
        if (a.type === "complex") {
          const subs = new Set(a.subAttributes.map((s: any) => s.name));
          for (const v of values) for (const sub of Object.keys(v)) expect(subs.has(sub) ? sub : `undeclared ${key}.${sub}`).toBe(sub);
        }
      }
    }
    expect(group.members[0].value).toBe(Number(created.id));
  });

  test("every declared User attribute is one /Users can filter on, and every Group one /Groups can sort by", async () => {
    for (const urn of [USER_URN, ENTERPRISE_URN]) {
      const schema = await ok(`/Schemas/${urn}`);
      // never-returned attributes (password) are not filterable; a computed $ref is the URL of `value`
      const filterable = (a: any) => a.returned !== "never" && !(a.name === "$ref" && a.mutability === "readOnly");
      for (const a of schema.attributes.filter(filterable)) {
        const paths = a.subAttributes ? a.subAttributes.filter(filterable).map((s: any) => `${a.name}.${s.name}`) : [a.name];
        for (const bare of paths) {
          const path = urn === USER_URN ? bare : `${urn}:${bare}`;
          for (const f of [`${path} pr`, `not (${path} pr)`]) {
            const r = await t.scim("GET", `/Users?filter=${encodeURIComponent(f)}`);
            expect(r.status === 200 ? f : `${f}: ${r.status} ${await r.text()}`).toBe(f);
          }
          const sorted = await t.scim("GET", `/Users?sortBy=${encodeURIComponent(path)}`);
          expect(sorted.status === 200 ? path : `sortBy ${path}: ${sorted.status} ${await sorted.text()}`).toBe(path);
        }
      }
    }
    await expectScimError(await t.scim("GET", `/Users?filter=${encodeURIComponent("password pr")}`), 400, "invalidFilter");
    const groupSchema = await ok(`/Schemas/${GROUP_URN}`);
    for (const a of groupSchema.attributes.filter((x: any) => !x.multiValued)) {
      const r = await t.scim("GET", `/Groups?sortBy=${a.name}`);
      expect(r.status === 200 ? a.name : `${a.name}: ${r.status}`).toBe(a.name);
    }
  });
});

describe("required means required", () => {
  test("POST without any attribute the schemas mark required → 400 invalidValue", async () => {
    let n = 0;
    for (const [urn, endpoint, full] of [
      [USER_URN, "/Users", () => newUser(`req${++n}@example.com`)],
      [GROUP_URN, "/Groups", () => ({ schemas: [GROUP_URN], displayName: `Req ${++n}` })],
    ] as const) {
      const schema = await ok(`/Schemas/${urn}`);
      expect((await t.scim("POST", endpoint, full())).status).toBe(201);
      for (const a of schema.attributes.filter((x: any) => x.required)) {
        const body: any = full();
        delete body[a.name];
        await expectScimError(await t.scim("POST", endpoint, body), 400, "invalidValue");
        for (const sub of (a.subAttributes ?? []).filter((x: any) => x.required)) {
          const partial: any = full();
          delete partial[a.name][sub.name];
          await expectScimError(await t.scim("POST", endpoint, partial), 400, "invalidValue");
        }
      }
    }
  });
});

describe("canonical values are the accepted values", () => {
  test("every userType canonical value is accepted and stored; collaborator is refused", async () => {
    const schema = await ok(`/Schemas/${USER_URN}`);
    const userType = schema.attributes.find((a: any) => a.name === "userType");
    for (const value of userType.canonicalValues) {
      const r = await t.scim("POST", "/Users", newUser(`type-${value}@example.com`, { userType: value }));
      expect(r.status).toBe(201);
      const id = (await json(r)).id;
      expect((await json(await t.scim("GET", `/Users/${id}`))).userType).toBe(value);
    }
    await expectScimError(await t.scim("POST", "/Users", newUser("collab@example.com", { userType: "collaborator" })), 400, "invalidValue");
  });
});

describe("methods and query parameters", () => {
  const paths = ["/ServiceProviderConfig", "/ResourceTypes", "/ResourceTypes/User", "/ResourceTypes/Group", "/Schemas", `/Schemas/${USER_URN}`, `/Schemas/${GROUP_URN}`];

  test("anything but GET → 405 SCIM error", async () => {
    for (const path of paths)
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const r = await t.scim(method, path, method === "DELETE" ? undefined : {});
        await expectScimError(r, 405);
      }
  });

  test("filter → 403 (RFC 7644 §4), other query parameters are ignored", async () => {
    await expectScimError(await t.scim("GET", `/Schemas?filter=${encodeURIComponent('id eq "x"')}`), 403);
    await expectScimError(await t.scim("GET", `/ResourceTypes?filter=${encodeURIComponent('id eq "User"')}`), 403);
    expect((await ok("/ResourceTypes?count=1&startIndex=2")).totalResults).toBe(2);
  });

  test("discovery needs the bearer token like every SCIM route", async () => {
    await expectScimError(await t.request("GET", "/scim/v2/ServiceProviderConfig"), 401);
  });
});

test("every discovery document carries only what its own schema (served at /Schemas) declares, and every required attribute", async () => {
  const schemaOf = async (urn: string) => ok(`/Schemas/${urn}`);
  const check = (doc: Record<string, any>, attributes: any[], where: string) => {
    const declared = new Map<string, any>(attributes.map((a: any) => [a.name, a]));
    for (const [key, value] of Object.entries(doc)) {
      if (where.split(".").length === 1 && ["schemas", "meta"].includes(key)) continue;
      const a = declared.get(key);
      // RFC 7643 §8.7.2: sub-attributes of sub-attributes have the same characteristics (the Schema schema describing itself nests deeper)
      if (!a && key === "subAttributes") {
        for (const item of value as any[]) check(item, attributes, `${where}.${key}`);
        continue;
      }
      expect(a ? `${where}.${key}` : `undeclared ${where}.${key}`).toBe(`${where}.${key}`);
      expect(`${where}.${key} multiValued ${Array.isArray(value)}`).toBe(`${where}.${key} multiValued ${a.multiValued}`);
      if (a.type === "complex") for (const item of Array.isArray(value) ? value : [value]) check(item, a.subAttributes, `${where}.${key}`);
    }
    for (const a of attributes.filter((x: any) => x.required)) expect(a.name in doc ? a.name : `${where} lacks required ${a.name}`).toBe(a.name);
  };
  const spc = await schemaOf(SPC_URN);
  check(await ok("/ServiceProviderConfig"), spc.attributes, "ServiceProviderConfig");
  const rt = await schemaOf(RESOURCE_TYPE_URN);
  for (const r of (await ok("/ResourceTypes")).Resources) check(r, rt.attributes, `ResourceType ${r.id}`);
  const sc = await schemaOf(SCHEMA_URN);
  for (const s of (await ok("/Schemas")).Resources) check(s, sc.attributes, `Schema ${s.name}`);
});
