import { Elysia, type TSchema } from "elysia";
import { apiErrorAnswers, jsonResponses, type ErrorStatus } from "../../http/responses";
import type { AppContext } from "../../context";
import { notFound } from "../../http/errors";
import { getTableColumns } from "drizzle-orm";
import { preparedQuery } from "../../db/statement";
import { normaliseCode } from "../projects/service";
import { projects, type ProjectRow } from "../projects/tables";
import { authenticateWith, callerKnown, callerOf, TOKEN_LOOKUP, type Caller, type TokenRow } from "./auth";

/**
 * The project a route's `:code` names, prepared once (every project route reads it). Its columns
 * come from the table's definition, so the row is the one drizzle would give — which holds while
 * every column is stored as it is read (text and plain integers: no boolean or JSON mode).
 */
const projectColumns = (() => {
  const columns = Object.entries(getTableColumns(projects));
  const converted = columns.filter(([, c]) => c.dataType !== "string" && c.dataType !== "number");
  if (converted.length) throw new Error(`tms_projects: ${converted.map(([k]) => k).join(", ")} need drizzle's mapping; read the project with the query builder`);
  return columns.map(([key, c]) => ({ key, name: c.name }));
})();
const projectByCode = preparedQuery<ProjectRow, [string]>(`SELECT ${projectColumns.map((c) => `${c.name} AS "${c.key}"`).join(", ")} FROM tms_projects WHERE code = ?1`);

/**
 * A project route's token and project in one statement: every v1 write would otherwise pay a
 * round trip for each before its transaction begins (docs/benchmarks/postgres.md). The project is
 * joined by code alone, whatever the token's workspace, so a project of another workspace costs the
 * same work as a missing one (`projectApi` answers both "not found").
 */
type TokenAndProjectRow = TokenRow & Record<`project.${string}`, unknown>;
const tokenAndProject = preparedQuery<TokenAndProjectRow, [string, string]>(
  `SELECT ${TOKEN_LOOKUP.columns}, ${projectColumns.map((c) => `p.${c.name} AS "project.${c.key}"`).join(", ")}
     FROM ${TOKEN_LOOKUP.tables} LEFT JOIN tms_projects p ON p.code = ?2
    WHERE t.token_hash = ?1`,
);

const projectsOfRequest = new WeakMap<Request, Promise<{ caller: Caller; project: ProjectRow | undefined }>>();

/**
 * The caller and the project `code` (normalised) names, once per request: the body parser asks
 * first on routes with a body (authenticating before one byte is read), the route's derive after.
 * Read together in one statement unless the caller is known already.
 */
export function callerAndProject(ctx: AppContext, request: Request, code: string): Promise<{ caller: Caller; project: ProjectRow | undefined }> {
  let found = projectsOfRequest.get(request);
  if (!found) {
    found = callerKnown(request)
      ? Promise.all([callerOf(ctx, request), projectByCode.get(ctx.db, code)]).then(([caller, project]) => ({ caller, project }))
      : authenticateWith(ctx, request, (hash) => tokenAndProject.get(ctx.db, hash, code)).then(({ caller, row }) => ({ caller, project: projectOf(row) }));
    projectsOfRequest.set(request, found);
  }
  return found;
}

/** The project's columns of a `tokenAndProject` row (none when no project has the code). */
function projectOf(row: TokenAndProjectRow): ProjectRow | undefined {
  if (row["project.id"] === null || row["project.id"] === undefined) return undefined;
  const project: Record<string, unknown> = {};
  for (const c of projectColumns) project[c.key] = row[`project.${c.key}`];
  return project as ProjectRow;
}

/**
 * The base of entity controllers whose routes name no project: prefix `/v1` (or `/v2`) and the
 * `Token` header check, resolving `caller` for the handlers. Each controller builds its own
 * instance, so the guard is local to those routes and never leaks onto other features' routes.
 * `tmsRoutes` mounts the controllers twice: under `/api` and at the root (where @qase/mcp-server
 * looks). A route with a body was authenticated in tmsRoutes' parser already (before reading the
 * body); callerOf answers from that. derive runs before validation, so a GET is a 401 first too.
 */
export function tmsApi(ctx: AppContext, prefix: "/v1" | "/v2" = "/v1") {
  return new Elysia({ prefix }).derive(async ({ request }) => ({ caller: await callerOf(ctx, request) }));
}

/**
 * The base of controllers whose every route names a project as `:code`: `tmsApi` plus the
 * project, resolved once for the token check and the handlers. A project of another workspace is
 * "not found" to this token exactly as a missing one, answered by the same path (same work, same
 * time), before the body or parameters are validated.
 */
export function projectApi(ctx: AppContext, prefix: "/v1" | "/v2" = "/v1") {
  return new Elysia({ prefix }).derive(async ({ request, params }) => {
    const code = (params as Record<string, string | undefined> | undefined)?.code;
    // Every route of this base names its project; one without `:code` is a programming error.
    if (code === undefined) throw new Error(`projectApi route without :code: ${new URL(request.url).pathname}`);
    const { caller, project } = await callerAndProject(ctx, request, normaliseCode(code));
    if (!project || project.workspaceId !== caller.workspaceId) throw notFound(`Project "${code}"`);
    return { caller, project };
  });
}

/** Every entity route can answer these: validation (400), the Token check (401, 403). */
const TMS_GUARD_ERRORS = [400, 401, 403] as const satisfies readonly ErrorStatus[];

/**
 * The `response` option of an entity route: its success schema, 400 (every route validates a
 * parameter, query or body), 401 and 403 (the Token check; 403: the token's workspace is archived)
 * and the route's own errors (404 for an unknown
 * project or entity, 409 for a state conflict).
 */
export const tmsResponses = <S extends Record<number, TSchema>, E extends ErrorStatus>(success: S, errors: readonly E[] = []) =>
  jsonResponses(success, [...TMS_GUARD_ERRORS, ...errors]);

/** The same errors for a route whose success is not JSON (it documents `detail.responses` itself). */
export const tmsErrorAnswers = (errors: readonly ErrorStatus[] = []) => apiErrorAnswers([...TMS_GUARD_ERRORS, ...errors]);

/** Routes with a body add: over the body limit or the row budget (413), not JSON (415). */
export const TMS_BODY_ERRORS = [413, 415] as const satisfies readonly ErrorStatus[];
