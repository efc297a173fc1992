import { afterAll, expect } from "bun:test";
import { testOnSqlite } from "../helpers";
import { createScimTestApp } from "../scim/helpers";
import { apiOf, expectFullThenRecovered } from "./full-disk";

const t = await createScimTestApp();
afterAll(() => t.close());

testOnSqlite("a full database: writes answer 507 in each protocol's format, /readyz says not writable, reads go on, and all recovers once space is freed (SQLite's max_page_count stands in for the full disk)", async () => {
  const api = await apiOf(t);
  expect((await t.request("GET", "/readyz")).status).toBe(200);

  // SQLite's max_page_count stands in for a full disk: the same SQLITE_FULL on the write that hits it.
  const pages = (t.ctx.sqlite!.query("PRAGMA page_count").get() as { page_count: number }).page_count;
  t.ctx.sqlite!.exec(`PRAGMA max_page_count = ${pages + 4}`);
  await expectFullThenRecovered(t, api, () => t.ctx.sqlite!.exec("PRAGMA max_page_count = 1073741823"));
});
