import { afterEach, expect, test } from "bun:test";
import { perSubscriptionCap } from "../../src/webhooks/pacing";
import { startReceiver, webhookTestApp } from "./harness";

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

test("the per-subscription cap is always at least one slot below the global concurrency", () => {
  expect(perSubscriptionCap({ webhookConcurrency: 32, webhookPerSubscriptionConcurrency: 8 })).toBe(8);
  expect(perSubscriptionCap({ webhookConcurrency: 4, webhookPerSubscriptionConcurrency: 4 })).toBe(3);
  expect(perSubscriptionCap({ webhookConcurrency: 4, webhookPerSubscriptionConcurrency: 100 })).toBe(3);
  expect(perSubscriptionCap({ webhookConcurrency: 2, webhookPerSubscriptionConcurrency: 2 })).toBe(1);
});

test("both concurrency settings equal: a hanging endpoint does not delay another subscription's deliveries", async () => {
  const app = webhookTestApp({ webhookConcurrency: 4, webhookPerSubscriptionConcurrency: 4, webhookTimeoutMs: 30_000 });
  const hanging = startReceiver(() => hanging.hang());
  const healthy = startReceiver();
  cleanups.push(() => app.close(), () => hanging.stop(), () => healthy.stop());
  await app.subscribe({ url: hanging.url });
  await app.until(async () => true, "subscribed");
  for (let i = 1; i <= 8; i++) await app.publish("case.deleted", { id: i });
  await hanging.waitFor(3);
  await app.subscribe({ url: healthy.url });
  for (let i = 9; i <= 12; i++) await app.publish("case.deleted", { id: i });
  // The hanging endpoint holds 3 of the 4 slots for its 30 s timeout; the healthy one gets the 4th.
  await healthy.waitFor(4, 3000);
  expect(hanging.maxInFlight).toBe(3);
});

test("redelivering or recovering deliveries of a disabled subscription → 409, as /test does", async () => {
  const app = webhookTestApp({ webhookRetrySchedule: [10] });
  const rx = startReceiver(() => new Response("no", { status: 500 }));
  cleanups.push(() => app.close(), () => rx.stop());
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 1 });
  const failed = await app.until(async () => (await app.json("GET", `/api/admin/webhooks/${sub.id}/deliveries?status=failed`)).body.items[0]?.id, "a failed delivery");
  expect((await app.admin("PATCH", `/api/admin/webhooks/${sub.id}`, { enabled: false })).status).toBe(200);
  for (const [path, body] of [[`/api/admin/deliveries/${failed}/redeliver`, undefined], [`/api/admin/webhooks/${sub.id}/recover`, { since: 0 }], [`/api/admin/webhooks/${sub.id}/test`, { event: "case.deleted" }]] as const) {
    const r = await app.admin("POST", path, body);
    expect(r.status).toBe(409);
    expect(((await r.json()) as any).error.code).toBe("subscription_disabled");
  }
  expect((await app.json("GET", `/api/admin/deliveries/${failed}`)).body.status).toBe("failed");
});
