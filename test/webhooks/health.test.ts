import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { execute } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { firstAttemptIdSince } from "../../src/webhooks/health";
import { createTestApp } from "../helpers";
import { appsPerTest, type WebhookTestApp } from "./harness";

const { setup } = appsPerTest();
const delivery = (app: WebhookTestApp, id: number) => app.json("GET", `/api/admin/deliveries/${id}`).then((r) => r.body);

test("the attempt log keeps response headers and marks where a redelivery started", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [10] });
  rx.setHandler((_req, _rec, n) => new Response(n === 1 ? "boom" : "ok", { status: n === 1 ? 500 : 200, headers: { "x-receiver": `n${n}`, "retry-after": "1" } }));
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.updated", { id: 7 });
  const id = (await app.json("GET", `/api/admin/webhooks/${sub.id}/deliveries`)).body.items[0].id;
  await app.until(async () => (await delivery(app, id)).status === "delivered", "delivered");
  expect((await app.json("POST", `/api/admin/deliveries/${id}/redeliver`)).status).toBe(202);
  const d = await app.until(async () => {
    const x = await delivery(app, id);
    return x.status === "delivered" && x.attempts.length === 3 && x;
  }, "delivered again");
  expect(d.attempts.map((a: any) => [a.statusCode, a.responseHeaders["x-receiver"], a.cycleAttempt, a.redelivery])).toEqual([
    [500, "n1", 1, false],
    [200, "n2", 2, false],
    [200, "n3", 1, true],
  ]);
  expect(d.attempts[0].responseHeaders["content-type"]).toStartWith("text/plain");
});

test("an attempt without a response has no response headers", async () => {
  const { app } = setup({ webhookRetrySchedule: [10] });
  const sub = await app.subscribe({ url: "http://127.0.0.1:9/closed" });
  await app.publish("case.updated", { id: 1 });
  const id = (await app.json("GET", `/api/admin/webhooks/${sub.id}/deliveries`)).body.items[0].id;
  const d = await app.until(async () => {
    const x = await delivery(app, id);
    return x.status === "failed" && x;
  }, "failed");
  expect(d.attempts.map((a: any) => [a.statusCode, a.responseHeaders])).toEqual([[null, null], [null, null]]);
  expect(d.attempts[0].error).toBeString();
});

test("health: failing since with the last error, waiting retries, and the last day's success rate", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [60_000] });
  const healthy = await app.subscribe({ url: rx.url + "?ok" });
  const failing = await app.subscribe({ url: rx.url + "?fail" });
  rx.setHandler((req) => (new URL(req.url).search === "?fail" ? new Response("nope", { status: 503, headers: { "retry-after": "3600" } }) : new Response("ok")));
  const fresh = (await app.json("GET", `/api/admin/webhooks/${healthy.id}/health`)).body;
  expect(fresh).toEqual({
    enabled: true, disabledReason: null, failingSince: null, lastSuccessAt: null, lastError: null,
    pending: 0, waitingRetries: 0, nextRetryAt: null, lastDay: { attempts: 0, succeeded: 0, successRate: null },
  });
  for (let i = 1; i <= 3; i++) await app.publish("case.deleted", { id: i });
  await rx.waitFor(6);
  const ok = await app.until(async () => {
    const h = (await app.json("GET", `/api/admin/webhooks/${healthy.id}/health`)).body;
    return h.lastDay.attempts === 3 && h;
  }, "3 attempts on the healthy one");
  expect(ok).toMatchObject({ failingSince: null, lastError: null, pending: 0, waitingRetries: 0, lastDay: { attempts: 3, succeeded: 3, successRate: 1 } });
  expect(Date.parse(ok.lastSuccessAt)).toBeGreaterThan(Date.now() - 60_000);
  const bad = await app.until(async () => {
    const h = (await app.json("GET", `/api/admin/webhooks/${failing.id}/health`)).body;
    return h.waitingRetries === 3 && h;
  }, "3 waiting retries on the failing one");
  expect(bad).toMatchObject({ pending: 3, waitingRetries: 3, lastDay: { attempts: 3, succeeded: 0, successRate: 0 } });
  expect(Date.parse(bad.failingSince)).toBeGreaterThan(Date.now() - 60_000);
  expect(bad.lastError).toMatchObject({ statusCode: 503, error: "HTTP 503" });
  expect(Date.parse(bad.nextRetryAt)).toBeGreaterThan(Date.now() + 3_000_000);
  expect((await app.json("GET", "/api/admin/webhooks/999/health")).status).toBe(404);
});

test("firstAttemptIdSince finds the first attempt at or after a time by bisection, across gaps in the ids", async () => {
  const t = createTestApp();
  try {
    const db = t.ctx.db;
    expect(await firstAttemptIdSince(db, 0)).toBe(1);
    // ids 10, 20, …, 1000 at times 100, 200, …, 10 000
    await writeTransaction(db, async (tx) => {
      for (let i = 1; i <= 100; i++) await execute(tx, sql`INSERT INTO webhook_attempts (id, delivery_id, started_at, duration_ms, url) VALUES (${i * 10}, 1, ${i * 100}, 1, 'x')`);
    });
    expect(await firstAttemptIdSince(db, 0)).toBe(10);
    expect(await firstAttemptIdSince(db, 100)).toBe(10);
    expect(await firstAttemptIdSince(db, 101)).toBe(20);
    expect(await firstAttemptIdSince(db, 5_050)).toBe(510);
    expect(await firstAttemptIdSince(db, 10_000)).toBe(1000);
    expect(await firstAttemptIdSince(db, 10_001)).toBe(1001);
  } finally {
    t.close();
  }
});

test("the event catalog lists every event with its trigger, for the console's event picker", async () => {
  const t = createTestApp();
  try {
    const r = (await (await t.admin("GET", "/api/admin/webhooks/events")).json()) as { items: { name: string; trigger: string }[] };
    expect(r.items.length).toBe(29);
    expect(r.items[0]).toEqual({ name: "case.created", trigger: "A test case is created" });
    expect((await t.request("GET", "/api/admin/webhooks/events")).status).toBe(401);
  } finally {
    t.close();
  }
});
