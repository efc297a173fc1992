import { adminAccess } from "./access";
import { adminResponses } from "./auth";
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { ActivityListQuery, ActivityPage } from "../scim/activity/model";
import { listActivity } from "../scim/activity/service";

/** GET /api/admin/provisioning-log (mounted by src/admin): every SCIM write and its outcome, newest first. */
export function provisioningLogAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-provisioning-log" })
    .use(adminAccess(ctx))
    .get("/provisioning-log", ({ query }) => listActivity(ctx, query), {
      role: "viewer",
      query: ActivityListQuery,
      response: adminResponses({ 200: ActivityPage }, [400]),
      detail: {
        tags: ["Admin: SCIM"],
        summary: "Provisioning activity log: every SCIM write (time, token, operation, resource, outcome), newest first",
      },
    });
}
