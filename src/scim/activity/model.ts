import { t } from "elysia";
import { PageLimit, PageOffset } from "../../http/paging";

/** Schemas of the provisioning activity log's admin API (validation, types and OpenAPI share them). */

export const ActivityOperation = t.Union([t.Literal("create"), t.Literal("replace"), t.Literal("update"), t.Literal("delete")], {
  description: "create = POST, replace = PUT, update = PATCH, delete = DELETE (for a user: deactivate)",
});
export const ActivityResourceType = t.Union([t.Literal("User"), t.Literal("Group")]);

export const ActivityListQuery = t.Object({
  operation: t.Optional(ActivityOperation),
  resourceType: t.Optional(ActivityResourceType),
  outcome: t.Optional(t.Union([t.Literal("success"), t.Literal("failure")], { description: "success = 2xx, failure = any other status" })),
  status: t.Optional(t.Numeric({ minimum: 100, maximum: 599, description: "Exact HTTP status" })),
  tokenId: t.Optional(t.Integer({ minimum: 1, description: "Only writes made with this SCIM token" })),
  resourceId: t.Optional(t.String({ maxLength: 200, description: "Only writes to this user or group id" })),
  q: t.Optional(t.String({ maxLength: 200, description: "Substring of the userName / displayName (case-insensitive)" })),
  since: t.Optional(t.String({ format: "date-time", description: "At or after this time" })),
  until: t.Optional(t.String({ format: "date-time", description: "Before this time" })),
  limit: PageLimit,
  offset: PageOffset,
});
export type ActivityListQuery = typeof ActivityListQuery.static;

export const ActivityEntry = t.Object({
  id: t.Integer(),
  at: t.String({ format: "date-time" }),
  token: t.Object({ id: t.Integer(), name: t.String() }),
  operation: ActivityOperation,
  resourceType: ActivityResourceType,
  resourceId: t.Union([t.String(), t.Null()], { description: "Null for a create that failed" }),
  resourceName: t.Union([t.String(), t.Null()], { description: "userName (users) or displayName (groups), when known" }),
  status: t.Integer({ description: "HTTP status of the answer" }),
  scimType: t.Union([t.String(), t.Null()], { description: "SCIM error type of a failure (invalidValue, uniqueness, …)" }),
  detail: t.Union([t.String(), t.Null()], { description: "SCIM error detail of a failure" }),
  requestId: t.String({ description: "x-request-id of the call (its line in the request log)" }),
});
export type ActivityEntry = typeof ActivityEntry.static;

export const ActivityPage = t.Object({ total: t.Integer(), limit: t.Integer(), offset: t.Integer(), items: t.Array(ActivityEntry) });
