import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createScimTestApp, expectScimError, json, LIST_SCHEMA, newUser } from "./helpers";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../src/db/statement";

/** RFC 7644 §3.4.3: POST /.search, /Users/.search and /Groups/.search, the same semantics as GET. */
const SEARCH = "urn:ietf:params:scim:api:messages:2.0:SearchRequest";
const t = await createScimTestApp();
afterAll(() => t.close());

const ids: string[] = [];
let groupId = "";
// Every test reads the same five users and one group; none writes to them.
beforeAll(async () => {
  for (const n of ["a", "b", "c", "d", "e"]) ids.push((await json(await t.scim("POST", "/Users", newUser(`${n}.search@example.com`, { title: n === "e" ? "Boss" : "Staff" })))).id);
  groupId = (await json(await t.scim("POST", "/Groups", { displayName: "Searchers", members: [{ value: ids[0] }] }))).id;
});

describe("POST /Users/.search", () => {
  test("answers exactly what GET with the same parameters answers", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ filter: 'title eq "Staff"', startIndex: 2, count: 2, sortBy: "userName", sortOrder: "descending" }, 'filter=title%20eq%20%22Staff%22&startIndex=2&count=2&sortBy=userName&sortOrder=descending'],
      [{ attributes: ["userName", "title"] }, "attributes=userName,title"],
      [{ excludedAttributes: "emails,name" }, "excludedAttributes=emails,name"],
      [{ count: 0 }, "count=0"],
      [{}, ""],
    ];
    for (const [body, query] of cases) {
      const post = await t.scim("POST", "/Users/.search", { schemas: [SEARCH], ...body });
      expect(post.status).toBe(200);
      expect(post.headers.get("content-type")).toStartWith("application/scim+json");
      expect(await json(post)).toEqual(await json(await t.scim("GET", `/Users?${query}`)));
    }
  });

  test("key names are case-insensitive; schemas may be omitted but not wrong; bad filters are 400 invalidFilter", async () => {
    const r = await json(await t.scim("POST", "/Users/.search", { Filter: 'title eq "Boss"', StartIndex: 1 }));
    expect(r.Resources.map((u: any) => u.id)).toEqual([ids[4]]);
    await expectScimError(await t.scim("POST", "/Users/.search", { schemas: ["urn:example:Other"], filter: 'title eq "Boss"' }), 400, "invalidSyntax");
    await expectScimError(await t.scim("POST", "/Users/.search", { schemas: [SEARCH], filter: "title eq" }), 400, "invalidFilter");
    await expectScimError(await t.scim("POST", "/Users/.search", { schemas: [SEARCH], count: "many" }), 400, "invalidValue");
  });

  test("only POST: other methods get 405, not a user lookup", async () => {
    const r = await t.scim("GET", "/Users/.search");
    await expectScimError(r, 405);
  });
});

describe("POST /Groups/.search and POST /.search", () => {
  test("/Groups/.search is GET /Groups", async () => {
    const post = await json(await t.scim("POST", "/Groups/.search", { schemas: [SEARCH], filter: 'displayName sw "search"', excludedAttributes: ["members"] }));
    expect(post).toEqual(await json(await t.scim("GET", `/Groups?filter=${encodeURIComponent('displayName sw "search"')}&excludedAttributes=members`)));
    expect(post.Resources.map((g: any) => g.id)).toEqual([groupId]);
  });

  test("/.search lists every resource type, users then groups, paged as one list", async () => {
    const all = await json(await t.scim("POST", "/.search", { schemas: [SEARCH] }));
    expect(all.schemas).toEqual([LIST_SCHEMA]);
    expect(all.totalResults).toBe(6);
    expect(all.Resources.map((r: any) => r.meta.resourceType)).toEqual(["User", "User", "User", "User", "User", "Group"]);
    const page = await json(await t.scim("POST", "/.search", { schemas: [SEARCH], startIndex: 5, count: 2 }));
    expect(page).toMatchObject({ totalResults: 6, startIndex: 5, itemsPerPage: 2 });
    expect(page.Resources.map((r: any) => r.id)).toEqual([ids[4], groupId]);
    // a filter only users understand matches no group; one only groups understand... displayName exists on both
    const staff = await json(await t.scim("POST", "/.search", { schemas: [SEARCH], filter: 'title eq "Staff"' }));
    expect(staff.totalResults).toBe(4);
    const named = await json(await t.scim("POST", "/.search", { schemas: [SEARCH], filter: 'displayName eq "Searchers"' }));
    expect(named.Resources.map((r: any) => r.id)).toEqual([groupId]);
    await expectScimError(await t.scim("POST", "/.search", { schemas: [SEARCH], filter: 'shoeSize eq "42"' }), 400, "invalidFilter");
    await expectScimError(await t.scim("POST", "/.search", { schemas: [SEARCH], sortBy: "userName" }), 400, "invalidValue");
    await expectScimError(await t.scim("GET", "/.search"), 405);
  });
});

test("searches are reads: the provisioning activity log records none of them", async () => {
  const o = await createScimTestApp();
  try {
    await o.scim("POST", "/Users", newUser("logged@example.com"));
    await o.scim("POST", "/Users/.search", { schemas: [SEARCH] });
    await o.scim("POST", "/Groups/.search", { schemas: [SEARCH] });
    await o.scim("POST", "/.search", { schemas: [SEARCH] });
    await Bun.sleep(50); // the log is written after the answer
    const rows = await rowsOf<{ operation: string; resource_id: string | null }>(o.ctx.db, sql`SELECT operation, resource_id FROM scim_activity`);
    expect(rows.map((r) => r.operation)).toEqual(["create"]);
  } finally {
    o.close();
  }
});
