import { afterAll, describe, expect, test } from "bun:test";
import { USER_COLUMN_MAP } from "../../../src/directory/user-columns";
import { findAttribute, userSchema } from "../../../src/scim/users/schema";
import { createScimTestApp, json, newUser, PATCH_SCHEMA } from "../helpers";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../../src/db/statement";

/**
 * The column map (src/directory/user-columns.ts) is the one list of the User's column attributes:
 * each entry is an attribute of the User schema, and each one is written by POST and PATCH,
 * rendered and filtered through it, stored in its column (not in the profile document).
 */
const t = await createScimTestApp();
afterAll(() => t.close());

/** A value of the entry's kind that differs from the defaults. */
const sample = (c: (typeof USER_COLUMN_MAP)[number], n: number) =>
  c.kind === "boolean" ? false : c.kind === "userType" ? "billing" : c.field === "userName" ? `col${n}@example.com` : `${c.field}-${n}`;
const get = (resource: Record<string, any>, path: string): unknown => path.split(".").reduce<any>((o, k) => o?.[k], resource);

describe("the User column map", () => {
  test("every entry is an attribute of the User schema", () => {
    for (const c of USER_COLUMN_MAP) {
      const [top, sub] = c.attribute.split(".");
      const def = findAttribute(userSchema.attributes, top!);
      expect(def, c.attribute).toBeDefined();
      if (sub) expect(findAttribute(def!.subAttributes, sub), c.attribute).toBeDefined();
    }
    expect(new Set(USER_COLUMN_MAP.map((c) => c.field)).size).toBe(USER_COLUMN_MAP.length);
  });

  test("POST stores each entry in its column: rendered, found by a filter on it, absent from the profile", async () => {
    const body: Record<string, any> = newUser("col0@example.com");
    for (const c of USER_COLUMN_MAP) {
      if (c.field === "userName") continue;
      const [top, sub] = c.attribute.split(".");
      if (sub) body[top!] = { ...body[top!], [sub]: sample(c, 0) };
      else body[top!] = sample(c, 0);
    }
    const created = await json(await t.scim("POST", "/Users", body));
    for (const c of USER_COLUMN_MAP) {
      const want = c.field === "userName" ? "col0@example.com" : sample(c, 0); // displayName is given, so rendered as given
      expect(get(created, c.attribute), c.attribute).toEqual(want);
      const literal = typeof want === "string" ? JSON.stringify(want) : String(want);
      const found = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent(`${c.attribute} eq ${literal}`)}`));
      expect(found.Resources.map((r: { id: string }) => r.id), c.attribute).toContain(created.id);
    }
    const [row] = await rowsOf<{ profile: string }>(t.ctx.db, sql`SELECT profile FROM users WHERE id = ${Number(created.id)}`);
    expect(JSON.parse(row.profile)).toEqual({});
  });

  test("PATCH by each entry's path sets it; remove unassigns it, except userName", async () => {
    const created = await json(await t.scim("POST", "/Users", newUser("col1@example.com")));
    for (const c of USER_COLUMN_MAP) {
      const value = sample(c, 1);
      const r = await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: c.attribute, value }] });
      expect(r.status, c.attribute).toBe(200);
      expect(get(await json(r), c.attribute), c.attribute).toEqual(value);
    }
    for (const c of USER_COLUMN_MAP) {
      const r = await t.scim("PATCH", `/Users/${created.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "remove", path: c.attribute }] });
      if (c.field === "userName" || c.attribute === "name.givenName" || c.attribute === "name.familyName") {
        expect(r.status, c.attribute).toBe(400); // required
        continue;
      }
      expect(r.status, c.attribute).toBe(200);
      const after = await json(r);
      if (c.kind === "boolean") expect(get(after, c.attribute)).toBe(false);
      else if (c.kind === "userType") expect(get(after, c.attribute)).toBe("regular");
      else if (c.attribute === "displayName") expect(after.displayName).toBe("givenName-1 familyName-1"); // resolved again (spec 2.1)
      else expect(get(after, c.attribute), c.attribute).toBeUndefined();
    }
  });
});
