import { SCHEMA_VERSION } from "../../src/version";
import { afterAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { join } from "node:path";
import { createTestApp } from "../helpers";
import { onPostgres } from "../support/test-database";

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => (await r.json()) as any;

test("instance: version, uptime, database size and webhook backlog", async () => {
  const [before, uptimeBefore] = [Date.now(), process.uptime()];
  const i = await json(await t.admin("GET", "/api/admin/instance"));
  const [after, uptimeAfter] = [Date.now(), process.uptime()];
  expect(i).toMatchObject({ version: "test", schemaVersion: SCHEMA_VERSION, baseUrl: "https://gatehouse.test", webhooks: { subscriptions: 0, disabledSubscriptions: 0, backlog: 0 }, links: { openapi: "/openapi", metrics: "/metrics" } });
  // Uptime is the process's (whole seconds), and agrees with startedAt.
  const startedAt = Date.parse(i.startedAt);
  expect(i.uptimeSeconds).toBeGreaterThanOrEqual(Math.floor((before - startedAt) / 1000));
  expect(i.uptimeSeconds).toBeLessThanOrEqual(Math.ceil((after - startedAt) / 1000));
  expect(i.uptimeSeconds).toBeGreaterThanOrEqual(Math.floor(uptimeBefore) - 1);
  expect(i.uptimeSeconds).toBeLessThanOrEqual(Math.ceil(uptimeAfter));
  expect(i.database.sizeBytes).toBeGreaterThan(4096);
  if (onPostgres) {
    expect(i.database.walBytes).toBe(0); // the server's WAL is its own, not the database's
  } else {
    // The write-ahead log as the file system sees it: the migrations wrote to it, and a GET writes nothing.
    const wal = statSync(join(t.dir, "gatehouse.db-wal")).size;
    expect(wal).toBeGreaterThan(0);
    expect(i.database.walBytes).toBe(wal);
  }
  expect((await t.request("GET", "/api/admin/instance")).status).toBe(401);
});

test("instance: the webhook counts follow the subscriptions", async () => {
  const created = await json(await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/a", events: ["case.created"] }));
  await t.admin("POST", "/api/admin/webhooks", { url: "https://hooks.example.com/b", events: ["case.created"] });
  expect((await t.admin("PATCH", `/api/admin/webhooks/${created.id}`, { enabled: false })).status).toBe(200);
  const i = await json(await t.admin("GET", "/api/admin/instance"));
  expect(i.webhooks).toEqual({ subscriptions: 2, disabledSubscriptions: 1, backlog: 0 });
});
