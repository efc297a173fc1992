import { afterAll, expect } from "bun:test";
import { testOnSqlite } from "../helpers";
import { createScimTestApp, expectScimError, USER_SCHEMA } from "../scim/helpers";

const t = await createScimTestApp();
afterAll(() => t.close());

testOnSqlite("a full database: writes answer 507 in each protocol's format, /readyz says not writable, reads go on, and all recovers once space is freed (SQLite's max_page_count stands in for the full disk)", async () => {
  const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "full" })).json()) as any).token;
  const api = (method: string, path: string, body?: unknown) => t.request(method, path, { body, headers: { token } });
  expect((await t.request("GET", "/readyz")).status).toBe(200);

  // SQLite's max_page_count stands in for a full disk: the same SQLITE_FULL on the write that hits it.
  const pages = (t.ctx.sqlite!.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  t.ctx.sqlite!.exec(`PRAGMA max_page_count = ${pages + 4}`);
  let refused: Response | null = null;
  for (let i = 0; i < 50 && !refused; i++) {
    const r = await api("POST", "/api/v1/project", { title: `Full ${i}`, code: `F${i}`, description: "x".repeat(10_000) });
    if (r.status !== 200) refused = r;
  }
  expect(refused?.status).toBe(507);
  const body = (await refused!.json()) as any;
  expect(body).toMatchObject({ status: false, error: { code: "insufficient_storage" } });
  expect(body.error.message).toContain("full");

  let scim: Response | null = null;
  for (let i = 0; i < 50 && !scim; i++) {
    const r = await t.scim("POST", "/Users", { schemas: [USER_SCHEMA], userName: `full${i}@example.com`, name: { givenName: "F", familyName: "U" }, title: "t".repeat(1000), displayName: "d".repeat(1000) });
    if (r.status !== 201) scim = r;
  }
  await expectScimError(scim!, 507);

  const ready = await t.request("GET", "/readyz");
  expect(ready.status).toBe(503);
  expect(((await ready.json()) as any).database).toContain("not writable");
  expect((await api("GET", "/api/v1/project")).status).toBe(200);
  expect((await t.request("GET", "/healthz")).status).toBe(200);

  t.ctx.sqlite!.exec("PRAGMA max_page_count = 1073741823");
  expect((await t.request("GET", "/readyz")).status).toBe(200);
  expect((await api("POST", "/api/v1/project", { title: "After", code: "AFTER", description: "x".repeat(10_000) })).status).toBe(200);
});
