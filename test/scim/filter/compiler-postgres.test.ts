/**
 * The SCIM filter compiler on PostgreSQL: users provisioned through the real SCIM surface (on
 * SQLite, whatever the run's engine: test/support/sqlite-instance.ts), their rows copied into a
 * PostgreSQL database migrated to the product's schema, and the list queries (`userListQueries`: count and page, with the filters of test/scim/users/filter.test.ts
 * and attributes.test.ts, sortBy, a workspace's scope) built once per engine and run on each —
 * the same users in the same order. Anchored filters (userName, externalId, emails.value, id)
 * must be index conditions on PostgreSQL too: the cost model (src/scim/filter/cost.ts) counts
 * them as probes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { rmSync } from "node:fs";
import type postgres from "postgres";
import { postgresPlaceholders } from "../../../src/db/dialect";
import { engine as currentEngine, useEngine, type Engine } from "../../../src/db/engine";
import { groupMembers, groups, userEmails, users, workspaceMembers, workspaces } from "../../../src/directory/tables";
import { parseListParams } from "../../../src/scim/query";
import { userListQueries } from "../../../src/scim/users/service";
import { migratedCopy } from "../../db/postgres-tables";
import { sqliteInstance } from "../../support/sqlite-instance";
import { json, newUser, PATCH_SCHEMA, USER_SCHEMA, withScimToken } from "../helpers";

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const TABLES = [users, userEmails, groups, groupMembers, workspaces, workspaceMembers];

const engineAtStart = currentEngine();
const t = await withScimToken(sqliteInstance());
const sqlite = t.ctx.sqlite!; // always SQLite: the instance above
let pg: postgres.Sql;
let closePg: () => Promise<void>;
const ids = new Map<string, string>();

const people = [
  { userName: "ada@analytical.org", externalId: "ADA-1", name: { givenName: "Ada", familyName: "Lovelace" }, title: "Countess", userType: "regular", emails: [{ value: "ada@analytical.org", type: "work", primary: true }, { value: "ada@home.net", type: "home" }] },
  { userName: "Charles@Analytical.org", externalId: "cb-2", name: { givenName: "Charles", familyName: "Babbage" }, userType: "read-only", emails: [{ value: "charles@analytical.org", type: "work", primary: true }] },
  { userName: "grace@navy.mil", externalId: "jyoung", name: { givenName: "Grace", familyName: "Hopper" }, title: "Rear Admiral", userType: "billing", emails: [{ value: "grace@navy.mil", type: "work" }] },
  { userName: "alan@bletchley.uk", name: { givenName: "Alan", familyName: "Turing" }, emails: [] },
  { userName: "édith@exemple.fr", displayName: "ÉDITH Piaf", name: { givenName: "Édith", familyName: "Piaf" }, title: "ÄBC", emails: [{ value: "ÉDITH@exemple.fr", type: "other" }] },
  { userName: "ÄBC@x.example", displayName: "äbc", name: { givenName: "äbc", familyName: "Äbc" }, title: "äbc", emails: [] },
  { userName: "50%_off@x.example", displayName: "50%_off\\now", name: { givenName: "Sale", familyName: "Z" }, emails: [] },
];

const fullUser = (userName: string) => ({
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
  emails: [{ value: userName, type: "work", primary: true, display: "Work mail" }, { value: `home.${userName}`, type: "home" }],
  phoneNumbers: [{ value: "555-555-5555", type: "work", primary: true }, { value: "555-555-4444", type: "mobile", display: "cell" }],
  ims: [{ value: "someaimhandle", type: "aim" }],
  addresses: [
    { type: "work", streetAddress: "100 Universal City Plaza", locality: "Hollywood", region: "CA", postalCode: "91608", country: "US", primary: true },
    { type: "home", streetAddress: "456 Hollywood Blvd", locality: "Hollywood", region: "CA", postalCode: "91608", country: "US" },
  ],
  entitlements: [{ value: "Desk phone", display: "Phone", primary: true }],
  roles: [{ value: "Tour guide", type: "staff" }],
  [ENTERPRISE]: { employeeNumber: "701984", costCenter: "4130", organization: "Universal Studios", division: "Theme Park", department: "Tour Operations" },
});

beforeAll(async () => {
  for (const p of people) {
    const r = await t.scim("POST", "/Users", newUser(p.userName, p));
    expect(r.status).toBe(201);
    ids.set(p.userName, (await json(r)).id);
  }
  await t.scim("DELETE", `/Users/${ids.get("alan@bletchley.uk")}`);
  // two full users, the second with only a phone number that is not primary and another department
  const a = await json(await t.scim("POST", "/Users", fullUser("a.filter@example.com")));
  const b = fullUser("b.filter@example.com");
  const bBody = { ...b, phoneNumbers: [{ value: "555-000-0000", type: "home" }], [ENTERPRISE]: { ...b[ENTERPRISE], department: "Accounting", employeeNumber: "12" } };
  const bUser = await json(await t.scim("POST", "/Users", bBody));
  ids.set("a.filter", a.id).set("b.filter", bUser.id);
  await t.scim("PATCH", `/Users/${a.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "add", path: `${ENTERPRISE}:manager`, value: bUser.id }] });
  const team = await json(await t.scim("POST", "/Groups", { displayName: "Équipe Tour", members: [{ value: a.id }, { value: ids.get("ada@analytical.org") }] }));
  ids.set("team", team.id);

  ({ pg, close: closePg } = await migratedCopy(sqlite, TABLES, "scimfilter"));
}, 60_000);

afterAll(async () => {
  useEngine(engineAtStart);
  await t.close();
  rmSync(t.dir, { recursive: true, force: true });
  await closePg?.();
});

function build<T>(engine: Engine, make: () => T): T {
  const before = currentEngine();
  useEngine(engine);
  try {
    return make();
  } finally {
    useEngine(before);
  }
}

type Listed = { total: number; ids: number[] };

async function listOn(engine: Engine, query: Record<string, string>, workspaceId: number | null): Promise<Listed> {
  const { countQuery, pageQuery } = build(engine, () => userListQueries(parseListParams(query), undefined, workspaceId));
  if (engine === "sqlite") {
    const n = (sqlite.query(countQuery.sql).get(...(countQuery.params as never[])) as { n: number }).n;
    const rows = sqlite.query(pageQuery.sql).all(...(pageQuery.params as never[])) as { id: number }[];
    return { total: n, ids: rows.map((r) => r.id) };
  }
  const [count] = (await pg.unsafe(postgresPlaceholders(countQuery.sql), countQuery.params as never[])) as unknown as { n: number }[];
  const rows = (await pg.unsafe(postgresPlaceholders(pageQuery.sql), pageQuery.params as never[])) as unknown as { id: number }[];
  return { total: Number(count!.n), ids: rows.map((r) => Number(r.id)) };
}

/** The filter (and sort) on both engines: the same users, in the same order; SQLite's answer. */
async function same(query: Record<string, string>, workspaceId: number | null = null): Promise<Listed> {
  const lite = await listOn("sqlite", query, workspaceId);
  const onPg = await listOn("postgres", query, workspaceId);
  expect({ query, ...onPg }).toEqual({ query, ...lite });
  return lite;
}

const id = (key: string) => Number(ids.get(key));

const FILTERS = [
  // test/scim/users/filter.test.ts
  'userName eq "charles@analytical.org"', '(userName eq "ADA@ANALYTICAL.ORG")', 'userName eq "ÉDITH@EXEMPLE.FR"', 'USERNAME EQ "grace@navy.mil"', 'userName eq "nobody@x.y"',
  'userName ne "ada@analytical.org"', 'userName co "ANALYTICAL"', 'userName sw "gr"', 'userName ew ".uk"', 'name.familyName gt "Lovelace"', 'name.familyName ge "lovelace"',
  'name.familyName lt "Hopper"', 'name.familyName le "hopper"', "title pr", 'meta.created gt "2000-01-01T00:00:00Z"', 'meta.lastModified lt "2000-01-01T00:00:00Z"',
  "externalId eq jyoung", 'externalId eq "ADA-1"', 'externalId eq "ada-1"', "active eq false", 'active eq "True" and userType eq "REGULAR"', 'id eq "not-a-number"',
  'emails.value eq "ADA@HOME.NET"', 'emails[type eq "work" and value co "@analytical"]', 'emails[type eq "home"]', 'emails[not (type eq "work")]', "emails pr",
  'emails co "navy"', "emails.primary eq true", 'emails.value eq "édith@exemple.fr"',
  'userType eq "regular" and (emails co "home.net" or emails.value co "exemple")', "not (title pr)", 'not (title eq "Countess")',
  'title eq "Countess" or title eq "Rear Admiral" and userType eq "billing"', '(title eq "Countess" or title eq "Rear Admiral") and userType eq "billing"',
  'urn:ietf:params:scim:schemas:core:2.0:User:name.givenName eq "grace"', "title eq null", "title ne null",
  // case folding beyond ASCII: the key columns fold Unicode, the rest ASCII only, on both engines
  'userName eq "äbc@X.EXAMPLE"', 'title eq "ÄBC"', 'title eq "äbc"', 'title co "Ä"', 'displayName eq "ÉDITH piaf"', 'displayName eq "édith piaf"', 'name.familyName ew "BC"',
  // co/sw/ew take the text as is: %, _ and \ are no patterns
  'displayName co "%_"', 'displayName co "\\\\n"', 'displayName sw "50%"', 'displayName ew "w"', 'displayName co "0_"', 'userName sw "50%_"',
  // the profile and the enterprise extension (test/scim/users/attributes.test.ts)
  'name.middleName eq "jane"', 'name.honorificPrefix eq "Ms."', 'nickName eq "babs"', 'profileUrl sw "https://login."', 'preferredLanguage eq "en-US"', 'locale eq "en-us"',
  'timezone ew "angeles"', 'emails.display eq "Work mail"', 'phoneNumbers eq "555-555-5555"', 'phoneNumbers[type eq "mobile" and value co "4444"]', 'phoneNumbers.display eq "cell"',
  "phoneNumbers.primary eq true", "phoneNumbers.primary eq false", 'ims.value eq "someaimhandle"', 'addresses[type eq "work" and locality eq "Hollywood"]', 'addresses.postalCode eq "91608"',
  'addresses[country eq "US" and primary eq true]', 'entitlements.value eq "Desk phone"', 'roles.type eq "staff"', "phoneNumbers pr", "not (phoneNumbers pr)", "addresses.primary pr",
  `${ENTERPRISE}:employeeNumber eq "701984"`, `${ENTERPRISE}:employeeNumber gt "2"`, `${ENTERPRISE}:costCenter eq "4130"`, `${ENTERPRISE}:organization co "universal"`,
  `${ENTERPRISE}:division eq "Theme Park"`, `${ENTERPRISE}:department eq "Tour Operations"`, `${ENTERPRISE}:department pr`, `not (${ENTERPRISE}:department eq "accounting")`,
  `${ENTERPRISE}:manager.displayName eq "Babs Jensen"`, `${ENTERPRISE}:manager.displayName pr`, 'userType eq "read-only"', 'title eq "Tour Guide"',
];

describe("the user filter on PostgreSQL answers as on SQLite", () => {
  test("every filter of the SQLite tests, and folding, escaping, JSON attributes", async () => {
    let matched = 0;
    for (const filter of FILTERS) if ((await same({ filter })).total > 0) matched++;
    expect(matched).toBeGreaterThan(FILTERS.length / 2); // most filters find someone: the comparison is not of empty answers
  });

  test("ids, managers and groups (the values the fixture created)", async () => {
    const a = id("a.filter");
    expect((await same({ filter: `id eq "${a}"` })).ids).toEqual([a]);
    expect((await same({ filter: `${ENTERPRISE}:manager.value eq "${id("b.filter")}"` })).ids).toEqual([a]);
    expect((await same({ filter: `${ENTERPRISE}:manager eq "${id("b.filter")}"` })).ids).toEqual([a]);
    expect((await same({ filter: `${ENTERPRISE}:manager.displayName eq "babs jensen"` })).ids).toEqual([a]);
    expect((await same({ filter: `groups.value eq "${ids.get("team")}"` })).ids).toEqual([id("ada@analytical.org"), a]);
    expect((await same({ filter: 'groups.display eq "ÉQUIPE TOUR"' })).ids).toEqual([id("ada@analytical.org"), a]);
    expect((await same({ filter: "groups pr" })).total).toBe(2);
  });

  test("a folded key column folds Unicode (the product's rule), other text ASCII only — on both engines", async () => {
    expect((await same({ filter: 'userName eq "äbc@x.example"' })).ids).toEqual([id("ÄBC@x.example")]);
    // title "ÄBC" and "äbc" are not one value: ASCII folding leaves Ä and ä apart
    expect((await same({ filter: 'title eq "äbc"' })).ids).toEqual([id("ÄBC@x.example")]);
    expect((await same({ filter: 'title eq "Äbc"' })).ids).toEqual([id("édith@exemple.fr")]);
  });

  test("sortBy: columns, folded keys, profile values and multi-valued attributes, both orders", async () => {
    for (const sortBy of ["userName", "name.familyName", "displayName", "title", "externalId", "meta.created", "name", "emails", "emails.type", "phoneNumbers",
      "addresses.postalCode", `${ENTERPRISE}:department`, `${ENTERPRISE}:employeeNumber`, "nickName", "groups.display", "active", "phoneNumbers.primary"]) {
      for (const sortOrder of ["ascending", "descending"]) await same({ sortBy, sortOrder });
    }
    await same({ filter: 'title pr or userName sw "a"', sortBy: "title", sortOrder: "descending", startIndex: "2", count: "3" });
  });

  test("a workspace's scope: only its members", async () => {
    const listed = await same({ filter: "userName pr" }, 1);
    expect(listed.total).toBeGreaterThan(0);
  });
});

test("PostgreSQL parses the profile once per row, however many terms read it, and not at all when none does", () => {
  const q = (query: Record<string, string>) => build("postgres", () => userListQueries(parseListParams(query)));
  const many = q({ filter: `nickName eq "a" or ${ENTERPRISE}:department co "b" or phoneNumbers[primary eq true]`, sortBy: "addresses.postalCode" });
  const parses = (statement: string) => statement.split("(u.profile)::jsonb").length - 1;
  for (const statement of [many.countQuery.sql, many.pageQuery.sql]) expect(parses(statement)).toBe(1);
  const sortOnly = q({ filter: 'userName sw "a"', sortBy: "nickName" });
  expect(sortOnly.countQuery.sql).not.toContain("jsonb");
  expect(parses(sortOnly.pageQuery.sql)).toBe(1);
  const none = q({ filter: 'userName eq "a"', sortBy: "title" });
  expect(none.countQuery.sql + none.pageQuery.sql).not.toContain("jsonb");
});

describe("anchored filters are index conditions on PostgreSQL", () => {
  const plan = async (filter: string) => {
    const { pageQuery } = build("postgres", () => userListQueries(parseListParams({ filter })));
    // With sequential scans off, a usable index is taken whatever the table's size; an unusable one is not.
    return pg.begin(async (tx) => {
      await tx.unsafe("SET LOCAL enable_seqscan = off");
      const rows = (await tx.unsafe(`EXPLAIN ${postgresPlaceholders(pageQuery.sql)}`, pageQuery.params as never[])) as unknown as { "QUERY PLAN": string }[];
      return rows.map((r) => r["QUERY PLAN"]).join("\n");
    });
  };

  test("userName, externalId, emails.value and id", async () => {
    const cases: [string, RegExp][] = [
      ['userName eq "ada@analytical.org"', /Index Scan using users_user_name_key_unique/],
      ["externalId eq jyoung", /using users_external_id_idx/],
      ['emails.value eq "ada@home.net"', /using user_emails_value_key_idx/],
      ['emails[value eq "ada@home.net"]', /using user_emails_value_key_idx/],
      [`id eq "${1}"`, /Index Scan using users_pkey/],
    ];
    for (const [filter, index] of cases) {
      const p = await plan(filter);
      expect(`${filter}\n${p}`).toMatch(index);
      expect(p).not.toMatch(/Seq Scan on users/);
    }
  });
});
