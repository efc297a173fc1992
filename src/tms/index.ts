import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { readJsonApiBody } from "../http/body";
import { callerOf } from "./shared/auth";
import { callerAndProject } from "./shared/api";
import { normaliseCode } from "./projects/service";
import { attachmentRoutes } from "./attachments";
import { isAttachmentUpload, readUpload } from "./attachments/upload";
import { caseRoutes } from "./cases";
import { configurationRoutes } from "./configurations";
import { customFieldRoutes, customFieldV2Routes } from "./custom-fields";
import { defectRoutes } from "./defects";
import { environmentRoutes } from "./environments";
import { milestoneRoutes } from "./milestones";
import { planRoutes } from "./plans";
import { projectRoutes } from "./projects";
import { publicReportRoutes, runLinkRoutes } from "./public-report";
import { runRoutes, runV2Routes } from "./runs";
import { searchRoutes } from "./search";
import { sharedParameterRoutes } from "./shared-parameters";
import { sharedStepRoutes } from "./shared-steps";
import { suiteRoutes } from "./suites";
import { workspaceRoutes } from "./workspace";

/** The largest /api/v1 or /api/v2 request body (bytes); bulk writes also have row budgets. */
export const TMS_MAX_BODY_BYTES = 8 * 1024 * 1024;

/**
 * Test-management entities behind a Qase-v1-shaped API (plus the v2 results endpoints the Qase
 * reporters use), served under /api/v1 and /api/v2 and, with the same handlers, at /v1 and /v2
 * (Qase clients that build `<host>/v1/...` themselves, such as @qase/mcp-server, take no path).
 * Every mutation publishes its webhook event in its own transaction. API tokens are managed
 * under /api/admin/api-tokens (mounted by src/admin).
 */
export function tmsRoutes(ctx: AppContext) {
  const controllers = [
    projectRoutes, caseRoutes, suiteRoutes, milestoneRoutes, sharedStepRoutes,
    planRoutes, runRoutes, runV2Routes, defectRoutes, customFieldRoutes, customFieldV2Routes, environmentRoutes, configurationRoutes, workspaceRoutes, attachmentRoutes, searchRoutes,
    sharedParameterRoutes,
  ];
  // The body hooks reach every controller's routes (they are used below them): the `Token` is
  // checked before one byte is read (401), then the JSON body within TMS_MAX_BODY_BYTES (413).
  const withBodyHooks = (mounted: Elysia<any>) => mounted
    .onParse(async ({ request, params }) => {
      // A route naming a project (`:code`) reads it with the token, in one statement (callerAndProject).
      const code = (params as Record<string, string | undefined> | undefined)?.code;
      await (code === undefined ? callerOf(ctx, request) : callerAndProject(ctx, request, normaliseCode(code)));
      // The attachment upload is the one multipart body (src/tms/attachments/upload.ts).
      if (isAttachmentUpload(request)) return readUpload(request);
      return readJsonApiBody(request, TMS_MAX_BODY_BYTES);
    })
    // Never reached (the reader above always answers): the OpenAPI generator lists a body's
    // media types only from named parsers, so this documents the bodies as JSON.
    .onParse({ fn: "json" } as never);
  // Folded one by one: chaining them all in one expression exceeds TypeScript's union limit,
  // and nothing consumes the combined route types (no typed client over this API).
  const mount = (prefix: string) =>
    controllers.reduce((app, controller) => app.use(controller(ctx) as unknown as Elysia), withBodyHooks(new Elysia({ prefix }) as Elysia<any>) as unknown as Elysia);
  return new Elysia({ name: "tms" }).use(mount("/api")).use(mount("")).use(publicReportRoutes(ctx)).use(runLinkRoutes(ctx));
}
