import { expect, test } from "bun:test";
import { testOnSqlite } from "../helpers";
import { Database } from "bun:sqlite";
import { Webhook } from "standardwebhooks";
import { metricsFor } from "../../src/lib/metrics";
import { EVENTS } from "../../src/webhooks/catalog";
import { publish, recordEvent } from "../../src/webhooks/publish";
import { sql } from "drizzle-orm";
import { execute, preparedQuery, rowsOf } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";
import { webhookSubscriptions } from "../../src/webhooks/tables";
import { appsPerTest, createProject, startReceiver, webhookTestApp, type WebhookTestApp } from "./harness";

const { setup, cleanups } = appsPerTest();
const delivery = (app: WebhookTestApp, id: number) => app.json("GET", `/api/admin/deliveries/${id}`).then((r) => r.body);
const deliveriesOf = (app: WebhookTestApp, subId: number, q = "") => app.json("GET", `/api/admin/webhooks/${subId}/deliveries?limit=500${q}`).then((r) => r.body);

test("a published event arrives signed, in the exact envelope, with the Standard Webhooks headers", async () => {
  const { app, rx } = setup();
  const sub = await app.subscribe({ url: rx.url, events: ["case.created"] });
  const before = Math.floor(Date.now() / 1000);
  await app.publish("case.created", EVENTS["case.created"].example, "DEMO");
  await rx.waitFor(1);
  const [r] = rx.received;
  expect(r!.headers["content-type"]).toBe("application/json");
  expect(r!.headers["user-agent"]).toBe("Gatehouse-Webhooks/test");
  expect(r!.headers["webhook-id"]).toMatch(/^msg_/);
  expect(r!.headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  const verified = new Webhook(sub.secret).verify(r!.body, r!.headers) as any;
  expect(Object.keys(verified)).toEqual(["event", "timestamp", "payload"]);
  expect(verified.event).toBe("case.created");
  expect(verified.payload).toEqual(EVENTS["case.created"].example);
  expect(Number.isInteger(verified.timestamp)).toBe(true);
  expect(verified.timestamp).toBeGreaterThanOrEqual(before);

  const page = await deliveriesOf(app, sub.id);
  const d = await app.until(async () => {
    const x = await delivery(app, page.items[0].id);
    return x.status === "delivered" && x;
  }, "delivered");
  expect(d.webhookId).toBe(r!.headers["webhook-id"]);
  expect(d.attempts.length).toBe(1);
  expect(d.attempts[0]).toMatchObject({ statusCode: 200, error: null, responseBody: "ok", url: rx.url });
  expect(d.attempts[0].requestHeaders["webhook-id"]).toBe(d.webhookId);
  const sub2 = (await app.json("GET", `/api/admin/webhooks/${sub.id}`)).body;
  expect(sub2.lastSuccessAt).not.toBeNull();
  const metrics = await metricsFor(app.ctx).render();
  expect(metrics).toContain('gatehouse_webhook_attempts_total{outcome="delivered"} 1');
  expect(metrics).toContain("gatehouse_webhook_backlog 0");
});

test("events outside the filter or project are not sent", async () => {
  const { app, rx } = setup();
  await createProject(app, "DEMO");
  await app.subscribe({ url: rx.url, events: ["suite.created"], project: "DEMO" });
  await app.publish("case.deleted", { id: 1 }, "DEMO");
  await app.publish("suite.created", EVENTS["suite.created"].example, "OTHER");
  await app.publish("suite.created", { ...EVENTS["suite.created"].example, id: 99 }, "DEMO");
  await rx.waitFor(1);
  await Bun.sleep(200);
  expect(rx.received.length).toBe(1);
  expect(JSON.parse(rx.received[0]!.body).payload.id).toBe(99);
});

test("500 then 200: retried with the same webhook-id and a fresh timestamp per attempt", async () => {
  // 1300 ms − 20% jitter is still > 1 s, so the second attempt's Unix-seconds timestamp must differ.
  const { app, rx } = setup({ webhookRetrySchedule: [1300] });
  rx.setHandler((_req, _rec, n) => (n === 1 ? new Response("boom", { status: 500 }) : new Response("ok")));
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.updated", { id: 7 });
  await rx.waitFor(2);
  const [a, b] = rx.received;
  expect(b!.headers["webhook-id"]).toBe(a!.headers["webhook-id"]);
  expect(b!.body).toBe(a!.body);
  expect(Number(b!.headers["webhook-timestamp"])).toBeGreaterThan(Number(a!.headers["webhook-timestamp"]));
  expect(() => new Webhook(sub.secret).verify(b!.body, b!.headers)).not.toThrow();
  const id = (await deliveriesOf(app, sub.id)).items[0].id;
  const d = await app.until(async () => {
    const x = await delivery(app, id);
    return x.status === "delivered" && x;
  }, "delivered after retry");
  expect(d.attempts.map((x: any) => x.statusCode)).toEqual([500, 200]);
  expect(d.attempts[0].responseBody).toBe("boom");
  // The log shows each attempt's headers as sent (the first was moved off the delivery row by the second).
  for (const [i, r] of [a!, b!].entries())
    for (const k of ["content-type", "user-agent", "webhook-id", "webhook-timestamp", "webhook-signature", "host"]) expect(d.attempts[i].requestHeaders[k]).toBe(r.headers[k]);
});

test("the log keeps the first 16 KB of a response body, with or without a Content-Length; an empty answer logs empty", async () => {
  const { app, rx } = setup();
  const big = "x".repeat(100 * 1024);
  const streamed = () =>
    new ReadableStream({
      pull(c) {
        c.enqueue(new TextEncoder().encode("y".repeat(8 * 1024)));
      },
    });
  rx.setHandler((_req, _rec, n) => (n === 1 ? new Response(big) : n === 2 ? new Response(streamed()) : new Response(null, { status: 204 })));
  const sub = await app.subscribe({ url: rx.url });
  for (const id of [1, 2, 3]) await app.publish("case.updated", { id });
  await rx.waitFor(3);
  const bodies = await app.until(async () => {
    const { items } = await deliveriesOf(app, sub.id);
    const all = await Promise.all(items.map((i: { id: number }) => delivery(app, i.id)));
    return all.every((d: any) => d.status === "delivered") && all.map((d: any): string => d.attempts[0].responseBody ?? "");
  }, "all delivered");
  expect((bodies as string[]).sort()).toEqual(["", "x".repeat(16 * 1024), "y".repeat(16 * 1024)]);
});

test("a receiver slower than the timeout fails the attempt; after the schedule the delivery is failed", async () => {
  const { app, rx } = setup({ webhookTimeoutMs: 200, webhookRetrySchedule: [30] });
  rx.setHandler(async () => {
    await Bun.sleep(1000);
    return new Response("too late");
  });
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 3 });
  const id = await app.until(async () => (await deliveriesOf(app, sub!.id, "&status=failed")).items[0]?.id, "failed delivery");
  const d = await delivery(app, id);
  expect(d.attempts.length).toBe(2);
  for (const a of d.attempts) {
    expect(a.statusCode).toBeNull();
    expect(a.error).toContain("timed out after 200 ms");
  }
  expect(d.lastError).toContain("timed out");
  expect((await app.json("GET", `/api/admin/webhooks/${sub.id}`)).body.failingSince).not.toBeNull();
});

test("3xx is not followed and counts as a failure", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [30] });
  const other = startReceiver();
  cleanups.push(() => other.stop());
  rx.setHandler(() => new Response(null, { status: 307, headers: { location: other.url } }));
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 4 });
  const id = await app.until(async () => (await deliveriesOf(app, sub!.id, "&status=failed")).items[0]?.id, "failed delivery");
  const d = await delivery(app, id);
  expect(d.attempts.map((a: any) => a.statusCode)).toEqual([307, 307]);
  expect(d.lastError).toBe("HTTP 307");
  expect(other.received.length).toBe(0);
});

test("410 Gone disables the subscription and stops its deliveries", async () => {
  const { app, rx } = setup();
  rx.setHandler(() => new Response("gone", { status: 410 }));
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 5 });
  const s = await app.until(async () => {
    const x = (await app.json("GET", `/api/admin/webhooks/${sub.id}`)).body;
    return !x.enabled && x;
  }, "disabled subscription");
  expect(s.disabledReason).toContain("410");
  const page = await deliveriesOf(app, sub.id);
  expect(page.items[0].status).toBe("failed");
  await app.publish("case.deleted", { id: 6 }); // not matched any more: the subscription is disabled
  await Bun.sleep(150);
  expect(rx.received.length).toBe(1);
  expect((await deliveriesOf(app, sub.id)).total).toBe(1);
});

test("429 with Retry-After waits at least that long before the next attempt", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [10] });
  rx.setHandler((_req, _rec, n) => (n === 1 ? new Response("slow down", { status: 429, headers: { "retry-after": "1" } }) : new Response("ok")));
  await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 8 });
  await rx.waitFor(2);
  expect(rx.received[1]!.at - rx.received[0]!.at).toBeGreaterThanOrEqual(950);
});

test("503 with an HTTP-date Retry-After is honoured too", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [10] });
  rx.setHandler((_req, _rec, n) =>
    n === 1 ? new Response("maintenance", { status: 503, headers: { "retry-after": new Date(Date.now() + 2000).toUTCString() } }) : new Response("ok"),
  );
  await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 9 });
  await rx.waitFor(2);
  // HTTP dates have 1 s resolution, so the wait is at least ~1 s.
  expect(rx.received[1]!.at - rx.received[0]!.at).toBeGreaterThanOrEqual(950);
});

test("after a secret rotation both the old and the new secret verify each request", async () => {
  const { app, rx } = setup();
  const sub = await app.subscribe({ url: rx.url });
  const rotated = (await app.json("POST", `/api/admin/webhooks/${sub.id}/rotate-secret`)).body;
  await app.publish("run.deleted", { id: 301 });
  await rx.waitFor(1);
  const r = rx.received[0]!;
  expect(r.headers["webhook-signature"]!.split(" ").length).toBe(2);
  expect(() => new Webhook(sub.secret).verify(r.body, r.headers)).not.toThrow();
  expect(() => new Webhook(rotated.secret).verify(r.body, r.headers)).not.toThrow();
});

test("a receiver that never answers does not delay another subscription (per-subscription cap)", async () => {
  const { app, rx } = setup({ webhookConcurrency: 4, webhookPerSubscriptionConcurrency: 2, webhookTimeoutMs: 20_000 });
  const dead = startReceiver();
  cleanups.push(() => dead.stop());
  dead.setHandler(() => dead.hang());
  await app.subscribe({ url: dead.url, events: ["case.deleted"] });
  await app.subscribe({ url: rx.url, events: ["case.updated"] });
  for (let i = 1; i <= 20; i++) await app.publish("case.deleted", { id: i });
  await dead.waitFor(2);
  for (let i = 1; i <= 20; i++) await app.publish("case.updated", { id: i });
  await rx.waitFor(20, 5_000);
  expect(dead.received.length).toBe(2); // held at its cap, the rest wait their turn
  expect(dead.maxInFlight).toBe(2);
  expect(rx.maxInFlight).toBeLessThanOrEqual(2);
});

test("redeliver sends a delivered event again with the same webhook-id", async () => {
  const { app, rx } = setup();
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("defect.resolved", { id: 77 });
  await rx.waitFor(1);
  const id = (await deliveriesOf(app, sub.id)).items[0].id;
  await app.until(async () => (await delivery(app, id)).status === "delivered", "delivered");
  const r = await app.json("POST", `/api/admin/deliveries/${id}/redeliver`);
  expect(r).toEqual({ status: 202, body: { id, status: "pending" } });
  await rx.waitFor(2);
  expect(rx.received[1]!.headers["webhook-id"]).toBe(rx.received[0]!.headers["webhook-id"]);
  const d = await app.until(async () => {
    const x = await delivery(app, id);
    return x.status === "delivered" && x.attempts.length === 2 && x;
  }, "delivered twice");
  expect(d.attemptCount).toBe(1); // a fresh cycle
});

test("recover re-queues every failed delivery since a time", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [10] });
  rx.setHandler(() => new Response("down", { status: 500 }));
  const sub = await app.subscribe({ url: rx.url });
  const since = new Date(Date.now() - 1000).toISOString();
  for (let i = 1; i <= 5; i++) await app.publish("case.deleted", { id: i });
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=failed")).total === 5, "5 failed");
  rx.setHandler(() => new Response("ok"));
  const old = (await app.json("POST", `/api/admin/webhooks/${sub.id}/recover`, { since: new Date(Date.now() + 60_000).toISOString() })).body;
  expect(old).toEqual({ requeued: 0 });
  const r = await app.json("POST", `/api/admin/webhooks/${sub.id}/recover`, { since });
  expect(r).toEqual({ status: 202, body: { requeued: 5 } });
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=delivered")).total === 5, "5 delivered after recover");
  expect(rx.received.length).toBe(15);
});

test("the SSRF guard refuses a private target at connect time and the attempt is logged and retried", async () => {
  const { app, rx } = setup({ webhookAllowPrivateTargets: false, webhookRetrySchedule: [10] });
  // As if DNS changed after the subscription was created: the row points at loopback.
  const now = Date.now();
  const [sub] = await writeTransaction(app.ctx.db, (tx) =>
    tx.insert(webhookSubscriptions).values({ url: rx.url, events: ["*"], secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", createdAt: now, updatedAt: now }).returning(),
  );
  await app.publish("case.deleted", { id: 1 });
  const id = await app.until(async () => (await deliveriesOf(app, sub!.id, "&status=failed")).items[0]?.id, "failed delivery");
  const d = await delivery(app, id);
  expect(d.attempts.length).toBe(2);
  expect(d.attempts[0].error).toContain("target refused: 127.0.0.1 resolves to 127.0.0.1 (loopback)");
  expect(rx.received.length).toBe(0);
  // The log shows what was sent: nothing — no request headers, no signature.
  for (const a of d.attempts) expect(a.requestHeaders).toBeNull();
});

test("a host name is resolved, pinned and sent as the Host header", async () => {
  const { app, rx } = setup();
  const url = rx.url.replace("127.0.0.1", "localhost");
  await app.subscribe({ url });
  await app.publish("case.deleted", { id: 1 });
  await rx.waitFor(1);
  expect(rx.received[0]!.headers.host).toBe(new URL(url).host);
});

test("stop() ends the loop cleanly with a request in flight and gives the lease back without counting an attempt", async () => {
  const { app, rx } = setup({ webhookTimeoutMs: 1500 });
  rx.setHandler(() => rx.hang());
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 1 });
  await rx.waitFor(1);
  await app.loop.stop(); // waits min(timeout / 2, 5 s) for the attempt, then aborts it
  const d = await delivery(app, (await deliveriesOf(app, sub.id)).items[0].id);
  expect(d).toMatchObject({ status: "pending", attemptCount: 0, inFlight: false, attempts: [] });
});

test("a subscription failing for 5 days without a success is disabled with a reason", async () => {
  const { app, rx } = setup({ webhookRetrySchedule: [10_000] });
  rx.setHandler(() => new Response("down", { status: 500 }));
  const sub = await app.subscribe({ url: rx.url });
  await writeTransaction(app.ctx.db, (tx) => execute(tx, sql`UPDATE webhook_subscriptions SET failing_since = ${Date.now() - 5 * 86_400_000 - 1000} WHERE id = ${sub.id}`));
  await app.publish("case.deleted", { id: 1 });
  const s = await app.until(async () => {
    const x = (await app.json("GET", `/api/admin/webhooks/${sub.id}`)).body;
    return !x.enabled && x;
  }, "disabled subscription");
  expect(s.disabledReason).toContain("5 days");
  const back = (await app.json("PATCH", `/api/admin/webhooks/${sub.id}`, { enabled: true })).body;
  expect(back).toMatchObject({ enabled: true, disabledReason: null, failingSince: null });
});

test("retention purges delivered deliveries, their attempts and orphaned events, and keeps failed ones", async () => {
  const { purgeExpired } = await import("../../src/webhooks/retention");
  const { app, rx } = setup({ webhookRetrySchedule: [10] });
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 1 });
  await app.publish("case.deleted", { id: 2 });
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=delivered")).total === 2, "delivered");
  rx.setHandler(() => new Response("down", { status: 500 }));
  await app.publish("case.deleted", { id: 3 });
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=failed")).total === 1, "failed");
  const count = async (table: string) => (await rowsOf<{ n: number }>(app.ctx.db, sql`SELECT count(*) AS n FROM ${sql.raw(table)}`))[0]!.n;
  expect(await purgeExpired(app.ctx, Date.now())).toBe(0); // nothing is older than 30 days yet
  const later = Date.now() + 31 * 86_400_000;
  expect(await purgeExpired(app.ctx, later)).toBeGreaterThan(0);
  expect((await deliveriesOf(app, sub.id)).items.map((d: any) => d.status)).toEqual(["failed"]);
  expect(await count("webhook_events")).toBe(1);
  expect(await count("webhook_attempts")).toBe(0);
});

test("retention walks each range of delivery ids across many transactions: old delivered rows go; failed, recent and redelivered ones stay", async () => {
  const { purgeExpired } = await import("../../src/webhooks/retention");
  const { deliveryId } = await import("../../src/webhooks/tables");
  const { app } = setup();
  const sub = await app.subscribe({ url: "http://127.0.0.1:9/hook" });
  await app.loop.stop(); // the loop must not touch these rows
  const db = app.ctx.db;
  const day = 86_400_000;
  const now = Date.now();
  const old = now - 40 * day;
  const recent = now - day;
  const event = preparedQuery<{ id: number }>("INSERT INTO webhook_events (uid, name, payload, created_at) VALUES ('msg_purge', 'case.deleted', '{}', ?1) RETURNING id");
  const eventId = (await writeTransaction(db, (tx) => event.get(tx, old)))!.id;
  const insert = preparedQuery(
    `INSERT INTO webhook_deliveries (id, event_id, subscription_id, status, attempts, next_attempt_at, created_at, updated_at, finished_at)
     VALUES (?1, ?2, ?3, ?4, 1, ?5, ?5, ?5, ?6)`,
  );
  const kept: number[] = [];
  await writeTransaction(db, async (tx) => {
    // Two ranges — ids from before migration 0004, then the subscription's own — each with gaps
    // and more rows than one purge transaction walks, oldest first.
    for (let i = 1; i <= 5000; i++) {
      const id = i <= 2500 ? i * 3 : deliveryId(sub.id, i * 3);
      if ((i > 2200 && i <= 2500) || i > 4500) {
        await insert.run(tx, id, eventId, sub.id, "delivered", recent, recent); // within the retention
        kept.push(id);
      } else if (i % 7 === 0) {
        await insert.run(tx, id, eventId, sub.id, "failed", old, old); // failed deliveries are kept for recovery
        kept.push(id);
      } else if (i === 2000 || i === 4000) {
        await insert.run(tx, id, eventId, sub.id, "delivered", old, recent); // created long ago, redelivered lately
        kept.push(id);
      } else await insert.run(tx, id, eventId, sub.id, "delivered", old, old);
    }
  });
  const deleted = await purgeExpired(app.ctx, now);
  const left = (await rowsOf<{ id: number }>(db, sql`SELECT id FROM webhook_deliveries ORDER BY id`)).map((r) => r.id);
  expect(left).toEqual(kept);
  expect(deleted).toBe(5000 - kept.length);
  expect(await purgeExpired(app.ctx, now)).toBe(0);
}, 60_000); // 5 000 rows inserted one statement each: a round trip each on PostgreSQL

test("after a 410 the queued deliveries of that subscription are not sent", async () => {
  const { app, rx } = setup({ webhookConcurrency: 4, webhookPerSubscriptionConcurrency: 2 });
  rx.setHandler(async () => {
    await Bun.sleep(20);
    return new Response("gone", { status: 410 });
  });
  const sub = await app.subscribe({ url: rx.url });
  // All 20 exist before the first is claimed (one transaction), however long each publish takes.
  await writeTransaction(app.ctx.db, async (tx) => {
    for (let i = 1; i <= 20; i++) await publish(tx, "case.deleted", { id: i });
  });
  await app.until(async () => !(await app.json("GET", `/api/admin/webhooks/${sub.id}`)).body.enabled, "disabled subscription");
  await Bun.sleep(200);
  // At most the open requests (cap 2) plus one follow-up per slot started before the 410 was recorded.
  expect(rx.received.length).toBeLessThanOrEqual(4);
  const page = await deliveriesOf(app, sub.id, "&status=pending");
  expect(page.total).toBeGreaterThanOrEqual(16);
  expect(page.items.every((d: any) => !d.inFlight)).toBe(true);
});

testOnSqlite("outcomes waiting for their WAL sync hold sending back at 2 × concurrency; the sync lets the rest go (SQLite's group commit: on PostgreSQL COMMIT returns once the WAL is flushed)", async () => {
  // Syncs that finish only when the test says so: the disk "stalls".
  const held: (() => void)[] = [];
  let stalled = false;
  let syncs = 0;
  const walSync = {
    sync: () => {
      syncs++;
      return stalled ? new Promise<void>((r) => held.push(r)) : Promise.resolve();
    },
    close() {},
  };
  const app = webhookTestApp({ webhookConcurrency: 2, webhookPerSubscriptionConcurrency: 2 }, { walSync });
  const rx = startReceiver();
  cleanups.push(() => app.close(), () => rx.stop());
  await app.subscribe({ url: rx.url });
  for (let i = 1; i <= 30; i++) await app.publish("case.deleted", { id: i });
  await app.ctx.groupCommit.durable(); // the events are on disk; from here on the disk stalls
  stalled = true;
  const before = syncs;
  await app.until(() => syncs > before && rx.received.length >= 4, "the first outcomes");
  await Bun.sleep(300);
  // Sent while the sync stalls: at most 2 × concurrency outcomes waiting for the disk, plus the
  // 2 × concurrency sent-but-unrecorded window — the power-loss duplicate bound (4 × concurrency).
  const whileStalled = rx.received.length;
  expect(whileStalled).toBeLessThanOrEqual(8);
  await Bun.sleep(200);
  expect(rx.received.length).toBe(whileStalled); // nothing more goes out until the disk answers
  stalled = false;
  for (const release of held.splice(0)) release();
  await rx.waitFor(30);
  expect(new Set(rx.received.map((r) => r.headers["webhook-id"])).size).toBe(30);
});

testOnSqlite("an event goes out only once the commit that wrote it is on disk (SQLite's group commit: on PostgreSQL COMMIT returns once the WAL is flushed)", async () => {
  const held: (() => void)[] = [];
  let stalled = false;
  const walSync = { sync: () => (stalled ? new Promise<void>((r) => held.push(r)) : Promise.resolve()), close() {} };
  const app = webhookTestApp({}, { walSync });
  const rx = startReceiver();
  cleanups.push(() => app.close(), () => rx.stop());
  await app.subscribe({ url: rx.url });
  stalled = true;
  await app.publish("case.deleted", { id: 1 });
  await app.until(() => held.length > 0, "a sync of the event");
  await Bun.sleep(300); // polls and wakes come and go: the claim waits for the disk
  expect(rx.received.length).toBe(0);
  stalled = false;
  for (const release of held.splice(0)) release();
  await rx.waitFor(1);
});

test("an outcome recorded while other attempts are open is synced within moments, not held for a full batch", async () => {
  // Here one attempt is answered and the others hang: the lone outcome is synced at once, not
  // held until more outcomes gather (nobody else asks for a sync meanwhile).
  const app = webhookTestApp({ webhookConcurrency: 8, webhookPerSubscriptionConcurrency: 8 });
  const rx = startReceiver((_req, _rec, n) => (n === 1 ? new Response("ok") : rx.hang()));
  cleanups.push(() => app.close(), () => rx.stop());
  const sub = await app.subscribe({ url: rx.url });
  for (let i = 1; i <= 4; i++) await app.publish("case.deleted", { id: i });
  await rx.waitFor(4);
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=delivered")).total === 1, "the outcome recorded");
  const recorded = app.ctx.groupCommit.mark();
  await app.until(() => app.ctx.groupCommit.isDurable(recorded), "a WAL sync for the lone outcome", 1000);
});

test("late first attempts to a fast subscriber hold request writes until claims are fresh again; a slow subscriber's backlog does not", async () => {
  const app = webhookTestApp({ webhookConcurrency: 4, webhookPerSubscriptionConcurrency: 4 });
  let delay = 0;
  const rx = startReceiver(async () => {
    if (delay) await Bun.sleep(delay);
    return new Response("ok");
  });
  cleanups.push(() => app.close(), () => rx.stop());
  const reports: boolean[] = [];
  const holdWrites = app.ctx.groupCommit.holdWrites.bind(app.ctx.groupCommit);
  app.ctx.groupCommit.holdWrites = (behind: boolean) => (reports.push(behind), holdWrites(behind));
  const sub = await app.subscribe({ url: rx.url });
  // Events that waited a second before the loop could claim them, as under a saturating write load.
  const backdated = (n: number) =>
    writeTransaction(app.ctx.db, async (tx) => {
      for (let i = 0; i < n; i++) await recordEvent(tx, "case.deleted", { id: i }, null, [sub.id], Date.now() - 1000);
    });
  await backdated(20);
  await rx.waitFor(20);
  await app.publish("case.deleted", { id: 99 }); // a fresh one: caught up
  await rx.waitFor(21);
  await app.until(() => reports.lastIndexOf(false) > reports.indexOf(true), "caught up reported");
  expect(reports.indexOf(true)).toBeGreaterThanOrEqual(0);

  // The same backlog for a subscriber that takes 80 ms per answer: its pace, not the thread, is the limit.
  delay = 80;
  for (let i = 0; i < 8; i++) await app.publish("case.deleted", { id: 100 + i });
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=delivered")).total === 29, "the slow answers recorded");
  reports.length = 0;
  await backdated(8);
  await rx.waitFor(37);
  expect(reports.includes(true)).toBe(false);
});

testOnSqlite("an outcome whose tick meets another process's write lock waits in the queue and is recorded once the lock is gone, never sent twice (SQLite's one write lock: PostgreSQL has row locks, see postgres-queue.test.ts)", async () => {
  const { app, rx } = setup();
  let answer!: () => void;
  const answered = new Promise<void>((r) => (answer = r));
  rx.setHandler(async () => (await answered, new Response("ok")));
  const sub = await app.subscribe({ url: rx.url });
  await app.publish("case.deleted", { id: 1 });
  await rx.waitFor(1);
  // Another process (a CLI command, an operator's sqlite3) takes the write lock while the attempt runs.
  const other = new Database(app.ctx.sqlite!.filename);
  other.exec("BEGIN IMMEDIATE");
  try {
    answer();
    await Bun.sleep(300); // several polls: each tick fails at once instead of waiting for the lock
    const started = performance.now();
    expect((await app.request("GET", "/healthz")).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(250); // the thread was never held by a waiting tick
    expect(other.query("SELECT status FROM webhook_deliveries").get()).toEqual({ status: "pending" });
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  await app.until(async () => (await deliveriesOf(app, sub.id, "&status=delivered")).total === 1, "delivered after the lock");
  const [d] = (await deliveriesOf(app, sub.id)).items;
  expect((await delivery(app, d.id)).attempts.length).toBe(1);
  expect(rx.received.length).toBe(1);
});
