/**
 * The outbox and the delivery queue on PostgreSQL: `publish` in a producer's transaction, the
 * ledger's ticks (claim with its lease, record an outcome, retry, dead-letter, give a lease back),
 * retention and the health page's reads run the same SQL on both engines. Real services over a
 * real server (test/support/postgres.ts).
 */
import { expect, test } from "bun:test";
import postgres from "postgres";
import type { Db } from "../../src/db/store";
import { writeTransaction } from "../../src/db/transaction";
import { ephemeralSecretBox } from "../../src/lib/secret-box";
import { firstAttemptIdSince, subscriptionHealth } from "../../src/webhooks/health";
import { DeliveryLedger, type FinishedAttempt, type LeasedDelivery } from "../../src/webhooks/ledger";
import { publish } from "../../src/webhooks/publish";
import { purgeExpired } from "../../src/webhooks/retention";
import type { AttemptResult } from "../../src/webhooks/retry";
import { deliveryId, webhookSubscriptions } from "../../src/webhooks/tables";
import { usePostgresForTest } from "../support/postgres";

let sql: postgres.Sql;
let db: Db;
const secrets = ephemeralSecretBox();
const SCHEDULE = [5_000, 60_000];
const LEASE_MS = 35_000;

usePostgresForTest("webhooks", async (pg) => {
  ({ sql, db } = pg);
});

async function subscribe(events: string[] = ["*"]): Promise<number> {
  const now = Date.now();
  const [row] = await writeTransaction(db, (tx) =>
    tx.insert(webhookSubscriptions).values({ url: "http://127.0.0.1:9/hook", events, secret: secrets.seal("whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0"), createdAt: now, updatedAt: now }).returning(),
  );
  return row!.id;
}

const publishEvents = (n: number, first = 1) =>
  writeTransaction(db, async (tx) => {
    for (let i = 0; i < n; i++) await publish(tx, "case.deleted", { id: first + i });
  });

const finished = (c: LeasedDelivery, result: AttemptResult, startedAt = Date.now()): FinishedAttempt => ({
  deliveryId: c.id,
  subscriptionId: c.subscriptionId,
  attemptsBefore: c.attempts,
  previousAttemptId: c.lastAttemptId,
  startedAt,
  durationMs: 3,
  url: "http://127.0.0.1:9/hook",
  userAgent: "Gatehouse-Webhooks/test",
  signature: `v1,sig-${c.id}`,
  result,
  responseBody: "ok",
  responseHeaders: null,
});

const ok: AttemptResult = { kind: "response", status: 200, retryAfter: null };
const failing: AttemptResult = { kind: "response", status: 500, retryAfter: null };
const delivery = async (id: number) =>
  (await sql`SELECT status, attempts, locked_until, last_error, last_attempt_id FROM webhook_deliveries WHERE id = ${id}`)[0] as
    { status: string; attempts: number; locked_until: number | null; last_error: string | null; last_attempt_id: number | null };

const eventIdOf = async (deliveryIdValue: number) => (await sql`SELECT event_id FROM webhook_deliveries WHERE id = ${deliveryIdValue}`)[0]!.event_id as number;

test("publish writes one delivery per matching subscription in its range, the event's id its low half; a rolled-back producer leaves none", async () => {
  const all = await subscribe();
  const other = await subscribe(["suite.created"]);
  await publishEvents(2);
  const rows = (await sql`SELECT id, event_id, subscription_id FROM webhook_deliveries WHERE subscription_id IN (${all}, ${other}) ORDER BY id`) as unknown as { id: number; event_id: number; subscription_id: number }[];
  expect(rows.length).toBe(2);
  for (const r of rows) expect(r).toEqual({ id: deliveryId(all, r.event_id), event_id: r.event_id, subscription_id: all });
  expect(rows[1]!.event_id).toBeGreaterThan(rows[0]!.event_id);
  await expect(
    writeTransaction(db, async (tx) => {
      await publish(tx, "case.deleted", { id: 9 });
      throw new Error("the entity write failed");
    }),
  ).rejects.toThrow("the entity write failed");
  expect((await sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${all}`)[0]!.n).toBe(2);
  await publishEvents(1, 10);
  // The next delivery follows on in the subscription's range (the rolled-back event's id is skipped).
  const [{ id: last }] = (await sql`SELECT max(id) AS id FROM webhook_deliveries WHERE subscription_id = ${all}`) as unknown as [{ id: number }];
  expect(last).toBe(deliveryId(all, await eventIdOf(last)));
  expect(last).toBeGreaterThan(rows[1]!.id);
});

/** A producer that has published case `id`'s deletion and holds its transaction open until `commit()`. */
async function heldProducer(id: number): Promise<{ commit(): Promise<void> }> {
  let release!: () => void;
  const holding = new Promise<void>((r) => (release = r));
  let published!: () => void;
  const isPublished = new Promise<void>((r) => (published = r));
  const done = writeTransaction(db, async (tx) => {
    await publish(tx, "case.deleted", { id });
    published();
    await holding;
  });
  await Promise.race([isPublished, done]); // a producer that fails fails the test here
  return {
    commit() {
      release();
      return done;
    },
  };
}

test("producers of one subscription's events do not wait for each other's COMMIT; deleting the subscription waits for its open producers instead of breaking them", async () => {
  const sub = await subscribe();
  // A producer that has published and not yet committed (it holds what publish locks)…
  const first = await heldProducer(300);
  // …does not hold up a second producer of the same subscription.
  const started = performance.now();
  await publishEvents(1, 301);
  expect(performance.now() - started).toBeLessThan(5_000);
  await first.commit();
  expect((await sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${sub}`)[0]!.n).toBe(2);

  // A delete of the subscription waits for the producers that share-lock its row, then goes (their
  // deliveries with it); a producer after it has no subscription to deliver to.
  const doomed = await subscribe();
  const producer = await heldProducer(400);
  const deleting = sql`DELETE FROM webhook_subscriptions WHERE id = ${doomed}`.then(() => "deleted");
  await Bun.sleep(50);
  expect(await Promise.race([deleting, Bun.sleep(100).then(() => "waiting")])).toBe("waiting");
  await producer.commit();
  expect(await deleting).toBe("deleted");
  await publishEvents(1, 401);
  expect((await sql`SELECT count(*)::int AS n FROM webhook_deliveries WHERE subscription_id = ${doomed}`)[0]!.n).toBe(0);
});

test("ticks claim with a lease, record outcomes, retry, dead-letter and give leases back", async () => {
  const sub = await subscribe();
  await publishEvents(3, 100);
  const ledger = new DeliveryLedger(db, { retrySchedule: SCHEDULE, leaseMs: LEASE_MS, perSubscriptionConcurrency: 4, secrets });
  let now = Date.now();
  const first = await ledger.tick({ now, finished: [], released: [], claim: { budget: 100, held: {} } });
  const mine = first.claims.filter((c) => c.subscriptionId === sub);
  expect(mine.length).toBe(3);
  for (const c of mine) expect(c.id).toBe(deliveryId(sub, await eventIdOf(c.id)));
  expect(first.subscriptions!.find((s) => s.id === sub)!.secrets).toEqual(["whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0"]);
  expect((await delivery(mine[0]!.id)).locked_until).toBe(now + LEASE_MS);
  // Leased rows are not claimed again.
  expect((await ledger.tick({ now, finished: [], released: [], claim: { budget: 100, held: {} } })).claims.filter((c) => c.subscriptionId === sub)).toEqual([]);

  const [a, b, c] = mine as [LeasedDelivery, LeasedDelivery, LeasedDelivery];
  const recorded = await ledger.tick({ now, finished: [finished(a, ok), finished(b, failing)], released: [c.id], claim: null });
  expect(recorded.verdicts).toEqual({ delivered: 1, retry: 1 });
  expect(await delivery(a.id)).toMatchObject({ status: "delivered", attempts: 1, locked_until: null });
  expect(await delivery(b.id)).toMatchObject({ status: "pending", attempts: 1, locked_until: null, last_error: "HTTP 500" });
  expect(await delivery(c.id)).toMatchObject({ status: "pending", attempts: 0, locked_until: null });
  const [{ last_success_at, failing_since }] = (await sql`SELECT last_success_at, failing_since FROM webhook_subscriptions WHERE id = ${sub}`) as unknown as [{ last_success_at: number; failing_since: number }];
  expect(last_success_at).toBe(now);
  expect(failing_since).toBe(now);

  // The retry comes due and fails through the schedule: dead-lettered, each attempt chained to the last.
  for (const verdict of ["retry", "failed"]) {
    now += 3_600_000;
    const again = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 100, held: {} } })).claims.find((x) => x.id === b.id)!;
    expect((await ledger.tick({ now, finished: [finished(again, { kind: "error", error: "ECONNREFUSED" })], released: [], claim: null })).verdicts).toEqual({ [verdict]: 1 });
  }
  expect(await delivery(b.id)).toMatchObject({ status: "failed", attempts: 3, last_error: "ECONNREFUSED" });
  const chain = (await sql`SELECT id, previous_attempt_id FROM webhook_attempts WHERE delivery_id = ${b.id} ORDER BY id`) as unknown as { id: number; previous_attempt_id: number | null }[];
  expect(chain.map((r) => r.previous_attempt_id)).toEqual([null, chain[0]!.id, chain[1]!.id]);
  expect((await delivery(b.id)).last_attempt_id).toBe(chain[2]!.id);

  const health = await subscriptionHealth({ db, config: { webhookTimeoutMs: 1000 } as never }, sub, now);
  expect(health).toMatchObject({ enabled: true, pending: 1, waitingRetries: 0, lastError: { deliveryId: b.id, statusCode: null, error: "ECONNREFUSED" } });
  expect(health.lastDay).toEqual({ attempts: 4, succeeded: 1, successRate: 0.25 });
  expect(await firstAttemptIdSince(db, 0)).toBeGreaterThan(0);
});

test("a 410 disables the subscription once; retention deletes old delivered rows and keeps failed ones", async () => {
  const sub = await subscribe();
  await publishEvents(2, 200);
  const ledger = new DeliveryLedger(db, { retrySchedule: SCHEDULE, leaseMs: LEASE_MS, perSubscriptionConcurrency: 4, secrets });
  const now = Date.now();
  const claims = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 100, held: {} } })).claims.filter((c) => c.subscriptionId === sub);
  const [gone, delivered] = claims as [LeasedDelivery, LeasedDelivery];
  const r = await ledger.tick({ now, finished: [finished(gone, { kind: "response", status: 410, retryAfter: null }), finished(delivered, ok)], released: [], claim: null });
  expect(r.disabled).toEqual([{ subscriptionId: sub, reason: "The endpoint answered 410 Gone" }]);
  expect((await sql`SELECT enabled FROM webhook_subscriptions WHERE id = ${sub}`)[0]!.enabled).toBe(0);

  const deleted = await purgeExpired({ db, config: { webhookRetentionDays: 30 } as never }, now + 40 * 86_400_000);
  expect(deleted).toBeGreaterThan(0);
  expect(await delivery(delivered.id)).toBeUndefined();
  expect(await delivery(gone.id)).toMatchObject({ status: "failed" });
});
