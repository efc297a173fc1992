import { t } from "elysia";
import { PageLimit, PageOffset } from "../http/paging";

/** Schemas of the audit log's admin API: validation, types and the OpenAPI document share them. */

export const AuditOutcome = t.Union([t.Literal("success"), t.Literal("failure"), t.Literal("denied")], {
  description: "success: done; failure: tried and refused by the action (404, 409, a failed sign-in); denied: the role or CSRF check refused it",
});
export const ActorKind = t.Union([t.Literal("person"), t.Literal("env-token"), t.Literal("admin-token"), t.Literal("anonymous")], {
  description: "person: signed in through the IdP; env-token: GATEHOUSE_ADMIN_TOKEN (automation, break-glass); admin-token: a named admin API token; anonymous: a failed sign-in",
});

const filters = {
  actor: t.Optional(t.String({ maxLength: 200, description: "Exact actor name (a person's e-mail or name, or a token name)" })),
  action: t.Optional(t.String({ maxLength: 100, description: 'Exact action (webhook.update) or a family ending in a dot (webhook.)' })),
  resourceType: t.Optional(t.String({ maxLength: 100, examples: ["webhook"] })),
  resourceId: t.Optional(t.String({ maxLength: 200 })),
  outcome: t.Optional(AuditOutcome),
  since: t.Optional(t.String({ format: "date-time", description: "At or after this time" })),
  until: t.Optional(t.String({ format: "date-time", description: "Before this time" })),
};

export const AuditListQuery = t.Object({ ...filters, limit: PageLimit, offset: PageOffset });
export type AuditListQuery = typeof AuditListQuery.static;

export const AuditExportQuery = t.Object({
  ...filters,
  format: t.Union([t.Literal("csv"), t.Literal("ndjson")], { description: "csv (RFC 4180, a header row) or ndjson (one entry as JSON per line)" }),
});
export type AuditExportQuery = typeof AuditExportQuery.static;

export const AuditEntry = t.Object({
  id: t.Integer(),
  at: t.String({ format: "date-time" }),
  actor: t.Object({ kind: ActorKind, name: t.String(), role: t.Union([t.String(), t.Null()]) }),
  source: t.Object({
    ip: t.Union([t.String(), t.Null()], { description: "The TCP peer's address (a reverse proxy's, behind one)" }),
    userAgent: t.Union([t.String(), t.Null()]),
    requestId: t.Union([t.String(), t.Null()], { description: "x-request-id of the call (its line in the request log)" }),
  }),
  action: t.String({ examples: ["webhook.update"] }),
  resource: t.Union([t.Object({ type: t.String(), id: t.Union([t.String(), t.Null()]) }), t.Null()]),
  summary: t.Union([t.Object({ before: t.Optional(t.Unknown()), after: t.Optional(t.Unknown()) }), t.Null()], { description: "What changed, secrets redacted" }),
  outcome: AuditOutcome,
  detail: t.Union([t.String(), t.Null()]),
});
export type AuditEntry = typeof AuditEntry.static;

export const AuditPage = t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer(), items: t.Array(AuditEntry) });
