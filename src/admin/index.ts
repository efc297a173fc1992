import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { readJsonApiBody } from "../http/body";
import { scimAdminRoutes } from "../scim/tokens";
import { apiTokenAdminRoutes } from "../tms/tokens";
import { webhookAdminRoutes } from "../webhooks";
import { ADMIN_PREFIX, assertAdmin, isAdminPath } from "./auth";
import { directoryAdminRoutes } from "./directory";
import { instanceAdminRoutes } from "./instance";
import { workspacesAdminRoutes } from "./workspaces";
import { provisioningLogAdminRoutes } from "./provisioning-log";

/** The largest admin request body (bytes): admin bodies are a few small fields. */
export const ADMIN_MAX_BODY_BYTES = 64 * 1024;

/**
 * Every admin router, relative to /api/admin. Each feature keeps its service and its route
 * factory in its own folder; this list is the one place they are mounted.
 *
 * To add an admin API: write `fooAdminRoutes(ctx)` in the feature's folder, returning
 * `new Elysia()` with paths relative to /api/admin (e.g. `.get("/foo", …)`) and no auth hook of
 * its own, then append it here. The guard below already covers it, before its body is read.
 */
const ADMIN_ROUTERS: ((ctx: AppContext) => Elysia<any, any, any, any, any, any, any>)[] = [
  scimAdminRoutes,
  apiTokenAdminRoutes,
  webhookAdminRoutes,
  provisioningLogAdminRoutes,
  directoryAdminRoutes,
  instanceAdminRoutes,
  workspacesAdminRoutes,
];

/**
 * The admin API's one home: `Authorization: Bearer $GATEHOUSE_ADMIN_TOKEN` on everything under
 * /api/admin/ (unknown admin paths included), checked in onRequest — before routing, parsing
 * or validation, so an unauthenticated caller gets 401 and not one byte of its body is read.
 * Bodies are then read as JSON within ADMIN_MAX_BODY_BYTES (413, counted while reading; another
 * media type → 415).
 */
export function adminRoutes(ctx: AppContext) {
  const home = new Elysia({ name: "admin", prefix: ADMIN_PREFIX })
    // onRequest hooks run for every request (there is no route yet), hence the path check.
    .onRequest(({ request }) => {
      if (isAdminPath(request.url)) assertAdmin(ctx, request);
    })
    .onParse(({ request }) => readJsonApiBody(request, ADMIN_MAX_BODY_BYTES))
    // Never reached (the reader above always answers): the OpenAPI generator lists a body's
    // media types only from named parsers, so this documents the bodies as JSON.
    .onParse({ fn: "json" } as never);
  return ADMIN_ROUTERS.reduce((app, router) => app.use(router(ctx)), home as Elysia<any, any, any, any, any, any, any>);
}
