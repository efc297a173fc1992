/**
 * SCIM's services on PostgreSQL: the same code and SQL as on SQLite — tokens (lookup by hash,
 * revocation, the switch), users (create, the `userName eq` lookup, manager references, PATCH,
 * deactivation leaving every group), groups (members as one string, PATCH, PUT, rename, delete),
 * workspace scopes, and the provisioning activity log (batch write, list, retention). Real
 * services over a real server (test/support/postgres.ts).
 */
import { expect, test } from "bun:test";
import postgres from "postgres";
import { testConfig } from "../../src/config";
import type { AppContext } from "../../src/context";
import type { Db } from "../../src/db/store";
import { addWorkspaceMember, createWorkspace, getWorkspace, updateWorkspace } from "../../src/directory/workspaces";
import { silentLogger } from "../../src/log";
import { activityRecorder, listActivity, purgeActivity } from "../../src/scim/activity/service";
import { createGroupService } from "../../src/scim/groups/service";
import { createScimToken, listScimTokens, revokeScimToken, scimEnabledReader, setScimEnabled, tokenVerifier } from "../../src/scim/tokens/service";
import { stateFromBody } from "../../src/scim/users/rules";
import { createUsersService } from "../../src/scim/users/service";
import { usePostgresForTest } from "../support/postgres";

let sql: postgres.Sql;
let db: Db;
let ctx: AppContext;

usePostgresForTest("scim", async (pg) => {
  ({ sql, db } = pg);
  ctx = { db, config: testConfig({ dataDir: "/nonexistent", adminToken: "x".repeat(24), baseUrl: "https://gatehouse.test", scimEnabled: true }), log: silentLogger } as AppContext;
});

const ENTERPRISE = "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User";
const user = (userName: string, extra: Record<string, unknown> = {}) =>
  stateFromBody({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, name: { givenName: "Given", familyName: userName.split("@")[0] }, ...extra }, { requireNames: true, activeWhenOmitted: true });
const list = (filter: string) => ({ filter, startIndex: 1, count: 100 }) as never;

test("tokens: found by hash, a live name taken once (case-insensitively), revoked at once; the SCIM switch persists", async () => {
  const verify = tokenVerifier(db);
  const created = await createScimToken(db, "Entra");
  expect(await verify(created.token)).toEqual({ id: created.id, workspaceId: null, workspaceArchived: false });
  expect(await verify(`${created.token}x`)).toBeNull();
  await expect(createScimToken(db, "ENTRA")).rejects.toThrow(/already named/);
  const ws = await createWorkspace(db, "Berlin");
  const scoped = await createScimToken(db, "Okta Berlin", ws.id);
  expect((await listScimTokens(db)).map((t) => [t.name, t.workspaceId])).toEqual([["Entra", null], ["Okta Berlin", ws.id]]);
  await updateWorkspace(db, ws.id, { archived: true });
  expect((await getWorkspace(db, ws.id)).archived).toBe(true);
  await expect(createScimToken(db, "late", ws.id)).rejects.toThrow(/archived/);
  expect(await revokeScimToken(db, created.id)).toBe(true);
  expect(await verify(created.token)).toBeNull();
  expect(await revokeScimToken(db, 424242)).toBe(false);
  expect((await verify(scoped.token))?.workspaceArchived).toBe(true);
  const enabled = scimEnabledReader(db, ctx.config);
  expect(await enabled()).toBe(true);
  await setScimEnabled(db, false);
  expect(await enabled()).toBe(false);
  await setScimEnabled(db, true);
});

test("users: create, the userName lookup, manager references within a scope, PATCH, deactivation leaves every group", async () => {
  const users = createUsersService(ctx);
  const groups = createGroupService(ctx);
  const boss = await users.create(user("boss@pg.example"));
  const ada = await users.create(user("ada@pg.example", { emails: [{ value: "ada@pg.example", primary: true }], [ENTERPRISE]: { manager: { value: boss.id } } }));
  expect(ada[ENTERPRISE]).toEqual({ manager: { value: boss.id, $ref: `https://gatehouse.test/scim/v2/Users/${boss.id}`, displayName: `Given boss` } });
  const found = await users.list(list('userName eq "ADA@pg.example"'));
  expect([found.totalResults, (found.Resources[0] as { id: string }).id]).toEqual([1, ada.id]);
  // a workspace that has Ada but not her manager sees the manager's value only
  const ws = await createWorkspace(db, "Paris");
  await addWorkspaceMember(db, ws.id, Number(ada.id));
  expect((await users.get(ada.id, {}, { workspaceId: ws.id }))[ENTERPRISE]).toEqual({ manager: { value: boss.id } });
  await expect(users.get(boss.id, {}, { workspaceId: ws.id })).rejects.toThrow(/not found/);

  const patched = await users.patch(ada.id, [{ op: "replace", path: "title", value: "Engineer" }] as never);
  expect(patched.title).toBe("Engineer");
  const team = await groups.create({ displayName: "Team", members: [{ value: ada.id }, { value: boss.id }] } as never);
  await users.deactivate(ada.id);
  expect((await users.get(ada.id)).active).toBe(false);
  expect(JSON.parse((await groups.get(team.id)) as string).members).toEqual([{ value: Number(boss.id), type: "User" }]);
  expect((await users.get(ada.id, { attributes: [{ name: "groups" }] } as never)).groups).toBeUndefined();
  expect((await users.get(boss.id, { attributes: [{ name: "groups" }] } as never)).groups).toEqual([{ value: team.id, $ref: `https://gatehouse.test/scim/v2/Groups/${team.id}`, display: "Team", type: "direct" }]);
});

test("groups: the member list as one string, PATCH and PUT of members and name, a duplicate name refused, delete", async () => {
  const users = createUsersService(ctx);
  const groups = createGroupService(ctx);
  const ids: number[] = [];
  for (const n of ["g1", "g2", "g3"]) ids.push(Number((await users.create(user(`${n}@pg.example`))).id));
  const made = await groups.create({ displayName: "Platform", members: ids.map((id) => ({ value: String(id) })) } as never);
  const members = (g: unknown) => (typeof g === "string" ? JSON.parse(g) : g).members;
  expect(members(made.resource)).toEqual(ids.map((value) => ({ value, type: "User" })));
  expect(members(await groups.patch(made.id, [{ op: "remove", path: `members[value eq "${ids[0]}"]` }] as never))).toEqual(ids.slice(1).map((value) => ({ value, type: "User" })));
  const withNames = await groups.get(made.id, { attributes: [{ name: "members", sub: "display" }] } as never);
  expect(members(withNames)).toEqual([{ display: "Given g2" }, { display: "Given g3" }]);
  await groups.create({ displayName: "Web" } as never);
  await expect(groups.patch(made.id, [{ op: "replace", path: "displayName", value: "WEB" }] as never)).rejects.toThrow(/already exists/);
  const replaced = await groups.replace(made.id, { displayName: "Core", members: [{ value: String(ids[0]) }] } as never);
  expect([JSON.parse(replaced as string).displayName, members(replaced)]).toEqual(["Core", [{ value: ids[0], type: "User" }]]);
  expect((await groups.list(list('displayName eq "core"'))).totalResults).toBe(1);
  await groups.delete(made.id);
  await expect(groups.get(made.id)).rejects.toThrow(/not found/);
});

test("the provisioning activity log: queued rows written in one batch, listed with filters, purged by age", async () => {
  const recorder = activityRecorder(ctx);
  const at = Date.now();
  for (let i = 0; i < 3; i++)
    recorder.record({ at: at + i, tokenId: 1, tokenName: "Entra", operation: "create", resourceType: "User", resourceId: String(i), resourceName: `user ${i}`, status: i === 2 ? 400 : 201, scimType: i === 2 ? "invalidValue" : null, detail: null, requestId: `r${i}` });
  await recorder.flush();
  const failures = await listActivity(ctx, { outcome: "failure" } as never);
  expect([failures.total, failures.items[0]?.resourceName]).toEqual([1, "user 2"]);
  expect((await listActivity(ctx, { q: "USER" } as never)).total).toBe(3);
  expect(await purgeActivity(db, at + 1)).toBe(true);
  expect((await listActivity(ctx, {} as never)).items.map((e) => e.resourceId)).toEqual(["2", "1"]);
});
