import { Elysia, t } from "elysia";
import { and, asc, eq, isNull } from "drizzle-orm";
import type { AppContext } from "../../context";
import { workspaces } from "../../directory/tables";
import { first } from "../../db/transaction";
import { notFound } from "../../http/errors";
import { ApiErrorBody, apiErrorAnswers, ERROR_MEANINGS } from "../../http/responses";
import { cases } from "../cases/tables";
import { projects } from "../projects/tables";
import { runViews } from "../runs/service";
import { runCases, runs } from "../runs/tables";
import { NOT_FOUND_PAGE, renderReport, renderRunLink, STYLE_HASH } from "./render";

/** Read-only and self-contained: nothing but its own hashed style may load, nothing may frame it. */
const HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`,
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

const HTML = { type: "string", description: "An HTML document" } as const;

/** `Accept` names JSON and not HTML (an API client, not a browser). */
function wantsJsonOnly(request: Request): boolean {
  const accept = request.headers.get("accept") ?? "";
  return /\bapplication\/json\b/i.test(accept) && !/\btext\/html\b/i.test(accept);
}

/**
 * The public run report at the address `PATCH /run/{code}/{id}/public` returns: no token needed,
 * found by the random secret in its path only while the run is public (turning `public` off
 * makes it a 404 for good) and its workspace is not archived. Deleted cases are not listed.
 */
export function publicReportRoutes(ctx: AppContext) {
  return new Elysia({ name: "public-report" }).get("/public/report/:token", async ({ params, request }) => {
    // An archived workspace publishes nothing (its tokens answer 403 too); restoring it brings the page back.
    const row = await first(ctx.db.select({ run: runs, project: projects }).from(runs).innerJoin(projects, eq(projects.id, runs.projectId))
      .innerJoin(workspaces, eq(workspaces.id, projects.workspaceId))
      .where(and(eq(runs.publicToken, params.token), eq(runs.isPublic, true), isNull(workspaces.archivedAt))));
    if (!row) {
      // A browser gets a page; a client asking for JSON only gets the API's error body.
      if (wantsJsonOnly(request)) throw notFound("Public report");
      return new Response(NOT_FOUND_PAGE, { status: 404, headers: HEADERS });
    }
    const view = (await runViews(ctx.db, [row.run], ctx.config.baseUrl, row.project.code))[0]!;
    const list = await ctx.db.select({ title: cases.title, status: runCases.status }).from(runCases).innerJoin(cases, eq(cases.id, runCases.caseId))
      .where(and(eq(runCases.runId, row.run.id), isNull(cases.deleted))).orderBy(asc(runCases.position)); // a deleted case's title is gone from every view
    const html = renderReport({
      project: `${row.project.title} (${row.project.code})`, title: row.run.title, description: row.run.description, status: row.run.status,
      environment: view.environment?.title ?? null, started: row.run.startTime, ended: row.run.endTime,
      stats: view.stats as unknown as Record<string, number>, cases: list,
    });
    return new Response(html, { headers: HEADERS });
  }, {
    params: t.Object({ token: t.String({ maxLength: 64 }) }),
    detail: {
      tags: ["Runs"],
      summary: "Public run report (read-only HTML; no token; 404 once the run is private again)",
      security: [], // the random address is the credential
      responses: {
        200: { description: "The report page", content: { "text/html": { schema: HTML } } },
        ...apiErrorAnswers([400]),
        404: {
          description: `${ERROR_MEANINGS[404]}: no public run has this address (never had, or turned private). A page, or the JSON error body when the request accepts application/json and not text/html`,
          content: { "text/html": { schema: HTML }, "application/json": { schema: ApiErrorBody } },
        },
      },
    },
  });
}

/**
 * The run link the Qase reporters print, `{QASE_TESTOPS_API_HOST}/run/{CODE}/dashboard/{id}` — the
 * host being Gatehouse's base URL or `{base}/api` — lands on a page that says what the run is and
 * how to see it (renderRunLink): never a 404, and never the run's data without a credential.
 */
export function runLinkRoutes(ctx: AppContext) {
  const page = ({ params }: { params: { code: string; id: string } }) => new Response(renderRunLink(ctx.config.baseUrl, params.code, params.id), { headers: HEADERS });
  const options = {
    params: t.Object({ code: t.String({ maxLength: 32 }), id: t.String({ maxLength: 20 }) }),
    detail: { tags: ["Runs"], summary: "The run link Qase reporters print: a page saying how to see the run (no token; reads nothing)", security: [], responses: { 200: { description: "The page", content: { "text/html": { schema: HTML } } } } },
  };
  return new Elysia({ name: "run-link" }).get("/run/:code/dashboard/:id", page, options).get("/api/run/:code/dashboard/:id", page, { ...options, detail: { ...options.detail, hide: true } });
}
