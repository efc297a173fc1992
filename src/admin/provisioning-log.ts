import { and, asc, gt } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { csvField } from "../audit/service";
import { apiErrorAnswers, queryParameters } from "../http/responses";
import { ActivityListQuery, ActivityPage, type ActivityEntry } from "../scim/activity/model";
import { activityWhere, listActivity, toEntry } from "../scim/activity/service";
import { scimActivity } from "../scim/activity/tables";
import { adminAccess } from "./access";
import { ADMIN_GUARD_ERRORS, adminResponses } from "./auth";

const tags = ["Admin: SCIM"];

const { limit: _limit, offset: _offset, ...filters } = ActivityListQuery.properties;
export const ActivityExportQuery = t.Object({
  ...filters,
  format: t.Union([t.Literal("csv"), t.Literal("ndjson")], { description: "csv (RFC 4180, a header row) or ndjson (one entry as JSON per line)" }),
});
type ActivityExportQuery = typeof ActivityExportQuery.static;

const CSV_COLUMNS = ["id", "at", "token_id", "token_name", "operation", "resource_type", "resource_id", "resource_name", "status", "scim_type", "detail", "request_id"] as const;
const csvLine = (e: ActivityEntry) =>
  [e.id, e.at, e.token.id, e.token.name, e.operation, e.resourceType, e.resourceId, e.resourceName, e.status, e.scimType, e.detail, e.requestId].map(csvField).join(",") + "\r\n";

/**
 * The whole filtered log, oldest first, streamed in batches of 500 rows keyed by id (so a long
 * export neither holds a read transaction open nor skips or repeats a row written meanwhile).
 */
export function exportActivity(ctx: Pick<AppContext, "db">, q: Omit<ActivityExportQuery, "format">, format: "csv" | "ndjson"): ReadableStream<Uint8Array> {
  const where = activityWhere(q); // validates the time range before the answer starts
  const encoder = new TextEncoder();
  let afterId = 0;
  let headerSent = format !== "csv";
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!headerSent) {
        headerSent = true;
        controller.enqueue(encoder.encode(CSV_COLUMNS.join(",") + "\r\n"));
        return;
      }
      const rows = ctx.db.select().from(scimActivity).where(and(where, gt(scimActivity.id, afterId))).orderBy(asc(scimActivity.id)).limit(500).all();
      if (rows.length === 0) return controller.close();
      afterId = rows[rows.length - 1]!.id;
      controller.enqueue(encoder.encode(rows.map((r) => (format === "csv" ? csvLine(toEntry(r)) : JSON.stringify(toEntry(r)) + "\n")).join("")));
    },
  });
}

/** GET /api/admin/provisioning-log (+ /export), mounted by src/admin: every SCIM write and its outcome. */
export function provisioningLogAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-provisioning-log" })
    .use(adminAccess(ctx))
    .get("/provisioning-log", ({ query }) => listActivity(ctx, query), {
      role: "viewer",
      query: ActivityListQuery,
      response: adminResponses({ 200: ActivityPage }, [400]),
      detail: {
        tags,
        summary: "Provisioning activity log: every SCIM write (time, token, operation, resource, outcome), newest first",
      },
    })
    .get(
      "/provisioning-log/export",
      ({ query }) => {
        const { format, ...q } = query;
        const stream = exportActivity(ctx, q, format);
        const day = new Date().toISOString().slice(0, 10);
        return new Response(stream, {
          headers: {
            "content-type": format === "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson; charset=utf-8",
            "content-disposition": `attachment; filename="gatehouse-provisioning-${day}.${format}"`,
            "cache-control": "no-store",
            "x-content-type-options": "nosniff",
          },
        });
      },
      {
        role: "viewer",
        query: ActivityExportQuery,
        detail: {
          tags,
          summary: "Export the filtered provisioning log, oldest first, as CSV or NDJSON (a download)",
          parameters: queryParameters(ActivityExportQuery),
          responses: {
            200: {
              description: "The entries: CSV with a header row, or one JSON entry per line (the list's entry shape)",
              content: { "text/csv": { schema: { type: "string" } }, "application/x-ndjson": { schema: { type: "string" } } },
            },
            ...apiErrorAnswers([...ADMIN_GUARD_ERRORS, 400]),
          },
        },
      },
    );
}
