import { afterAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { createTestApp } from "../helpers";
import { EVENTS } from "../../src/webhooks/catalog";
import { publish } from "../../src/webhooks/publish";
import { deliveryId, webhookDeliveries, webhookEvents, webhookSubscriptions } from "../../src/webhooks/tables";

const t = createTestApp();
afterAll(() => t.close());

function addSubscription(values: { events: string[]; projectCode?: string | null; enabled?: boolean }) {
  const now = Date.now();
  return t.ctx.db
    .insert(webhookSubscriptions)
    .values({ url: "http://127.0.0.1:9/hook", secret: "whsec_dGVzdHRlc3R0ZXN0dGVzdHRlc3R0ZXN0", createdAt: now, updatedAt: now, projectCode: null, enabled: true, ...values })
    .returning()
    .get();
}

test("publish writes the event and one delivery per matching enabled subscription, in the caller's transaction", () => {
  const all = addSubscription({ events: ["*"] });
  const cases = addSubscription({ events: ["case.created", "case.deleted"] });
  const demoOnly = addSubscription({ events: ["*"], projectCode: "DEMO" });
  const other = addSubscription({ events: ["*"], projectCode: "OTHER" });
  const disabled = addSubscription({ events: ["*"], enabled: false });
  const suites = addSubscription({ events: ["suite.created"] });

  t.ctx.db.transaction((tx) => publish(tx, "case.created", EVENTS["case.created"].example, { projectCode: "DEMO" }), { behavior: "immediate" });

  const events = t.ctx.db.select().from(webhookEvents).all();
  expect(events.length).toBe(1);
  expect(events[0]!.uid).toMatch(/^msg_[A-Za-z0-9_-]{22}$/);
  expect(JSON.parse(events[0]!.payload)).toEqual(EVENTS["case.created"].example);
  const targets = t.ctx.db.select().from(webhookDeliveries).all().map((d) => d.subscriptionId).sort();
  expect(targets).toEqual([all.id, cases.id, demoOnly.id].sort());
  expect(targets).not.toContain(other.id);
  expect(targets).not.toContain(disabled.id);
  expect(targets).not.toContain(suites.id);
});

test("an invalid payload throws and the whole transaction rolls back", () => {
  const before = t.ctx.db.select().from(webhookEvents).all().length;
  expect(() =>
    t.ctx.db.transaction((tx) => {
      publish(tx, "case.updated", { id: 7 });
      publish(tx, "case.updated", { id: "seven" });
    }, { behavior: "immediate" }),
  ).toThrow(/invalid payload for case.updated/);
  expect(t.ctx.db.select().from(webhookEvents).all().length).toBe(before);
});

test("a rolled-back producer transaction leaves no event behind", () => {
  const before = t.ctx.db.select().from(webhookEvents).all().length;
  expect(() =>
    t.ctx.db.transaction((tx) => {
      publish(tx, "case.deleted", { id: 7 });
      throw new Error("entity write failed");
    }, { behavior: "immediate" }),
  ).toThrow("entity write failed");
  expect(t.ctx.db.select().from(webhookEvents).all().length).toBe(before);
});

test("a subscription's deliveries get ids of their own range, in publish order, never reused", () => {
  const a = addSubscription({ events: ["case.deleted"] });
  const b = addSubscription({ events: ["case.deleted"] });
  const ids = (subscriptionId: number) =>
    t.ctx.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.subscriptionId, subscriptionId))
      .orderBy(webhookDeliveries.id)
      .all()
      .map((r) => r.id);
  for (let i = 1; i <= 3; i++) t.ctx.db.transaction((tx) => publish(tx, "case.deleted", { id: i }), { behavior: "immediate" });
  // Interleaved in publish order, yet each subscription's ids are contiguous: its deliveries sit together.
  expect(ids(a.id)).toEqual([1, 2, 3].map((n) => deliveryId(a.id, n)));
  expect(ids(b.id)).toEqual([1, 2, 3].map((n) => deliveryId(b.id, n)));
  expect(deliveryId(a.id, 1)).toBe(a.id * 2 ** 32 + 1);
  // Deleting the newest delivery (as retention may) does not hand its id out again.
  t.ctx.sqlite.run("DELETE FROM webhook_deliveries WHERE id = ?", [deliveryId(a.id, 3)]);
  t.ctx.db.transaction((tx) => publish(tx, "case.deleted", { id: 4 }), { behavior: "immediate" });
  expect(ids(a.id)).toEqual([1, 2, 4].map((n) => deliveryId(a.id, n)));
  // A rolled-back publish leaves the count where it was.
  expect(() =>
    t.ctx.db.transaction(
      (tx) => {
        publish(tx, "case.deleted", { id: 5 });
        throw new Error("producer failed");
      },
      { behavior: "immediate" },
    ),
  ).toThrow("producer failed");
  t.ctx.db.transaction((tx) => publish(tx, "case.deleted", { id: 6 }), { behavior: "immediate" });
  expect(ids(b.id)).toEqual([1, 2, 3, 4, 5].map((n) => deliveryId(b.id, n)));
});
