import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { caseRoutes } from "./cases";
import { customFieldRoutes } from "./custom-fields";
import { defectRoutes } from "./defects";
import { milestoneRoutes } from "./milestones";
import { planRoutes } from "./plans";
import { projectRoutes } from "./projects";
import { runRoutes, runV2Routes } from "./runs";
import { sharedStepRoutes } from "./shared-steps";
import { suiteRoutes } from "./suites";
import { apiTokenAdminRoutes } from "./tokens";

/**
 * Test-management entities behind a Qase-v1-shaped API (plus the v2 results endpoints the Qase
 * reporters use), served under /api/v1 and /api/v2 and, with the same handlers, at /v1 and /v2
 * (Qase clients that build `<host>/v1/...` themselves, such as @qase/mcp-server, take no path).
 * Every mutation publishes its webhook event in its own transaction. API tokens are managed
 * under /api/admin/api-tokens.
 */
export function tmsRoutes(ctx: AppContext) {
  const controllers = [
    projectRoutes, caseRoutes, suiteRoutes, milestoneRoutes, sharedStepRoutes,
    planRoutes, runRoutes, runV2Routes, defectRoutes, customFieldRoutes,
  ];
  // Folded one by one: chaining them all in one expression exceeds TypeScript's union limit,
  // and nothing consumes the combined route types (no typed client over this API).
  const mount = (prefix: string) =>
    controllers.reduce((app, controller) => app.use(controller(ctx) as unknown as Elysia), new Elysia({ prefix }));
  return new Elysia({ name: "tms" }).use(apiTokenAdminRoutes(ctx)).use(mount("/api")).use(mount(""));
}
