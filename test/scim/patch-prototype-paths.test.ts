import { afterAll, expect, test } from "bun:test";
import { createScimTestApp, expectScimError, json, PATCH_SCHEMA, USER_SCHEMA } from "./helpers";

const t = await createScimTestApp();
afterAll(() => t.close());

const PROTOTYPE_PATHS = ["constructor", "name.constructor", "__proto__", "name.__proto__", "toString", "hasOwnProperty", "emails.constructor", `${USER_SCHEMA}:constructor`];

test.each(PROTOTYPE_PATHS)("PATCH path %s is an unknown attribute (400 invalidPath), never a lookup on Object.prototype", async (path) => {
  const user = await json(await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: `p-${Bun.hash(path)}@example.com`, name: { givenName: "A", familyName: "B" } }));
  for (const op of ["add", "replace", "remove"])
    await expectScimError(await t.scim("PATCH", `/Users/${user.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op, path, value: "x" }] }), 400, "invalidPath");
  const group = await json(await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: `G ${path}` }));
  await expectScimError(await t.scim("PATCH", `/Groups/${group.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path, value: "x" }] }), 400, "invalidPath");
  const after = await json(await t.scim("GET", `/Users/${user.id}`));
  expect(after.name).toEqual({ givenName: "A", familyName: "B" });
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, "x")).toBe(false);
});
