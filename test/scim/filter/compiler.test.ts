import { describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import { engine, useEngine } from "../../../src/db/engine";
import { ScimError } from "../../../src/scim/errors";
import { compileFilter, parseFilter, type AttributeResolver } from "../../../src/scim/filter";
import { listResponse, parseListParams, projectResource } from "../../../src/scim/query";
import { userFilterResolver } from "../../../src/scim/users/attributes";

const dialect = new SQLiteSyncDialect();
/** The SQL as SQLite's run gets it, whichever engine this test run uses (the PostgreSQL forms: compiler-postgres.test.ts). */
const compile = (f: string, resolver: AttributeResolver = userFilterResolver, opts = {}) => {
  const running = engine();
  useEngine("sqlite");
  try {
    return dialect.sqlToQuery(compileFilter(parseFilter(f), resolver, opts));
  } finally {
    useEngine(running);
  }
};

/** A resolver like the groups feature's: displayName only. */
const groupsResolver: AttributeResolver = (p) => {
  if (p.name.toLowerCase() === "displayname" && !p.sub) return { kind: "scalar", type: "string", column: sql.raw("g.display_name") };
  throw new ScimError(400, "Groups can be filtered by displayName only", "invalidFilter");
};

describe("compileFilter", () => {
  test("every literal is a bound parameter, never SQL text", () => {
    const evil = `x'); DROP TABLE users; --`;
    const q = compile(`userName eq "${evil}" or displayName co "${evil}" or emails[value sw "${evil}"]`);
    expect(q.sql).not.toContain("DROP");
    expect(q.params).toContain(evil.toLowerCase());
    expect(q.params).toContain(evil);
  });

  test("case-insensitive attributes: folded key columns get a lower-cased parameter; others compare lower()", () => {
    expect(compile('USERNAME EQ "Ada@X.org"')).toEqual({ sql: "(u.user_name_key IS ?)", params: ["ada@x.org"], typings: ["none"] } as never);
    expect(compile('displayName eq "Ada"').sql).toBe("(lower(u.display_name) IS lower(?))");
    expect(compile('externalId eq "AbC"')).toMatchObject({ sql: "(u.external_id IS ?)", params: ["AbC"] });
  });

  test("groups-style resolver: displayName only, not refused with allowNot: false", () => {
    expect(compile('displayName eq "QA"', groupsResolver, { allowNot: false }).sql).toBe("(lower(g.display_name) IS lower(?))");
    for (const f of ['members eq "1"', 'not (displayName eq "QA")', 'displayName eq "a" and not (displayName eq "b")'])
      expect(() => compile(f, groupsResolver, { allowNot: false })).toThrow(ScimError);
    expect(compile('not (displayName eq "QA")', groupsResolver).sql).toContain("NOT");
  });
});

describe("list helpers", () => {
  test("parseListParams defaults and bounds", () => {
    expect(parseListParams({})).toEqual({ startIndex: 1, count: 100, sortOrder: "ascending" });
    expect(parseListParams({ StartIndex: "0", COUNT: "5000", sortorder: "Descending", sortBy: "name.familyName" })).toEqual({
      startIndex: 1, count: 1000, sortOrder: "descending", sortBy: { name: "name", sub: "familyName" },
    });
    expect(parseListParams({ count: "-3" }).count).toBe(0);
    expect(() => parseListParams({ startIndex: "1.5" })).toThrow(ScimError);
    expect(parseListParams({ excludedAttributes: "members, meta" }).excludedAttributes).toEqual([{ name: "members" }, { name: "meta" }]);
  });

  test("listResponse and projectResource", () => {
    expect(listResponse([{ id: "1" }], 10, 3)).toEqual({ schemas: ["urn:ietf:params:scim:api:messages:2.0:ListResponse"], totalResults: 10, itemsPerPage: 1, startIndex: 3, Resources: [{ id: "1" }] });
    const g = { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], id: "h1", displayName: "QA", members: [{ value: 1, type: "User" }], meta: { resourceType: "Group" } };
    const schema = "urn:ietf:params:scim:schemas:core:2.0:Group";
    expect(projectResource(g, parseListParams({ excludedAttributes: "members" }), schema)).toEqual({ schemas: g.schemas, id: "h1", displayName: "QA", meta: g.meta });
    expect(projectResource(g, parseListParams({ attributes: "DISPLAYNAME" }), schema)).toEqual({ schemas: g.schemas, id: "h1", displayName: "QA" });
    expect(projectResource(g, parseListParams({ attributes: "members.value" }), schema)).toEqual({ schemas: g.schemas, id: "h1", members: [{ value: 1 }] });
    expect(projectResource(g, parseListParams({ excludedAttributes: "id,schemas" }), schema)).toEqual(g);
  });
});
