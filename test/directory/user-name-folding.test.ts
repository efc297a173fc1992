import { afterAll, expect, test } from "bun:test";
import { migrateDatabase } from "../../src/server/migrate";
import { caseFoldKey } from "../../src/directory/tables";
import { testOnSqlite } from "../helpers";
import { createScimTestApp, expectScimError, json, USER_SCHEMA } from "../scim/helpers";

const t = await createScimTestApp();
afterAll(() => t.close());

const user = (userName: string, extra: Record<string, unknown> = {}) => ({
  schemas: [USER_SCHEMA], userName, name: { givenName: "A", familyName: "B" }, ...extra,
});

test("caseFoldKey: NFC and full case folding", () => {
  expect(caseFoldKey("jose\u0301")).toBe(caseFoldKey("jos\u00e9"));
  expect(caseFoldKey("straße")).toBe(caseFoldKey("STRASSE"));
  expect(caseFoldKey("ﬁle")).toBe("file");
  expect(caseFoldKey("ΟΔΟΣ")).toBe(caseFoldKey("οδος"));
  expect(caseFoldKey("Ana@Example.COM")).toBe("ana@example.com");
});

test.each([
  ["jos\u00e9@example.com", "jose\u0301@example.com"],
  ["straße@example.com", "STRASSE@example.com"],
  ["ﬁle@example.com", "file@example.com"],
])("%s and %s are one userName: the second is a duplicate (no second user, no second seat)", async (first, second) => {
  const created = await t.scim("POST", "/Users", user(first));
  expect(created.status).toBe(201);
  await expectScimError(await t.scim("POST", "/Users", user(second)), 400, "invalidValue");
  const found = await json(await t.scim("GET", `/Users?filter=${encodeURIComponent(`userName eq "${second}"`)}`));
  expect(found.totalResults).toBe(1);
  expect(found.Resources[0].userName).toBe(first);
});

test.each([
  ["NUL", "a\u0000b@example.com"],
  ["a C0 control", "a\u0007b@example.com"],
  ["a newline", "a\nb@example.com"],
  ["a lone surrogate", "a\ud800b@example.com"],
])("a userName with %s → 400 invalidValue", async (_, userName) => {
  const body = await expectScimError(await t.scim("POST", "/Users", user(userName)), 400, "invalidValue");
  expect(body.detail).toContain("control characters or unpaired surrogates");
});

test("an e-mail value with a control character or a lone surrogate → 400 invalidValue", async () => {
  for (const value of ["x\u0001y@example.com", "x\udc00y@example.com"])
    await expectScimError(await t.scim("POST", "/Users", user("clean@example.com", { emails: [{ value, primary: true }] })), 400, "invalidValue");
});

testOnSqlite("existing databases: the key migration re-keys users, and reports collisions instead of merging them (SQLite files of older releases; PostgreSQL databases start at today's keys)", async () => {
  const db = t.ctx.sqlite!;
  const insert = (userName: string, key: string) =>
    (db.query("INSERT INTO users (user_name, user_name_key, display_name, created_at, updated_at) VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z') RETURNING id").get(userName, key, userName) as { id: number }).id;
  // As an older release stored them: keys lower-cased only.
  const a = insert("Maß@legacy.example", "maß@legacy.example");
  const b = insert("MASS@legacy.example", "mass@legacy.example");
  const c = insert("ﬂow@legacy.example", "ﬂow@legacy.example");
  db.query("DELETE FROM settings WHERE key = 'directory.user_keys_folded'").run();

  const reported: string[] = [];
  migrateDatabase(t.ctx.db, (line) => reported.push(line));
  expect(reported).toHaveLength(1);
  expect(reported[0]).toContain(`id ${a} "Maß@legacy.example"`);
  expect(reported[0]).toContain(`id ${b} "MASS@legacy.example"`);
  expect(reported[0]).toContain("never merged");
  const keyOf = (id: number) => (db.query("SELECT user_name_key AS k FROM users WHERE id = ?").get(id) as { k: string }).k;
  expect([keyOf(a), keyOf(b), keyOf(c)]).toEqual(["maß@legacy.example", "mass@legacy.example", "flow@legacy.example"]);

  // Both of the pair stay usable, and a newcomer folding to them is refused.
  expect((await t.scim("PATCH", `/Users/${a}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "title", value: "kept" }] })).status).toBe(200);
  await expectScimError(await t.scim("POST", "/Users", user("mass@LEGACY.example")), 400, "invalidValue");

  // Reported at every start until an admin resolves it; then silent, and the marker is set.
  const again: string[] = [];
  migrateDatabase(t.ctx.db, (line) => again.push(line));
  expect(again).toHaveLength(1);
  expect((await t.scim("PATCH", `/Users/${b}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "userName", value: "mass.renamed@legacy.example" }] })).status).toBe(200);
  const resolved: string[] = [];
  migrateDatabase(t.ctx.db, (line) => resolved.push(line));
  expect(resolved).toEqual([]);
  expect(keyOf(a)).toBe("mass@legacy.example");
  expect(db.query("SELECT value FROM settings WHERE key = 'directory.user_keys_folded'").get()).toEqual({ value: "2" });
});

test("user names compare after NFKC: a fullwidth look-alike of a taken name is a duplicate", async () => {
  expect((await t.scim("POST", "/Users", user("alice@nfkc.example"))).status).toBe(201);
  await expectScimError(await t.scim("POST", "/Users", user("ａｌｉｃｅ@nfkc.example")), 400, "invalidValue");
  const found = await (await t.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "ＡＬＩＣＥ@nfkc.example"')}`)).json() as { totalResults: number };
  expect(found.totalResults).toBe(1);
});

test("one rule for every name: a group or workspace name with a control character is refused", async () => {
  for (const displayName of ["\u0000", "Eng\u0007", "x\udc00"])
    await expectScimError(await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName }), 400, "invalidValue");
  const group = (await (await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "Clean" })).json()) as { id: string };
  await expectScimError(await t.scim("PATCH", `/Groups/${group.id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "displayName", value: "a\u001bb" }] }), 400, "invalidValue");
  await expectScimError(await t.scim("PUT", `/Groups/${group.id}`, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "\u0000" }), 400, "invalidValue");
  expect((await t.admin("POST", "/api/admin/workspaces", { name: "Bad\u0000name" })).status).toBe(400);
});

test("one rule for every name: SCIM, API and admin token names with a control character are refused, and no token is made", async () => {
  const before = async (path: string) => {
    const listed = (await (await t.admin("GET", path)).json()) as unknown[] | { items: unknown[] };
    return (Array.isArray(listed) ? listed : listed.items).length;
  };
  for (const [path, extra] of [["/api/admin/scim-tokens", {}], ["/api/admin/api-tokens", {}], ["/api/admin/admin-tokens", { role: "viewer", expiresInDays: 30 }]] as const) {
    const count = await before(path);
    for (const name of ["a\u0000b", "line\r\nX-Injected: yes", "x\udc00"]) {
      const r = await t.admin("POST", path, { name, ...extra });
      expect(`${path} ${JSON.stringify(name)} → ${r.status}`).toBe(`${path} ${JSON.stringify(name)} → 400`);
      expect(JSON.stringify(await r.json())).toContain("control characters");
    }
    expect(await before(path)).toBe(count);
    expect((await t.admin("POST", path, { name: "Clean name", ...extra })).status).toBe(201);
  }
});

test("NUL (U+0000) is refused wherever a value would be stored or filtered on: 400, never a 500 (PostgreSQL's text cannot hold it)", async () => {
  for (const extra of [{ title: "a\u0000b" }, { nickName: "\u0000" }, { emails: [{ value: "nul@x.example", type: "w\u0000rk" }] }, { "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User": { department: "R\u0000D" } }])
    expect((await expectScimError(await t.scim("POST", "/Users", user("nul@x.example", extra)), 400, "invalidValue")).detail).toContain("NUL");
  const created = await json(await t.scim("POST", "/Users", user("nul@x.example")));
  await expectScimError(await t.scim("PATCH", `/Users/${created.id}`, { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "add", path: "title", value: "x\u0000" }] }), 400, "invalidValue");
  await expectScimError(await t.scim("GET", `/Users?filter=${encodeURIComponent('title eq "a\\u0000"')}`), 400, "invalidFilter");
  await expectScimError(await t.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "a\\u0000"')}`), 400, "invalidFilter");
  await expectScimError(await t.scim("POST", "/Groups", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"], displayName: "NUL team", externalId: "e\u0000" }), 400, "invalidValue");
  expect((await json(await t.scim("GET", `/Users/${created.id}`))).title).toBeUndefined();
});
