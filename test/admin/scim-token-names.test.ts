import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { runMigrations } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations.generated";
import { scimTokenCli } from "../../src/scim/cli";
import { createScimToken } from "../../src/scim/tokens/service";
import { createTestApp } from "../helpers";

/** Live SCIM token names are unique (the provisioning log tells IdP connections apart by them). */

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => ({ status: r.status, body: (await r.json()) as any });

test("a second live token with the same name (any case) is refused with 409; once revoked, the name is free again", async () => {
  const first = await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "Entra ID" }));
  expect(first.status).toBe(201);
  const again = await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "  entra id " }));
  expect(again.status).toBe(409);
  expect(again.body.error.message).toContain('"entra id"');
  expect((await json(await t.admin("GET", "/api/admin/scim-tokens"))).body.filter((x: any) => x.name.toLowerCase() === "entra id")).toHaveLength(1);
  // the refusal is in the audit log as a failure
  const entry = (await json(await t.admin("GET", "/api/admin/audit-log?action=scim_token.create&outcome=failure"))).body.items[0];
  expect(entry).toMatchObject({ outcome: "failure" });
  expect((await t.admin("DELETE", `/api/admin/scim-tokens/${first.body.id}`)).status).toBe(204);
  expect((await t.admin("POST", "/api/admin/scim-tokens", { name: "Entra ID" })).status).toBe(201);
});

test("concurrent creates of one name: exactly one wins (the unique index decides, not a read before the write)", async () => {
  const answers = await Promise.all(Array.from({ length: 8 }, () => t.admin("POST", "/api/admin/scim-tokens", { name: "Okta race" })));
  expect(answers.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409, 409, 409, 409]);
  await expect(createScimToken(t.ctx.db, "OKTA RACE")).rejects.toThrow(/already named/);
});

test("the CLI refuses a live name too: exit 1, the reason on stderr, no token on stdout", async () => {
  await createScimToken(t.ctx.db, "OneLogin");
  let out = "";
  let err = "";
  const code = await scimTokenCli(["create", "--name", "onelogin"], t.ctx, { out: (s) => (out += s), err: (s) => (err += s) });
  expect(code).toBe(1);
  expect(out).toBe("");
  expect(err).toContain('A live SCIM token is already named "onelogin"');
});

test("0023 renames live duplicates made before it (the oldest keeps the name); revoked tokens keep theirs", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "g.db"), { migrate: false });
  try {
    runMigrations(h.db, migrations.findIndex((m) => m.tag === "0023_scim_token_live_names"));
    const insert = h.sqlite.query("INSERT INTO scim_tokens (id, name, token_hash, created_at, revoked_at) VALUES (?, ?, ?, '2026-01-01T00:00:00.000Z', ?)");
    insert.run(1, "Entra ID", "h1", null);
    insert.run(2, "Entra ID", "h2", null);
    insert.run(3, "entra id", "h3", null);
    insert.run(4, "Entra ID", "h4", "2026-02-01T00:00:00.000Z");
    insert.run(5, "Okta", "h5", null);
    runMigrations(h.db);
    expect(h.sqlite.query("SELECT id, name FROM scim_tokens ORDER BY id").all()).toEqual([
      { id: 1, name: "Entra ID" },
      { id: 2, name: "Entra ID (token 2)" },
      { id: 3, name: "entra id (token 3)" },
      { id: 4, name: "Entra ID" },
      { id: 5, name: "Okta" },
    ]);
    expect(() => insert.run(6, "OKTA", "h6", null)).toThrow(/UNIQUE/);
  } finally {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
});
