import { Elysia } from "elysia";
import { adminAccess } from "./access";
import type { AppContext } from "../context";
import { apiErrorAnswers, queryParameters } from "../http/responses";
import { adminResponses, logExportDetail } from "./auth";
import { AuditExportQuery, AuditListQuery, AuditPage } from "../audit/model";
import { exportAudit, keepAuditFor, listAudit } from "../audit/service";

const tags = ["Admin: audit log"];

/** GET /api/admin/audit-log (+ /export): who did what, when, from where, with what outcome (the log itself: src/audit). */
export function auditAdminRoutes(ctx: AppContext) {
  keepAuditFor(ctx.db, ctx.config.auditRetentionDays);
  return new Elysia({ name: "admin-audit-log" })
    .use(adminAccess(ctx))
    .get("/audit-log", ({ query }) => listAudit(ctx, query), {
      role: "operator",
      query: AuditListQuery,
      response: adminResponses({ 200: AuditPage }, [400]),
      detail: { tags, summary: "The audit log: every admin action, sign-in and refusal, newest first (filters, paging, time range)" },
    })
    .get(
      "/audit-log/export",
      ({ query }) => {
        const { format, ...filters } = query;
        return exportAudit(ctx, filters, format);
      },
      {
        role: "operator",
        query: AuditExportQuery,
        detail: logExportDetail(tags, "Export the filtered audit log, oldest first, as CSV or NDJSON (a download)", AuditExportQuery),
      },
    );
}
