import { Elysia, t } from "elysia";
import { ADMIN_GUARD_ERRORS, assertAdmin } from "../admin/auth";
import { apiErrorAnswers, jsonResponses } from "../http/responses";
import type { AppContext } from "../context";
import { metricsFor, PROMETHEUS_CONTENT_TYPE } from "../lib/metrics";
import { isDirectLoopbackRequest } from "../http/request-info";
import { openapiRoutes } from "./openapi";
import { diskShortfall, freeBytes } from "./storage";
import { buildInfo } from "../version";
import { schemaVersionOf } from "../db/migrate";
import { databaseWritable, pingDatabase, READY_DEADLINE_MS } from "../db/readiness";
import { isDraining } from "./drain";

const Status = t.Object({ status: t.String() });
const Readiness = t.Object({ status: t.String(), database: t.Optional(t.String()) });
const Build = t.Object({
  version: t.String({ description: "The release (its CHANGELOG.md section says what changed)" }),
  schemaVersion: t.Integer({ description: "The database schema this executable migrates to (its newest migration's number)" }),
  databaseSchemaVersion: t.Union([t.Integer(), t.Null()], { description: "The schema the database is at now" }),
  commit: t.String(),
  builtAt: t.Union([t.String(), t.Null()]),
  bun: t.String(),
  target: t.String(),
});

/** Health, readiness, metrics and the OpenAPI docs. */
export function opsRoutes(ctx: AppContext) {
  return new Elysia({ name: "ops" })
    .use(openapiRoutes(ctx))
    .get("/healthz", () => ({ status: "ok" }), {
      response: { 200: Status },
      detail: { tags: ["Operations"], summary: "Process is up", description: "Answers 200 while the process runs; does not touch the database.", security: [] },
    })
    .get(
      "/version",
      async ({ request }) => {
        // The exact commit tells an attacker which fixes are missing: same access as /metrics.
        if (!ctx.config.metricsPublic && !isDirectLoopbackRequest(request)) assertAdmin(ctx, request);
        return { ...buildInfo(), databaseSchemaVersion: await schemaVersionOf(ctx.db) };
      },
      {
        response: jsonResponses({ 200: Build }, ADMIN_GUARD_ERRORS),
        detail: {
          tags: ["Operations"],
          summary: "What build runs",
          description: "Version, schema version (of this executable and of the database), git commit, build date (null when run from source), Bun version and target platform, as `gatehouse version` prints them. Open to direct connections from loopback; from anywhere else send the admin token.",
          security: [{}, { adminBearer: [] }],
        },
      },
    )
    .get(
      "/readyz",
      async ({ set }) => {
        if (isDraining(ctx)) {
          set.status = 503;
          return { status: "draining" };
        }
        const unreachable = await pingDatabase(ctx.db);
        if (unreachable !== null) {
          set.status = 503;
          return { status: "unavailable", database: unreachable };
        }
        if (!(await databaseWritable(ctx.db))) {
          set.status = 503;
          return { status: "unavailable", database: "not writable: the database or its disk is full" };
        }
        const shortfall = diskShortfall(freeBytes(ctx.config.dataDir));
        if (shortfall) {
          set.status = 503;
          return { status: "unavailable", database: shortfall };
        }
        return { status: "ready" };
      },
      {
        response: { 200: Status, 503: Readiness },
        detail: {
          tags: ["Operations"],
          summary: "Database answers and takes writes",
          description: `200 when the database answers a query and can take any write it accepts; 503 while this node drains before stopping (\`status: "draining"\`), when the database does not answer within ${READY_DEADLINE_MS} ms or is read-only (on PostgreSQL: no primary, e.g. during a failover), while it is known to be full (a write failed for lack of space, and a 1 MiB probe write still fails), or when its disk has less than 64 MiB free (twice the largest write, a 32 MiB attachment).`,
          security: [],
        },
      },
    )
    .get(
      "/metrics",
      async ({ request }) => {
        // Loopback scrapes (a node exporter or Prometheus on the same host) need no token;
        // anything else, including requests relayed by a local reverse proxy, needs the admin token.
        if (!ctx.config.metricsPublic && !isDirectLoopbackRequest(request)) assertAdmin(ctx, request);
        return new Response(await metricsFor(ctx).render(), { headers: { "content-type": PROMETHEUS_CONTENT_TYPE } });
      },
      {
        detail: {
          tags: ["Operations"],
          summary: "Prometheus metrics",
          description: "Prometheus text format. Open to direct connections from loopback; from anywhere else send the admin token.",
          security: [{}, { adminBearer: [] }],
          responses: {
            200: { description: "Prometheus text exposition format 0.0.4", content: { "text/plain": { schema: { type: "string" } } } },
            ...apiErrorAnswers(ADMIN_GUARD_ERRORS),
          },
        },
      },
    );
}
