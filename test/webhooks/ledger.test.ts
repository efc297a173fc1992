import { afterEach, beforeEach, expect, test } from "bun:test";
import { createTestApp, testOnSqlite } from "../helpers";
import { EVENTS } from "../../src/webhooks/catalog";
import { DeliveryLedger, type FinishedAttempt, type LeasedDelivery } from "../../src/webhooks/ledger";
import { publish } from "../../src/webhooks/publish";
import { getDelivery } from "../../src/webhooks/service";
import type { AttemptResult } from "../../src/webhooks/retry";
import { webhookSubscriptions } from "../../src/webhooks/tables";
import { Database } from "bun:sqlite";
import { sql, type SQL } from "drizzle-orm";
import { execute, rowsOf } from "../../src/db/statement";
import { first, writeTransaction } from "../../src/db/transaction";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** The delivery state machine on its own: one tick at a time, no HTTP, explicit clock. */

const LEASE_MS = 35_000;
const SCHEDULE = [5_000, 60_000];
let t: ReturnType<typeof createTestApp>;
let ledger: DeliveryLedger;

beforeEach(() => {
  t = createTestApp();
  ledger = new DeliveryLedger(t.ctx.db, { retrySchedule: SCHEDULE, leaseMs: LEASE_MS, perSubscriptionConcurrency: 4, secrets: t.ctx.secrets });
});
afterEach(() => t.close());

async function subscribe(): Promise<number> {
  const now = Date.now();
  const [row] = await writeTransaction(t.ctx.db, (tx) =>
    tx
      .insert(webhookSubscriptions)
      .values({ url: "http://127.0.0.1:9/hook", events: ["*"], secret: "whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0", createdAt: now, updatedAt: now })
      .returning(),
  );
  return row!.id;
}

async function publishEvents(n: number): Promise<void> {
  await writeTransaction(t.ctx.db, async (tx) => {
    for (let i = 0; i < n; i++) await publish(tx, "case.deleted", { ...EVENTS["case.deleted"].example, id: i + 1 });
  });
}

function finished(c: LeasedDelivery, result: AttemptResult, startedAt = Date.now()): FinishedAttempt {
  return {
    deliveryId: c.id,
    subscriptionId: c.subscriptionId,
    attemptsBefore: c.attempts,
    previousAttemptId: c.lastAttemptId,
    startedAt,
    durationMs: 3,
    url: "http://127.0.0.1:9/hook",
    userAgent: "Gatehouse-Webhooks/test",
    signature: `v1,sig-${c.id}-${startedAt}`,
    result,
    responseBody: "ok",
    responseHeaders: result.kind === "response" ? '{"content-type":"text/plain"}' : null,
  };
}

const ok: AttemptResult = { kind: "response", status: 200, retryAfter: null };
type DeliveryRow = { status: string; attempts: number; next_attempt_at: number; locked_until: number | null; last_error: string | null };
const row = async (id: number) =>
  (await first(rowsOf<DeliveryRow>(t.ctx.db, sql`SELECT status, attempts, next_attempt_at, locked_until, last_error FROM webhook_deliveries WHERE id = ${id}`)))!;
const attemptRows = async (id: number) => (await first(rowsOf<{ n: number }>(t.ctx.db, sql`SELECT count(*) AS n FROM webhook_attempts WHERE delivery_id = ${id}`)))!.n;
/** A change made behind the service's back (as an operator, or retention, would). */
const change = (statement: SQL) => writeTransaction(t.ctx.db, (tx) => execute(tx, statement));

test("a claim leases at most the budget and twice the per-subscription cap, and a leased row is not claimed again", async () => {
  const a = await subscribe();
  const b = await subscribe();
  await publishEvents(20);
  const now = Date.now();
  const first = await ledger.tick({ now, finished: [], released: [], claim: { budget: 100, held: { [b]: 5 } } });
  const bySub = (claims: LeasedDelivery[], id: number) => claims.filter((c) => c.subscriptionId === id).length;
  expect(bySub(first.claims, a)).toBe(8); // 2 × cap
  expect(bySub(first.claims, b)).toBe(3); // 2 × cap − 5 already held
  expect(first.subscriptions!.map((s) => s.id).sort()).toEqual([a, b].sort());
  for (const c of first.claims) expect((await row(c.id)).locked_until).toBe(now + LEASE_MS);
  const second = await ledger.tick({ now, finished: [], released: [], claim: { budget: 5, held: {} } });
  expect(second.claims.length).toBe(5);
  const firstIds = new Set(first.claims.map((c) => c.id));
  for (const c of second.claims) expect(firstIds.has(c.id)).toBe(false);
  // Once the lease has passed (a crash), the same rows are due again.
  const later = await ledger.tick({ now: now + LEASE_MS, finished: [], released: [], claim: { budget: 100, held: {} } });
  expect(later.claims.length).toBe(2 * 8); // 20 per subscription, capped at 8 each
});

test("outcomes: 2xx delivers, 5xx schedules a retry, the last failure dead-letters, each attempt logged", async () => {
  await subscribe();
  await publishEvents(2);
  let now = Date.now();
  const [c1, c2] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  const r1 = await ledger.tick({ now, finished: [finished(c1!, ok), finished(c2!, { kind: "response", status: 500, retryAfter: null })], released: [], claim: null });
  expect(r1.verdicts).toEqual({ delivered: 1, retry: 1 });
  expect(await row(c1!.id)).toMatchObject({ status: "delivered", attempts: 1, locked_until: null });
  const retried = await row(c2!.id);
  expect(retried).toMatchObject({ status: "pending", attempts: 1, locked_until: null, last_error: "HTTP 500" });
  expect(retried.next_attempt_at).toBeGreaterThanOrEqual(now + SCHEDULE[0]! * 0.8);
  expect(retried.next_attempt_at).toBeLessThanOrEqual(now + SCHEDULE[0]! * 1.2);
  // Not due before the retry time; then two more failures exhaust the schedule.
  expect((await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims.length).toBe(0);
  for (const verdict of ["retry", "failed"]) {
    now += 3_600_000;
    const [again] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
    expect(again!.id).toBe(c2!.id);
    const r = await ledger.tick({ now, finished: [finished(again!, { kind: "error", error: "ECONNREFUSED" })], released: [], claim: null });
    expect(r.verdicts).toEqual({ [verdict]: 1 });
  }
  expect(await row(c2!.id)).toMatchObject({ status: "failed", attempts: 3, last_error: "ECONNREFUSED" });
  expect(await attemptRows(c1!.id)).toBe(1);
  expect(await attemptRows(c2!.id)).toBe(3);
});

test("410 disables the subscription and reports it; later claims skip it", async () => {
  const sub = await subscribe();
  await publishEvents(3);
  const now = Date.now();
  const [c] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 1, held: {} } })).claims;
  const r = await ledger.tick({ now, finished: [finished(c!, { kind: "response", status: 410, retryAfter: null })], released: [], claim: { budget: 10, held: {} } });
  expect(r.verdicts).toEqual({ gone: 1 });
  expect(r.disabled).toEqual([{ subscriptionId: sub, reason: "The endpoint answered 410 Gone" }]);
  expect(r.subscriptions).toEqual([]);
  expect(r.claims).toEqual([]);
  expect(await row(c!.id)).toMatchObject({ status: "failed", last_error: "endpoint answered 410 Gone" });
});

test("a released lease is due again at once without counting an attempt; an outcome for a deleted delivery logs nothing", async () => {
  await subscribe();
  await publishEvents(2);
  const now = Date.now();
  const [c1, c2] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 2, held: {} } })).claims;
  await ledger.tick({ now, finished: [], released: [c1!.id], claim: null });
  expect(await row(c1!.id)).toMatchObject({ status: "pending", attempts: 0, locked_until: null });
  expect((await ledger.tick({ now, finished: [], released: [], claim: { budget: 2, held: {} } })).claims.map((c) => c.id)).toEqual([c1!.id]);
  await change(sql`DELETE FROM webhook_deliveries WHERE id = ${c2!.id}`);
  const r = await ledger.tick({ now, finished: [finished(c2!, ok)], released: [], claim: null });
  expect(r.verdicts).toEqual({ delivered: 1 });
  expect(await attemptRows(c2!.id)).toBe(0);
});

testOnSqlite("a tick that cannot take the write lock throws and commits nothing (SQLite's one write lock: PostgreSQL has row locks, see postgres-queue.test.ts)", async () => {
  await subscribe();
  await publishEvents(3);
  const other = new Database(t.ctx.sqlite!.filename);
  other.exec("BEGIN IMMEDIATE");
  try {
    // Fails at once (it never waits for another process's write lock), committing nothing.
    const started = performance.now();
    await expect(ledger.tick({ now: Date.now(), finished: [], released: [], claim: { budget: 10, held: {} } })).rejects.toThrow();
    expect(performance.now() - started).toBeLessThan(1_000);
  } finally {
    other.exec("ROLLBACK");
    other.close();
  }
  expect((await ledger.tick({ now: Date.now(), finished: [], released: [], claim: { budget: 10, held: {} } })).claims.length).toBe(3);
});

test("the attempt log is a chain per delivery: retention's gaps and other deliveries' ids end it", async () => {
  await subscribe();
  await publishEvents(2);
  const now = Date.now();
  const [c1, c2] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  const fail: AttemptResult = { kind: "response", status: 500, retryAfter: null };
  await ledger.tick({ now, finished: [finished(c1!, fail, now), finished(c2!, ok, now)], released: [], claim: null });
  const [again] = (await ledger.tick({ now: now + 10 * SCHEDULE[0]!, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  expect(again!.id).toBe(c1!.id);
  await ledger.tick({ now: now + 10 * SCHEDULE[0]!, finished: [finished(again!, ok, now + 1)], released: [], claim: null });
  const statuses = async (id: number) => (await getDelivery(t.ctx, id)).attempts.map((a) => a.statusCode);
  expect(await statuses(c1!.id)).toEqual([500, 200]);
  expect(await statuses(c2!.id)).toEqual([200]);
  const sig = (await getDelivery(t.ctx, c1!.id)).attempts[1]!.requestHeaders!["webhook-signature"];
  expect(sig).toBe(`v1,sig-${c1!.id}-${now + 1}`);

  // Retention purged the first attempt: the chain ends there.
  await change(sql`DELETE FROM webhook_attempts WHERE delivery_id = ${c1!.id} AND status_code = 500`);
  expect(await statuses(c1!.id)).toEqual([200]);
  // A pointer to an id that now belongs to another delivery shows nothing of that delivery.
  const other = (await first(rowsOf<{ id: number }>(t.ctx.db, sql`SELECT last_attempt_id AS id FROM webhook_deliveries WHERE id = ${c2!.id}`)))!.id;
  await change(sql`UPDATE webhook_deliveries SET last_attempt_id = ${other} WHERE id = ${c1!.id}`);
  expect(await statuses(c1!.id)).toEqual([]);
});

test("a tick records its whole batch: each attempt its own log row, its delivery pointing at it; each subscription's state follows its outcomes in order", async () => {
  const a = await subscribe();
  const b = await subscribe();
  await publishEvents(3);
  const now = Date.now();
  const claims = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  const of = (sub: number) => claims.filter((c) => c.subscriptionId === sub);
  const [a1, a2, a3] = of(a) as [LeasedDelivery, LeasedDelivery, LeasedDelivery];
  const [b1, b2, b3] = of(b) as [LeasedDelivery, LeasedDelivery, LeasedDelivery];
  const fail: AttemptResult = { kind: "response", status: 500, retryAfter: null };
  // Finished interleaved across subscriptions, as attempts do; `a` ends on a success, `b` on failures.
  const batch = [finished(b1, fail, now), finished(a1, ok, now), finished(a2, fail, now), finished(b2, fail, now), finished(a3, ok, now), finished(b3, { kind: "error", error: "ECONNRESET" }, now)];
  batch[1]!.responseBody = "first";
  batch[4]!.responseBody = "third";
  const r = await ledger.tick({ now, finished: batch, released: [], claim: null });
  expect(r.verdicts).toEqual({ delivered: 2, retry: 4 });
  for (const [c, status, body] of [[a1, 200, "first"], [a2, 500, "ok"], [a3, 200, "third"], [b1, 500, "ok"], [b2, 500, "ok"], [b3, null, "ok"]] as const) {
    const d = await getDelivery(t.ctx, c.id);
    expect(d.attempts.map((x) => [x.statusCode, x.responseBody])).toEqual([[status, body]]);
    expect(d.attempts[0]!.requestHeaders!["webhook-signature"]).toBe(`v1,sig-${c.id}-${now}`);
    expect(await row(c.id)).toMatchObject({ attempts: 1, locked_until: null, status: status === 200 ? "delivered" : "pending" });
  }
  expect(await row(b3.id)).toMatchObject({ last_error: "ECONNRESET" });
  const subRow = async (id: number) =>
    (await first(rowsOf<{ failing_since: number | null; last_success_at: number | null }>(t.ctx.db, sql`SELECT failing_since, last_success_at FROM webhook_subscriptions WHERE id = ${id}`)))!;
  expect(await subRow(a)).toEqual({ failing_since: null, last_success_at: now });
  expect(await subRow(b)).toEqual({ failing_since: now, last_success_at: null });
});

test("one delivery twice in a batch (its lease ran out and it was claimed and sent again) logs both attempts", async () => {
  await subscribe();
  await publishEvents(1);
  const now = Date.now();
  const [first1] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  const [again] = (await ledger.tick({ now: now + LEASE_MS, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  expect(again!.id).toBe(first1!.id);
  const r = await ledger.tick({ now: now + LEASE_MS, finished: [finished(first1!, ok, now), finished(again!, ok, now + LEASE_MS)], released: [], claim: null });
  expect(r.verdicts).toEqual({ delivered: 2 });
  expect(await row(first1!.id)).toMatchObject({ status: "delivered", attempts: 2, locked_until: null });
  expect(await attemptRows(first1!.id)).toBe(2);
  // The delivery points at the later attempt.
  const latest = (await getDelivery(t.ctx, first1!.id)).attempts[0]!;
  expect(latest.requestHeaders!["webhook-signature"]).toBe(`v1,sig-${first1!.id}-${now + LEASE_MS}`);
});

test("a tick whose bookkeeping fails commits none of it: the deliveries stay leased and pending, and the outcomes record on the next tick", async () => {
  await subscribe();
  await publishEvents(2);
  const now = Date.now();
  const [c1, c2] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  const broken = { ...finished(c2!, ok, now), url: null as unknown as string }; // the log refuses a row without its URL
  await expect(ledger.tick({ now, finished: [finished(c1!, ok, now), broken], released: [], claim: null })).rejects.toThrow();
  for (const c of [c1!, c2!]) {
    expect(await row(c.id)).toMatchObject({ status: "pending", attempts: 0, locked_until: now + LEASE_MS });
    expect(await attemptRows(c.id)).toBe(0);
  }
  // What the loop does next: the same outcomes (the sender's, intact) in the next tick.
  const r = await ledger.tick({ now, finished: [finished(c1!, ok, now), finished(c2!, ok, now)], released: [], claim: null });
  expect(r.verdicts).toEqual({ delivered: 2 });
  for (const c of [c1!, c2!]) expect(await attemptRows(c.id)).toBe(1);
});

test("an answer with NUL characters is logged (PostgreSQL's text cannot hold one)", async () => {
  await subscribe();
  await publishEvents(1);
  const now = Date.now();
  const [c] = (await ledger.tick({ now, finished: [], released: [], claim: { budget: 10, held: {} } })).claims;
  const f = { ...finished(c!, ok, now), responseBody: "a\u0000b", responseHeaders: '{"x-odd":"c\\u0000d"}' };
  await ledger.tick({ now, finished: [f], released: [], claim: null });
  const [attempt] = (await getDelivery(t.ctx, c!.id)).attempts;
  expect(attempt!.responseBody).toBe("a\uFFFDb");
});
