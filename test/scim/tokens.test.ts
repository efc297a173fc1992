import { afterAll, describe, expect, test } from "bun:test";
import { scimTokenCli } from "../../src/scim/cli";
import { createTestApp } from "../helpers";
import { expectScimError, json } from "./helpers";
import { sql } from "drizzle-orm";
import { execute, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";

const t = createTestApp();
afterAll(() => t.close());

describe("admin API /api/admin/scim-tokens", () => {
  test("requires the admin token", async () => {
    const r = await t.request("GET", "/api/admin/scim-tokens", { headers: { authorization: "Bearer wrong" } });
    expect(r.status).toBe(401);
    expect((await t.request("POST", "/api/admin/scim-tokens", { body: { name: "x" } })).status).toBe(401);
    expect((await t.request("GET", "/api/admin/scim")).status).toBe(401);
  });

  test("create shows the token once; list never shows it; stored only hashed; revoke is immediate", async () => {
    const r = await t.admin("POST", "/api/admin/scim-tokens", { name: "Entra ID" });
    expect(r.status).toBe(201);
    const created = await json(r);
    expect(Object.keys(created).sort()).toEqual(["createdAt", "id", "name", "token", "workspaceId"]);
    expect(created.workspaceId).toBeNull(); // an organization token
    expect(created.token).toMatch(/^scim_[A-Za-z0-9_-]{40,}$/);
    const listText = await (await t.admin("GET", "/api/admin/scim-tokens")).text();
    expect(listText).not.toContain(created.token);
    const list = JSON.parse(listText);
    expect(list).toContainEqual({ id: created.id, name: "Entra ID", workspaceId: null, createdAt: created.createdAt, lastUsedAt: null, revokedAt: null });
    const stored = JSON.stringify(await rowsOf(t.ctx.db, sql`SELECT * FROM scim_tokens`));
    expect(stored).not.toContain(created.token);

    const auth = { authorization: `Bearer ${created.token}` };
    expect((await t.request("GET", "/scim/v2/Users", { headers: auth })).status).toBe(200);
    await Bun.sleep(150); // "last used" is recorded off the request path, shortly after
    const used = (await json(await t.admin("GET", "/api/admin/scim-tokens"))).find((x: any) => x.id === created.id);
    expect(used.lastUsedAt).not.toBeNull();
    expect((await t.admin("DELETE", `/api/admin/scim-tokens/${created.id}`)).status).toBe(204);
    await expectScimError(await t.request("GET", "/scim/v2/Users", { headers: auth }), 401);
    const revoked = (await json(await t.admin("GET", "/api/admin/scim-tokens"))).find((x: any) => x.id === created.id);
    expect(revoked.revokedAt).not.toBeNull();
  });

  test("bad input → JSON API errors", async () => {
    expect((await t.admin("POST", "/api/admin/scim-tokens", { name: "" })).status).toBe(400);
    expect((await t.admin("POST", "/api/admin/scim-tokens", {})).status).toBe(400);
    expect((await t.admin("DELETE", "/api/admin/scim-tokens/99999")).status).toBe(404);
    expect((await t.admin("DELETE", "/api/admin/scim-tokens/abc")).status).toBe(400);
    expect((await t.admin("PATCH", "/api/admin/scim", { enabled: "yes" })).status).toBe(400);
  });

  test("GET/PATCH /api/admin/scim: the switch is persisted", async () => {
    expect(await json(await t.admin("GET", "/api/admin/scim"))).toEqual({ enabled: true, seats: { limit: null, regular: 0, readOnly: 0, billing: 0 } });
    expect((await json(await t.admin("PATCH", "/api/admin/scim", { enabled: false }))).enabled).toBe(false);
    const [row] = await rowsOf<{ value: string }>(t.ctx.db, sql`SELECT value FROM settings WHERE key = 'scim.enabled'`);
    expect(row.value).toBe("false");
    expect((await json(await t.admin("PATCH", "/api/admin/scim", { enabled: true }))).enabled).toBe(true);
  });

  test("GATEHOUSE_SCIM_ENABLED=false is the initial state until the admin toggles it", async () => {
    const o = createTestApp({ scimEnabled: false });
    try {
      const created = await json(await o.admin("POST", "/api/admin/scim-tokens", { name: "x" }));
      await expectScimError(await o.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${created.token}` } }), 403);
      await o.admin("PATCH", "/api/admin/scim", { enabled: true });
      expect((await o.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${created.token}` } })).status).toBe(200);
    } finally {
      o.close();
    }
  });
});

test("a revocation written by another process (the CLI) is honoured within the 1 s cache", async () => {
  const created = await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "other process" }));
  const auth = { authorization: `Bearer ${created.token}` };
  expect((await t.request("GET", "/scim/v2/Users", { headers: auth })).status).toBe(200);
  // not through this process's service: as `gatehouse scim-token revoke` in another process would
  await writeTransaction(t.ctx.db, (tx) => execute(tx, sql`UPDATE scim_tokens SET revoked_at = ${new Date().toISOString()} WHERE id = ${created.id}`));
  await Bun.sleep(1100);
  await expectScimError(await t.request("GET", "/scim/v2/Users", { headers: auth }), 401);
});

describe("CLI gatehouse scim-token", () => {
  const run = async (...argv: string[]) => {
    let out = "";
    let err = "";
    const code = await scimTokenCli(argv, t.ctx, { out: (s) => (out += s), err: (s) => (err += s) });
    return { code, out, err };
  };

  test("create prints only the token on stdout; it authenticates; list and revoke", async () => {
    const c = await run("create", "--name", "Okta");
    expect(c.code).toBe(0);
    expect(c.out).toMatch(/^scim_[A-Za-z0-9_-]+\n$/);
    const token = c.out.trim();
    expect((await t.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    const l = await run("list");
    expect(l.code).toBe(0);
    expect(l.out).toContain("\tOkta\t");
    expect(l.out).not.toContain(token);
    const id = l.out.split("\n").find((line) => line.includes("\tOkta\t"))!.split("\t")[0]!;
    expect((await run("revoke", id)).code).toBe(0);
    await expectScimError(await t.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${token}` } }), 401);
  });

  test("create --workspace ID makes a workspace token; list shows each token's scope", async () => {
    const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "CLI workspace" }));
    const c = await run("create", "--name", "Okta Berlin", `--workspace=${ws.id}`);
    expect(c.code).toBe(0);
    expect(c.err).toContain(`workspace ${ws.id}`);
    const l = await run("list");
    expect(l.out).toContain(`\tOkta Berlin\t${ws.id}\t`);
    expect(l.out).toMatch(/\tOkta\torganization\t/);
  });

  test("usage errors exit 2, unknown id exits 1", async () => {
    expect((await run()).code).toBe(2);
    expect((await run("create")).code).toBe(2);
    expect((await run("create", "--name")).code).toBe(2);
    expect((await run("create", "--nam", "x")).code).toBe(2);
    expect((await run("revoke")).code).toBe(2);
    expect((await run("revoke", "x")).code).toBe(2);
    expect((await run("revoke", "424242")).code).toBe(1);
    expect((await run("create", "--name", "x", "--workspace", "abc")).code).toBe(2);
    expect((await run("create", "--name", "x", "--workspace", "424242")).code).toBe(1); // no such workspace
    expect((await run("frobnicate")).code).toBe(2);
  });
});
