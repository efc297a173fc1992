import { afterAll, expect, test } from "bun:test";
import { createScimTestApp, json, PATCH_SCHEMA, USER_SCHEMA } from "../../scim/helpers";

const t = await createScimTestApp();
afterAll(() => t.close());

test("API tokens and deactivated users: no token for a deactivated user (409); deactivation revokes, reactivation does not revive", async () => {
  const user = await json(await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: "dora@example.com", name: { givenName: "Dora", familyName: "D" } }));
  const issued = (await (await t.admin("POST", "/api/admin/api-tokens", { name: "dora's reporter", userId: Number(user.id) })).json()) as any;
  const use = (token: string) => t.request("GET", "/api/v1/project", { headers: { token } });
  expect((await use(issued.token)).status).toBe(200);

  expect((await t.scim("DELETE", `/Users/${user.id}`)).status).toBe(204);
  expect((await use(issued.token)).status).toBe(401);
  const refused = await t.admin("POST", "/api/admin/api-tokens", { name: "while away", userId: Number(user.id) });
  expect(refused.status).toBe(409);
  expect(((await refused.json()) as any).error.message).toContain("deactivated");

  const back = await t.scim("PATCH", `/Users/${user.id}`, { schemas: [PATCH_SCHEMA], Operations: [{ op: "replace", path: "active", value: true }] });
  expect(back.status).toBe(200);
  expect((await use(issued.token)).status).toBe(401);
  const listed = ((await (await t.admin("GET", "/api/admin/api-tokens")).json()) as any).items.find((x: any) => x.id === issued.id);
  expect(listed.revokedAt).not.toBeNull();
  const fresh = (await (await t.admin("POST", "/api/admin/api-tokens", { name: "dora again", userId: Number(user.id) })).json()) as any;
  expect((await use(fresh.token)).status).toBe(200);
});
