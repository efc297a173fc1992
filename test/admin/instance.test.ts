import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());
const json = async (r: Response) => (await r.json()) as any;

test("instance: version, uptime, database size and webhook backlog", async () => {
  const i = await json(await t.admin("GET", "/api/admin/instance"));
  expect(i).toMatchObject({ version: "test", baseUrl: "https://gatehouse.test", webhooks: { subscriptions: 0, disabledSubscriptions: 0, backlog: 0 }, links: { openapi: "/openapi", metrics: "/metrics" } });
  expect(i.uptimeSeconds).toBeGreaterThanOrEqual(0);
  expect(i.database.sizeBytes).toBeGreaterThan(4096);
  expect(i.database.walBytes).toBeGreaterThanOrEqual(0);
  expect((await t.request("GET", "/api/admin/instance")).status).toBe(401);
});
