import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { readJsonApiBody } from "../http/body";
import { scimAdminRoutes } from "./scim";
import { apiTokenAdminRoutes } from "./api-tokens";
import { webhookAdminRoutes } from "./webhooks";
import { guardAdminRequest } from "./access";
import { ADMIN_PREFIX, isAdminPath } from "./auth";
import { isRole, ROLE_KEY, routeRoleTable, type Role } from "./roles";
import { adminTokenAdminRoutes } from "./tokens";
import { meAdminRoutes } from "./me";
import { sessionAdminRoutes } from "./signin";
import { auditAdminRoutes } from "./audit-log";
import { directoryAdminRoutes } from "./directory";
import { instanceAdminRoutes } from "./instance";
import { workspacesAdminRoutes } from "./workspaces";
import { provisioningLogAdminRoutes } from "./provisioning-log";
import { projectsAdminRoutes } from "./projects";

/** The largest admin request body (bytes): admin bodies are a few small fields. */
export const ADMIN_MAX_BODY_BYTES = 64 * 1024;

/**
 * Every admin router, relative to /api/admin. The admin API is one home: its routers live here,
 * in src/admin, and call the services the features keep in their folders (a feature never
 * imports the admin API, which stands above them all).
 *
 * To add an admin API: write `fooAdminRoutes(ctx)` in a file of src/admin/ (say `foo.ts`), returning
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
  projectsAdminRoutes,
  adminTokenAdminRoutes,
  meAdminRoutes,
  sessionAdminRoutes,
  auditAdminRoutes,
];

/** Every admin route with the role it declared (undefined when it declared none: the route-role test fails on it). */
export function adminRouteRoles(app: { routes: { method: string; path: string; hooks: unknown }[] }) {
  return app.routes
    .filter((r) => isAdminPath("http://h" + r.path))
    .map((r) => {
      const declared = ((r.hooks as { detail?: Record<string, unknown> } | undefined)?.detail ?? {})[ROLE_KEY];
      return { method: r.method, path: r.path, role: isRole(declared) ? declared : undefined };
    });
}

/**
 * The admin API's one home and its one guard: on everything under /api/admin/ (unknown admin
 * paths included) the caller is authenticated and their role compared with the role the route
 * declared (src/admin/access.ts), in onRequest — before routing, parsing or validation, so a
 * caller without a credential gets 401, one without the role 403, and not one byte of the body
 * is read. Bodies are then read as JSON within ADMIN_MAX_BODY_BYTES (413, counted while reading;
 * another media type → 415).
 */
export function adminRoutes(ctx: AppContext) {
  let roleOf: (method: string, path: string) => Role | null = () => "owner";
  const home = new Elysia({ name: "admin", prefix: ADMIN_PREFIX })
    // onRequest hooks run for every request (there is no route yet), hence the path check.
    .onRequest(async ({ request }) => {
      if (isAdminPath(request.url)) await guardAdminRequest(ctx, request, roleOf);
    })
    .onParse(({ request }) => readJsonApiBody(request, ADMIN_MAX_BODY_BYTES))
    // Never reached (the reader above always answers): the OpenAPI generator lists a body's
    // media types only from named parsers, so this documents the bodies as JSON.
    .onParse({ fn: "json" } as never);
  const app = ADMIN_ROUTERS.reduce((app, router) => app.use(router(ctx)), home as Elysia<any, any, any, any, any, any, any>);
  roleOf = routeRoleTable(adminRouteRoles(app));
  return app;
}
