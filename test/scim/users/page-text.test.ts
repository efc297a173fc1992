/**
 * GET /Users answers a page, GET /Users/{id} a user and the userName lookup its one-user page as
 * JSON text the engine writes per resource (`userResourceJsonText`, profiles and managers
 * finished as objects): the answer must be the very one the object path (`list`/`get`, which
 * /.search and projections use) gives — same members, same order, nulls left out — on either engine.
 */
import { afterAll, expect, test } from "bun:test";
import { createUsersService } from "../../../src/scim/users/service";
import { parseListParams } from "../../../src/scim/query";
import { createScimTestApp, json, newUser, USER_SCHEMA } from "../helpers";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const t = await createScimTestApp({ baseUrl: "https://gh.example.com/o'brien" });
afterAll(() => t.close());

const ids: string[] = [];
const create = async (body: Record<string, unknown>) => {
  const r = await t.scim("POST", "/Users", body);
  expect(r.status).toBe(201);
  ids.push((await json(r)).id);
};
await create(newUser("plain@example.com"));
await create({ schemas: [USER_SCHEMA], userName: "only-names@example.com", name: { givenName: "Ö\"q\\u", familyName: "</script> 'x'" } });
await create({
  ...newUser("full@example.com"),
  externalId: "ext-1 \u2028 line",
  displayName: "Dîsplay \"quoted\"",
  title: "Tab\there",
  userType: "billing",
  name: { givenName: "G", familyName: "F", formatted: "G F", middleName: "M" },
  emails: [{ value: "full@example.com", type: "work", primary: true }, { value: "other@example.com", display: "Other" }],
  nickName: "nick",
});
await create({ schemas: [USER_SCHEMA, ENTERPRISE], userName: "managed@example.com", name: { givenName: "A", familyName: "B" }, [ENTERPRISE]: { department: "QA", manager: { value: ids[0] } } });
await create({ schemas: [USER_SCHEMA, ENTERPRISE], userName: "unknown-manager@example.com", name: { givenName: "A", familyName: "B" }, [ENTERPRISE]: { manager: { value: "99999" } } });
expect((await t.scim("PATCH", `/Users/${ids[1]}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] })).status).toBe(200);
// Users without a profile document: a page of only them is joined by the engine (one buffer) —
// these pages are sorted and filtered too, so its order is held to the object path's.
for (const [userName, familyName] of [["p-zed@example.com", "Zed"], ["p-amy@example.com", "Amy \"q\""], ["p-bob@example.com", "Bob"]])
  await create(newUser(userName, { name: { givenName: "P", familyName }, emails: [{ value: userName, type: "work", primary: true }] }));

const users = createUsersService(t.ctx);
for (const query of ["", "count=2", "startIndex=2&count=2", "startIndex=5", "startIndex=9", "startIndex=12", "count=0", 'filter=userName sw "o"', 'filter=name.familyName pr&sortBy=userName&sortOrder=descending', "filter=active eq false",
  'filter=userName sw "p"&sortBy=name.familyName&sortOrder=descending', 'filter=userName sw "p"&sortBy=userName', 'filter=userName sw "p-"&startIndex=2&count=1', 'filter=userName sw "p-"&startIndex=4']) {
  test(`GET /Users?${query} is the object path's page, member for member and in order`, async () => {
    const r = await t.scim("GET", `/Users?${query.replace(/ /g, "%20").replace(/"/g, "%22")}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("application/scim+json");
    const answered = await json(r);
    const expected = await users.list(parseListParams(Object.fromEntries(new URLSearchParams(query))));
    expect(JSON.stringify(answered)).toBe(JSON.stringify(expected));
  });
}

test("the page holds what each kind of user renders: nulls left out, name always there, managers resolved", async () => {
  const page = await json(await t.scim("GET", "/Users"));
  expect(page.totalResults).toBe(8);
  const [plain, onlyNames, full, managed, unknownManager] = page.Resources;
  expect(plain.externalId).toBeUndefined();
  expect(onlyNames.name).toEqual({ givenName: "Ö\"q\\u", familyName: "</script> 'x'" });
  expect(onlyNames.emails).toBeUndefined();
  expect(onlyNames.active).toBe(false);
  expect(full.title).toBe("Tab\there");
  expect(full.name.middleName).toBe("M");
  expect(full.nickName).toBe("nick");
  expect(full.meta.location).toBe(`https://gh.example.com/o'brien/scim/v2/Users/${full.id}`);
  expect(Object.keys(full).at(-1)).toBe("meta");
  expect(managed[ENTERPRISE].manager).toEqual({ value: ids[0], $ref: `https://gh.example.com/o'brien/scim/v2/Users/${ids[0]}`, displayName: plain.displayName });
  expect(unknownManager[ENTERPRISE].manager).toEqual({ value: "99999" });
});

test("GET /Users/{id} is the object path's user, member for member and in order, for every kind of user", async () => {
  for (const id of ids) {
    const r = await t.scim("GET", `/Users/${id}`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toStartWith("application/scim+json");
    expect(JSON.stringify(await json(r))).toBe(JSON.stringify(await users.get(id)));
  }
  for (const unknown of ["99999", "0", "x1"]) expect((await t.scim("GET", `/Users/${unknown}`)).status).toBe(404);
});

test("the userName lookup is the object path's page, for every kind of user and past its one result", async () => {
  for (const userName of ["plain@example.com", "ONLY-NAMES@example.com", "full@example.com", "managed@example.com", "unknown-manager@example.com", "nobody@example.com"]) {
    for (const extra of ["", "&startIndex=2", "&count=1"]) {
      const query = `filter=userName eq "${userName}"${extra}`;
      const r = await t.scim("GET", `/Users?${query.replace(/ /g, "%20").replace(/"/g, "%22")}`);
      expect(r.status).toBe(200);
      expect(JSON.stringify(await json(r))).toBe(JSON.stringify(await users.list(parseListParams(Object.fromEntries(new URLSearchParams(query))))));
    }
  }
});
