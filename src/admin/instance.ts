import { adminAccess } from "./access";
import { adminResponses } from "./auth";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { footprintReader } from "../db/footprint";
import { preparedQuery } from "../db/statement";
import { SCHEMA_VERSION } from "../version";
import { deliveryBacklog } from "../webhooks/delivery-metrics";

const InstanceInfo = t.Object({
  version: t.String(),
  schemaVersion: t.Integer({ description: "The database schema this executable migrates to (as /version)" }),
  startedAt: t.String({ format: "date-time" }),
  uptimeSeconds: t.Integer(),
  baseUrl: t.String({ description: "GATEHOUSE_BASE_URL" }),
  database: t.Object({
    sizeBytes: t.Integer({ description: "Pages in use × page size" }),
    walBytes: t.Integer({ description: "Size of the write-ahead log file now" }),
  }),
  webhooks: t.Object({
    subscriptions: t.Integer(),
    disabledSubscriptions: t.Integer(),
    backlog: t.Integer({ description: "Pending deliveries: due, waiting for a retry or in flight" }),
  }),
  links: t.Object({ openapi: t.String(), metrics: t.String() }),
});

const subscriptionCounts = preparedQuery<{ total: number; disabled: number }, []>(
  "SELECT count(*) AS total, count(*) FILTER (WHERE enabled = 0) AS disabled FROM webhook_subscriptions",
);

/** GET /api/admin/instance: what the console's Instance page shows. */
export function instanceAdminRoutes(ctx: AppContext) {
  const startedAt = Date.now() - Math.round(process.uptime() * 1000);
  const footprint = footprintReader(ctx.db);
  return new Elysia({ name: "admin-instance" })
    .use(adminAccess(ctx))
    .get(
      "/instance",
      async () => {
        const [s, backlog, database] = await Promise.all([subscriptionCounts.get(ctx.db), deliveryBacklog(ctx), footprint()]);
        return {
          version: ctx.version,
          schemaVersion: SCHEMA_VERSION,
          startedAt: new Date(startedAt).toISOString(),
          uptimeSeconds: Math.floor((Date.now() - startedAt) / 1000),
          baseUrl: ctx.config.baseUrl,
          database,
          webhooks: { subscriptions: s!.total, disabledSubscriptions: s!.disabled, backlog },
          links: { openapi: "/openapi", metrics: "/metrics" },
        };
      },
      { role: "viewer", response: adminResponses({ 200: InstanceInfo }), detail: { tags: ["Operations"], summary: "Version, uptime, database size and webhook backlog" } },
    );
}
