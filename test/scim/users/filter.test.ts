import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseListParams } from "../../../src/scim/query";
import { userListQueries } from "../../../src/scim/users/service";
import { testOnSqlite } from "../../helpers";
import { createScimTestApp, expectScimError, json, newUser } from "../helpers";

const t = await createScimTestApp();
afterAll(() => t.close());

const people = [
  { userName: "ada@analytical.org", externalId: "ADA-1", name: { givenName: "Ada", familyName: "Lovelace" }, title: "Countess", userType: "regular", emails: [{ value: "ada@analytical.org", type: "work", primary: true }, { value: "ada@home.net", type: "home" }] },
  { userName: "Charles@Analytical.org", externalId: "cb-2", name: { givenName: "Charles", familyName: "Babbage" }, userType: "read-only", emails: [{ value: "charles@analytical.org", type: "work", primary: true }] },
  { userName: "grace@navy.mil", externalId: "jyoung", name: { givenName: "Grace", familyName: "Hopper" }, title: "Rear Admiral", userType: "billing", emails: [{ value: "grace@navy.mil", type: "work" }] },
  { userName: "alan@bletchley.uk", name: { givenName: "Alan", familyName: "Turing" }, emails: [] },
  { userName: "édith@exemple.fr", name: { givenName: "Édith", familyName: "Piaf" }, emails: [{ value: "ÉDITH@exemple.fr", type: "other" }] },
];

beforeAll(async () => {
  for (const p of people) expect((await t.scim("POST", "/Users", newUser(p.userName, p))).status).toBe(201);
  const alan = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "alan@bletchley.uk"')}`));
  await t.scim("DELETE", `/Users/${alan.Resources[0].id}`);
});

async function names(filter: string): Promise<string[]> {
  const r = await t.scim("GET", `/Users?filter=${encodeURIComponent(filter)}`);
  const text = await r.text();
  if (r.status !== 200) throw new Error(`${filter} → ${r.status} ${text}`);
  const body = JSON.parse(text);
  expect(body.totalResults).toBe(body.Resources.length);
  return body.Resources.map((u: { userName: string }) => u.userName.split("@")[0]!.toLowerCase()).sort();
}

describe("filters over /Users", () => {
  test("userName eq is case-insensitive (also for non-ASCII), with the spec's parenthesised lookup", async () => {
    expect(await names('userName eq "charles@analytical.org"')).toEqual(["charles"]);
    expect(await names('(userName eq "ADA@ANALYTICAL.ORG")')).toEqual(["ada"]);
    expect(await names('userName eq "ÉDITH@EXEMPLE.FR"')).toEqual(["édith"]);
    expect(await names('USERNAME EQ "grace@navy.mil"')).toEqual(["grace"]);
    expect(await names('userName eq "nobody@x.y"')).toEqual([]);
  });

  test("all comparison operators", async () => {
    expect(await names('userName ne "ada@analytical.org"')).toEqual(["alan", "charles", "grace", "édith"]);
    expect(await names('userName co "ANALYTICAL"')).toEqual(["ada", "charles"]);
    expect(await names('userName sw "gr"')).toEqual(["grace"]);
    expect(await names('userName ew ".uk"')).toEqual(["alan"]);
    expect(await names('name.familyName gt "Lovelace"')).toEqual(["alan", "édith"]);
    expect(await names('name.familyName ge "lovelace"')).toEqual(["ada", "alan", "édith"]);
    expect(await names('name.familyName lt "Hopper"')).toEqual(["charles"]);
    expect(await names('name.familyName le "hopper"')).toEqual(["charles", "grace"]);
    expect(await names("title pr")).toEqual(["ada", "grace"]);
    expect(await names('meta.created gt "2000-01-01T00:00:00Z"')).toHaveLength(5);
    expect(await names('meta.lastModified lt "2000-01-01T00:00:00Z"')).toEqual([]);
  });

  test("externalId is caseExact; Entra's unquoted value is accepted", async () => {
    expect(await names("externalId eq jyoung")).toEqual(["grace"]);
    expect(await names('externalId eq "ADA-1"')).toEqual(["ada"]);
    expect(await names('externalId eq "ada-1"')).toEqual([]);
  });

  test("booleans, userType, id", async () => {
    expect(await names("active eq false")).toEqual(["alan"]);
    expect(await names('active eq "True" and userType eq "REGULAR"')).toEqual(["ada", "édith"]);
    const ada = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ada@analytical.org"')}`));
    expect(await names(`id eq "${ada.Resources[0].id}"`)).toEqual(["ada"]);
    expect(await names('id eq "not-a-number"')).toEqual([]);
  });

  test("emails: sub-attributes, value paths, pr, the attribute itself", async () => {
    expect(await names('emails.value eq "ADA@HOME.NET"')).toEqual(["ada"]);
    expect(await names('emails[type eq "work" and value co "@analytical"]')).toEqual(["ada", "charles"]);
    expect(await names('emails[type eq "home"]')).toEqual(["ada"]);
    expect(await names('emails[not (type eq "work")]')).toEqual(["ada", "édith"]);
    expect(await names("emails pr")).toEqual(["ada", "charles", "grace", "édith"]);
    expect(await names('emails co "navy"')).toEqual(["grace"]);
    expect(await names("emails.primary eq true")).toEqual(["ada", "charles"]);
    expect(await names('emails.value eq "édith@exemple.fr"')).toEqual(["édith"]);
  });

  test("and / or / not / parentheses, including NULLs under not", async () => {
    expect(await names('userType eq "regular" and (emails co "home.net" or emails.value co "exemple")')).toEqual(["ada", "édith"]);
    expect(await names('not (title pr)')).toEqual(["alan", "charles", "édith"]);
    expect(await names('not (title eq "Countess")')).toEqual(["alan", "charles", "grace", "édith"]);
    expect(await names('title eq "Countess" or title eq "Rear Admiral" and userType eq "billing"')).toEqual(["ada", "grace"]);
    expect(await names('(title eq "Countess" or title eq "Rear Admiral") and userType eq "billing"')).toEqual(["grace"]);
    expect(await names('urn:ietf:params:scim:schemas:core:2.0:User:name.givenName eq "grace"')).toEqual(["grace"]);
    expect(await names("title eq null")).toEqual(["alan", "charles", "édith"]);
  });

  test("bad filters → 400 invalidFilter, never 500", async () => {
    for (const f of ['userName eq', 'shoeSize eq "42"', "active gt true", 'active eq "maybe"', 'name.familyName co 3', 'meta.created gt "yesterday"',
      'emails[shoe eq "x"]', 'userName[type eq "x"]', 'urn:other:schema:User:userName eq "x"', "emails.value gt null", 'id co "1"',
      'name.nickName eq "x"', 'userName eq "a" and', 'password eq "x"', 'groups.$ref eq "x"',
      'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:shoeSize eq "x"', 'phoneNumbers[colour eq "x"]'])
      await expectScimError(await t.scim("GET", `/Users?filter=${encodeURIComponent(f)}`), 400, "invalidFilter");
  });

  test("a filter in a query string with + for spaces (form encoding) works", async () => {
    const r = await json(await t.scim("GET", "/Users?filter=userName+eq+%22grace%40navy.mil%22&startIndex=1&count=100"));
    expect(r.totalResults).toBe(1);
  });
});

test("the userName-eq fast path answers exactly like the general compiler", async () => {
  const get = async (q: string) => JSON.parse(await (await t.scim("GET", `/Users?${q}`)).text());
  for (const name of ["ada@analytical.org", "CHARLES@analytical.org", "édith@EXEMPLE.fr", "alan@bletchley.uk", "nobody@x.y"]) {
    for (const extra of ["", "&count=0", "&startIndex=2", "&attributes=emails,name.givenName", "&excludedAttributes=meta"]) {
      const fast = await get(`filter=${encodeURIComponent(`userName eq "${name}"`)}${extra}`);
      const general = await get(`filter=${encodeURIComponent(`userName eq "${name}" and userName pr`)}${extra}`);
      expect(fast).toEqual(general);
    }
  }
});

describe("query plans", () => {
  const plan = (filter: string) => {
    const { countQuery, pageQuery } = userListQueries(parseListParams({ filter }));
    return [countQuery, pageQuery].map((q) =>
      (t.ctx.sqlite!.query(`EXPLAIN QUERY PLAN ${q.sql}`).all(...(q.params as never[])) as { detail: string }[]).map((r) => r.detail).join(" | "),
    );
  };

  // PostgreSQL's plans of the same filters: test/scim/filter/compiler-postgres.test.ts.
  testOnSqlite("userName eq, externalId eq and emails.value eq use indexes and never scan users (SQLite's planner; PostgreSQL's: compiler-postgres.test.ts)", () => {
    const cases: [string, RegExp][] = [
      ['userName eq "ada@analytical.org"', /users_user_name_key_unique/],
      ["externalId eq jyoung", /users_external_id_idx/],
      ['emails.value eq "ada@home.net"', /user_emails_value_key_idx/],
      ['emails[value eq "ada@home.net"]', /user_emails_value_key_idx/],
    ];
    for (const [filter, index] of cases) {
      for (const p of plan(filter)) {
        expect(p).toMatch(index);
        expect(p).not.toMatch(/SCAN u\b|SCAN users\b/);
      }
    }
  });
});
