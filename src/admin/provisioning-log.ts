import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { apiErrorAnswers, queryParameters } from "../http/responses";
import { ActivityListQuery, ActivityPage } from "../scim/activity/model";
import { exportActivity, listActivity } from "../scim/activity/service";
import { adminAccess } from "./access";
import { adminResponses, logExportDetail } from "./auth";

const tags = ["Admin: SCIM"];

const { limit: _limit, offset: _offset, ...filters } = ActivityListQuery.properties;
export const ActivityExportQuery = t.Object({
  ...filters,
  format: t.Union([t.Literal("csv"), t.Literal("ndjson")], { description: "csv (RFC 4180, a header row) or ndjson (one entry as JSON per line)" }),
});

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
        detail: logExportDetail(tags, "Export the filtered provisioning log, oldest first, as CSV or NDJSON (a download)", ActivityExportQuery),
      },
    );
}
