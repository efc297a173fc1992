import { Elysia, t } from "elysia";
import { NumericId } from "../http/paging";
import { adminAccess } from "./access";
import { ADMIN_BODY_ERRORS, adminResponses } from "./auth";
import { NoContent } from "../http/responses";
import type { AppContext } from "../context";
import { EVENTS } from "../webhooks/catalog";
import * as m from "../webhooks/model";
import { subscriptionHealth } from "../webhooks/health";
import * as svc from "../webhooks/service";

const IdParam = t.Object({ id: NumericId });
const tags = ["Webhooks (admin)"];

/** Webhook subscriptions, delivery log and replay, under /api/admin (the engine and its services: src/webhooks). */
export function webhookAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "webhooks-admin" })
    .use(adminAccess(ctx))
    .post(
      "/webhooks",
      ({ body, set, audit }) => {
        set.status = 201;
        return audit({ action: "webhook.create", resource: { type: "webhook", id: (s) => s.id } }, () => svc.createSubscription(ctx, body));
      },
      {
        role: "operator",
        body: m.SubscriptionCreate,
        response: adminResponses({ 201: m.SubscriptionWithSecret }, [...ADMIN_BODY_ERRORS, 409]),
        detail: { tags, summary: "Create a subscription (the secret is shown only in this answer)" },
      },
    )
    .get("/webhooks/events", () => ({ items: Object.entries(EVENTS).map(([name, e]) => ({ name, trigger: e.trigger })) }), {
      role: "viewer",
      response: adminResponses({ 200: m.EventCatalog }),
      detail: { tags, summary: "The event catalog: every event a subscription can choose, with when it is sent" },
    })
    .get("/webhooks", async () => {
      const items = await svc.listSubscriptions(ctx);
      return { total: items.length, items };
    }, { role: "viewer", response: adminResponses({ 200: m.SubscriptionList }), detail: { tags, summary: "List subscriptions" } })
    .get("/webhooks/:id", ({ params }) => svc.getSubscription(ctx, params.id), {
      role: "viewer",
      params: IdParam,
      response: adminResponses({ 200: m.Subscription }, [400, 404]),
      detail: { tags, summary: "Get a subscription" },
    })
    .get("/webhooks/:id/health", ({ params }) => subscriptionHealth(ctx, params.id), {
      role: "viewer",
      params: IdParam,
      response: adminResponses({ 200: m.SubscriptionHealth }, [400, 404]),
      detail: { tags, summary: "Health: failing since, last error, deliveries waiting for a retry, success rate over the last day" },
    })
    .patch("/webhooks/:id", ({ params, body, audit }) => {
      // A PATCH of `enabled` alone is the Enable/Disable button: named so in the log.
      const onlyEnabled = Object.keys(body).length === 1 && body.enabled !== undefined;
      const action = onlyEnabled ? (body.enabled ? "webhook.enable" : "webhook.disable") : "webhook.update";
      return audit({ action, resource: { type: "webhook", id: params.id }, before: () => svc.getSubscription(ctx, params.id) }, () => svc.updateSubscription(ctx, params.id, body));
    }, {
      role: "operator",
      params: IdParam,
      body: m.SubscriptionPatch,
      response: adminResponses({ 200: m.Subscription }, [...ADMIN_BODY_ERRORS, 404, 409]),
      detail: { tags, summary: "Change a subscription (enabled: true re-enables and clears disabledReason)" },
    })
    .delete(
      "/webhooks/:id",
      async ({ params, audit }) => {
        await audit({ action: "webhook.delete", resource: { type: "webhook", id: params.id }, before: () => svc.getSubscription(ctx, params.id), after: () => null }, () => svc.deleteSubscription(ctx, params.id));
        return new Response(null, { status: 204 });
      },
      { role: "operator", params: IdParam, response: adminResponses({ 204: NoContent }, [400, 404]), detail: { tags, summary: "Delete a subscription with its deliveries" } },
    )
    .post("/webhooks/:id/rotate-secret", ({ params, audit }) =>
      audit({ action: "webhook.rotate_secret", resource: { type: "webhook", id: params.id }, after: (r) => ({ oldSecretSignsUntil: r.previousSecretExpiresAt }) }, () => svc.rotateSecret(ctx, params.id)), {
      role: "operator",
      params: IdParam,
      response: adminResponses({ 200: m.RotatedSecret }, [400, 404]),
      detail: { tags, summary: "Rotate the signing secret (the old one keeps signing for 24 h)" },
    })
    .post(
      "/webhooks/:id/test",
      ({ params, body, set, audit }) => {
        set.status = 202;
        return audit(
          { action: "webhook.test", resource: { type: "webhook", id: params.id }, after: (r) => ({ event: body.event, deliveries: r.deliveryIds.length }) },
          () => svc.enqueueTest(ctx, params.id, body.event, body.count ?? 1),
        );
      },
      {
        role: "operator",
        params: IdParam,
        body: m.TestRequest,
        response: adminResponses({ 202: m.TestResult }, [...ADMIN_BODY_ERRORS, 404, 409]),
        detail: { tags, summary: "Send the catalog's example of an event to this subscription only" },
      },
    )
    .get("/webhooks/:id/deliveries", ({ params, query }) => svc.listDeliveries(ctx, params.id, query), {
      role: "viewer",
      params: IdParam,
      query: m.DeliveryListQuery,
      response: adminResponses({ 200: m.DeliveryPage }, [400, 404]),
      detail: { tags, summary: "Delivery log of a subscription, newest first (filter by status and event)" },
    })
    .post(
      "/webhooks/:id/recover",
      ({ params, body, set, audit }) => {
        set.status = 202;
        return audit({ action: "webhook.recover", resource: { type: "webhook", id: params.id }, after: (r) => ({ since: body.since, ...r }) }, () => svc.recover(ctx, params.id, body.since));
      },
      {
        role: "operator",
        params: IdParam,
        body: m.RecoverRequest,
        response: adminResponses({ 202: m.RecoverResult }, [...ADMIN_BODY_ERRORS, 404, 409]),
        detail: { tags, summary: "Re-queue every failed delivery created since a time" },
      },
    )
    .get("/deliveries/:id", ({ params }) => svc.getDelivery(ctx, params.id), {
      role: "viewer",
      params: IdParam,
      response: adminResponses({ 200: m.DeliveryDetail }, [400, 404]),
      detail: { tags, summary: "One delivery: event, payload and every attempt" },
    })
    .post(
      "/deliveries/:id/redeliver",
      ({ params, set, audit }) => {
        set.status = 202;
        return audit({ action: "delivery.redeliver", resource: { type: "delivery", id: params.id } }, () => svc.redeliver(ctx, params.id));
      },
      { role: "operator", params: IdParam, response: adminResponses({ 202: m.Requeued }, [400, 404, 409]), detail: { tags, summary: "Send one delivery again (same webhook-id, fresh retry cycle)" } },
    );
}
