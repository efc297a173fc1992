import { afterAll, expect, test } from "bun:test";
import { desc, eq, sql } from "drizzle-orm";
import { isPostgres } from "../../src/db/engine";
import { execute } from "../../src/db/statement";
import { createTestApp, until } from "../helpers";
import { inTransaction as insideTransaction } from "../../src/db/store";
import { onEventsCommitted } from "../../src/webhooks/wake";
import { EVENTS } from "../../src/webhooks/catalog";
import { publish } from "../../src/webhooks/publish";
import { writeTransaction } from "../../src/db/transaction";
import type { Tx } from "../../src/db/connection";
import { deliveryId, webhookDeliveries, webhookEvents, webhookSubscriptions } from "../../src/webhooks/tables";

const t = createTestApp();
afterAll(() => t.close());

async function addSubscription(values: { events: string[]; projectCode?: string | null; workspaceId?: number | null; enabled?: boolean }) {
  const now = Date.now();
  const [row] = await writeTransaction(t.ctx.db, (tx) =>
    tx
      .insert(webhookSubscriptions)
      .values({ url: "http://127.0.0.1:9/hook", secret: "whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0", createdAt: now, updatedAt: now, projectCode: null, enabled: true, ...values })
      .returning(),
  );
  return row!;
}

/** `work` as one write transaction, as producers run it. */
const inTransaction = (work: (tx: Tx) => Promise<void>) => writeTransaction(t.ctx.db, work);

test("publish writes the event and one delivery per matching enabled subscription, in the caller's transaction", async () => {
  const all = await addSubscription({ events: ["*"] });
  const cases = await addSubscription({ events: ["case.created", "case.deleted"] });
  const demoOnly = await addSubscription({ events: ["*"], projectCode: "DEMO" });
  const other = await addSubscription({ events: ["*"], projectCode: "OTHER" });
  const disabled = await addSubscription({ events: ["*"], enabled: false });
  const suites = await addSubscription({ events: ["suite.created"] });

  await inTransaction((tx) => publish(tx, "case.created", EVENTS["case.created"].example, { projectCode: "DEMO" }));

  const events = await t.ctx.db.select().from(webhookEvents);
  expect(events.length).toBe(1);
  expect(events[0]!.uid).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  expect(JSON.parse(events[0]!.payload)).toEqual(EVENTS["case.created"].example);
  const targets = (await t.ctx.db.select().from(webhookDeliveries)).map((d) => d.subscriptionId).sort();
  expect(targets).toEqual([all.id, cases.id, demoOnly.id].sort());
  expect(targets).not.toContain(other.id);
  expect(targets).not.toContain(disabled.id);
  expect(targets).not.toContain(suites.id);
});

test("the outbox's filter, on either engine: event names or *, the project compared upper-case, the workspace; an event of no project or workspace reaches only unscoped subscriptions", async () => {
  const sub = (values: { events: string[]; projectCode?: string | null; workspaceId?: number | null; enabled?: boolean }) => addSubscription(values);
  const anyEvent = await sub({ events: ["*"] });
  const named = await sub({ events: ["suite.updated", "defect.created"] });
  const otherName = await sub({ events: ["suite.deleted"] });
  const lowerProject = await sub({ events: ["*"], projectCode: "demo" });
  const otherProject = await sub({ events: ["*"], projectCode: "DEMOX" });
  const workspace1 = await sub({ events: ["suite.updated"], workspaceId: 1 });
  const workspace2 = await sub({ events: ["*"], workspaceId: 2 });
  const bothScopes = await sub({ events: ["suite.updated"], projectCode: "DEMO", workspaceId: 1 });
  const disabled = await sub({ events: ["suite.updated"], enabled: false });
  const mine = new Set([anyEvent, named, otherName, lowerProject, otherProject, workspace1, workspace2, bothScopes, disabled].map((s) => s.id));
  const targetsOf = async (work: (tx: Tx) => Promise<void>) => {
    await inTransaction(work);
    const [event] = await t.ctx.db.select({ id: webhookEvents.id }).from(webhookEvents).orderBy(desc(webhookEvents.id)).limit(1);
    return (await t.ctx.db.select({ s: webhookDeliveries.subscriptionId }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event!.id)))
      .map((d) => d.s).filter((s) => mine.has(s)).sort((a, b) => a - b);
  };
  const ids = (...subs: { id: number }[]) => subs.map((s) => s.id).sort((a, b) => a - b);
  const suite = { ...EVENTS["suite.updated"].example };
  expect(await targetsOf((tx) => publish(tx, "suite.updated", suite, { projectCode: "demo", workspaceId: 1 }))).toEqual(ids(anyEvent, named, lowerProject, workspace1, bothScopes));
  expect(await targetsOf((tx) => publish(tx, "suite.updated", suite, { projectCode: "DEMO", workspaceId: 2 }))).toEqual(ids(anyEvent, named, lowerProject, workspace2));
  expect(await targetsOf((tx) => publish(tx, "suite.updated", suite, {}))).toEqual(ids(anyEvent, named));
  expect(await targetsOf((tx) => publish(tx, "suite.deleted", { id: 3 }, { workspaceId: 1 }))).toEqual(ids(anyEvent, otherName));
});

test("an invalid payload throws and the whole transaction rolls back", async () => {
  const before = (await t.ctx.db.select().from(webhookEvents)).length;
  await expect(
    inTransaction(async (tx) => {
      await publish(tx, "case.updated", { id: 7 });
      await publish(tx, "case.updated", { id: "seven" });
    }),
  ).rejects.toThrow(/invalid payload for case.updated/);
  expect((await t.ctx.db.select().from(webhookEvents)).length).toBe(before);
});

test("a rolled-back producer transaction leaves no event behind", async () => {
  const before = (await t.ctx.db.select().from(webhookEvents)).length;
  await expect(
    inTransaction(async (tx) => {
      await publish(tx, "case.deleted", { id: 7 });
      throw new Error("entity write failed");
    }),
  ).rejects.toThrow("entity write failed");
  expect((await t.ctx.db.select().from(webhookEvents)).length).toBe(before);
});

test("a subscription's deliveries get ids of their own range, in publish order, never reused", async () => {
  const a = await addSubscription({ events: ["case.deleted"] });
  const b = await addSubscription({ events: ["case.deleted"] });
  const ids = async (subscriptionId: number) =>
    (await t.ctx.db.select({ id: webhookDeliveries.id }).from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, subscriptionId)).orderBy(webhookDeliveries.id)).map((r) => r.id);
  const published: number[] = []; // the events' ids, in publish order
  const publishOne = async (id: number) => {
    await inTransaction((tx) => publish(tx, "case.deleted", { id }));
    published.push((await t.ctx.db.select({ id: webhookEvents.id }).from(webhookEvents).orderBy(desc(webhookEvents.id)).limit(1))[0]!.id);
  };
  // The low half (tables.ts `deliveryId`): SQLite counts each subscription's deliveries; PostgreSQL takes the event's id.
  const low = (counts: number[]) => (isPostgres() ? counts.map((n) => published[n - 1]!) : counts);
  for (let i = 1; i <= 3; i++) await publishOne(i);
  // Interleaved in publish order, yet each subscription's ids are in its own range: its deliveries sit together.
  expect(await ids(a.id)).toEqual(low([1, 2, 3]).map((n) => deliveryId(a.id, n)));
  expect(await ids(b.id)).toEqual(low([1, 2, 3]).map((n) => deliveryId(b.id, n)));
  expect(deliveryId(a.id, 1)).toBe(a.id * 2 ** 32 + 1);
  // Deleting the newest delivery (as retention may) does not hand its id out again.
  await writeTransaction(t.ctx.db, (tx) => execute(tx, sql`DELETE FROM webhook_deliveries WHERE id = ${deliveryId(a.id, low([3])[0]!)}`));
  await publishOne(4);
  expect(await ids(a.id)).toEqual(low([1, 2, 4]).map((n) => deliveryId(a.id, n)));
  // A rolled-back publish hands out nothing that a later one would reuse (on PostgreSQL its event's id is simply skipped).
  await expect(
    inTransaction(async (tx) => {
      await publish(tx, "case.deleted", { id: 5 });
      throw new Error("producer failed");
    }),
  ).rejects.toThrow("producer failed");
  await publishOne(6);
  const bIds = await ids(b.id);
  expect(bIds).toEqual(low([1, 2, 3, 4, 5]).map((n) => deliveryId(b.id, n)));
  expect(new Set(bIds).size).toBe(5);
});

test("the delivery loop's wake runs outside the producer's transaction: what it schedules never nests in it", async () => {
  await addSubscription({ events: ["case.deleted"] });
  const seen: boolean[] = [];
  const stop = onEventsCommitted(() => {
    seen.push(insideTransaction(t.ctx.db));
    setImmediate(() => seen.push(insideTransaction(t.ctx.db)));
  });
  try {
    await inTransaction(async (tx) => {
      await publish(tx, "case.deleted", { id: 41 });
      await tx.select().from(webhookEvents).limit(1); // the producer goes on after the wake was queued
    });
    await until(() => seen.length === 2, "the wake and what it scheduled");
    expect(seen).toEqual([false, false]);
  } finally {
    stop();
  }
});
