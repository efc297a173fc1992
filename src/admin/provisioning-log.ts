import { and, asc, gt } from "drizzle-orm";
import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { logExportResponse, type LogExportFormat } from "../http/log-export";
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

/** The provisioning log as a download (src/http/log-export.ts); the filters are checked before the answer starts. */
export function exportActivity(ctx: Pick<AppContext, "db">, q: Omit<ActivityExportQuery, "format">, format: LogExportFormat): Response {
  const where = activityWhere(q);
  return logExportResponse({
    format,
    name: "provisioning",
    columns: ["id", "at", "token_id", "token_name", "operation", "resource_type", "resource_id", "resource_name", "status", "scim_type", "detail", "request_id"],
    rowsAfter: (afterId, limit) => ctx.db.select().from(scimActivity).where(and(where, gt(scimActivity.id, afterId))).orderBy(asc(scimActivity.id)).limit(limit).all().map(toEntry),
    cells: (e: ActivityEntry) => [e.id, e.at, e.token.id, e.token.name, e.operation, e.resourceType, e.resourceId, e.resourceName, e.status, e.scimType, e.detail, e.requestId],
    entry: (e) => e,
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
        return exportActivity(ctx, q, format);
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
