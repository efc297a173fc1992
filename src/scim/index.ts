import { Elysia, t } from "elysia";
import type { AppContext } from "../context";
import { bearerToken } from "../lib/tokens";
import { activityObserver, type ProvisioningLogHook } from "./activity/observer";
import { ScimError, SCIM_CONTENT_TYPE } from "./errors";
import { GroupResource } from "./groups/model";
import { ListResponseOf, SCIM_BODY_ERRORS, scimResponses } from "./responses";
import { UserResource } from "./users/model";
import { assertScimMediaType, canonicalizeKeys, canonicalNames, readScimJsonBody } from "./protocol";
import { SEARCH_REQUEST_KEYS, SearchRequest, searchAllTypes, searchParams } from "./search";
import { createUsersService } from "./users/service";
import { createGroupService } from "./groups/service";
import { createRateLimiter } from "./rate-limit";
import { scimEnabledReader, tokenVerifier } from "./tokens/service";
import { isAdmitted, scopeOf, setScope } from "./scope";
import { usersRoutes } from "./users";
import { groupsRoutes } from "./groups";
import { discoveryRoutes } from "./discovery";

const ANY_RESOURCE_PAGE = ListResponseOf(t.Union([UserResource, GroupResource]), "A page of users, then groups");

/** POST /.search: every resource type in one list (RFC 7644 §3.4.3). */
function searchAllRoutes(ctx: AppContext) {
  const users = createUsersService(ctx);
  const groups = createGroupService(ctx);
  const names = canonicalNames(SEARCH_REQUEST_KEYS);
  return new Elysia({ name: "scim-search" })
    .onTransform((c) => {
      if (c.body && typeof c.body === "object") c.body = canonicalizeKeys(c.body, names) as never;
    })
    .post("/.search", ({ body, request }) => {
      const scope = scopeOf(request);
      return searchAllTypes(searchParams(body), [(p) => users.list(p, scope), (p) => groups.list(p, scope)]);
    }, {
      parse: "json",
      body: SearchRequest,
      detail: {
        tags: ["SCIM Discovery"],
        summary: "Search every resource type with POST (RFC 7644 §3.4.3)",
        description: "Users, then groups, paged as one list; sortBy is refused (sort within a type).",
        responses: scimResponses({ 200: { description: "A ListResponse of users and groups", schema: ANY_RESOURCE_PAGE } }, SCIM_BODY_ERRORS),
      },
    });
}

/** Every SCIM path and the methods it answers; other methods on these paths → 405 with `Allow`. */
const SCIM_PATHS: Record<string, string[]> = {
  "/.search": ["POST"],
  "/Users": ["GET", "POST"],
  "/Users/.search": ["POST"],
  "/Users/:id": ["GET", "PUT", "PATCH", "DELETE"],
  "/Groups": ["GET", "POST"],
  "/Groups/.search": ["POST"],
  "/Groups/:id": ["GET", "PUT", "PATCH", "DELETE"],
  "/ServiceProviderConfig": ["GET"],
  "/ResourceTypes": ["GET"],
  "/ResourceTypes/:id": ["GET"],
  "/Schemas": ["GET"],
  "/Schemas/:id": ["GET"],
};

/**
 * The SCIM 2.0 service provider under /scim/v2 (its admin API is mounted by src/admin). This plugin
 * owns what every SCIM route shares; the resource folders own their routes. Its hooks are local
 * to this instance and so reach every route of the plugins `.use()`d below (users, groups,
 * discovery):
 *
 * 1. the gate (before the body is read, so an anonymous client cannot make us buffer 800 kB):
 *    bearer token → 401 with `WWW-Authenticate: Bearer`; SCIM switched off → 403; per-token
 *    rate limit → 429 with `Retry-After`;
 * 2. the body: JSON with `application/json`, `application/scim+json` or no Content-Type; other
 *    media types → 415; over 800000 bytes → 413 (counted while streaming, so chunked bodies too);
 *    malformed JSON → 400 invalidSyntax;
 * 3. `application/scim+json` on every response (errors get it from the one error mapping);
 * 4. every write by a verified token goes to the provisioning activity log (activity/observer.ts),
 *    through the `provisioningLog` hook each write route carries (`usersRoutes`, `groupsRoutes`, the 405s).
 * Unknown SCIM routes fall through to the app's 404, rendered as a SCIM error by path.
 */
export function scimRoutes(ctx: AppContext) {
  const verifyToken = tokenVerifier(ctx.db);
  const isEnabled = scimEnabledReader(ctx.db, ctx.config);
  const takeRequest = createRateLimiter(ctx.config.scimRateLimit, ctx.config.scimRateBurst);
  const activity = activityObserver(ctx);
  // Elysia turns anything thrown in a parser into its generic PARSE error, so the parser stashes
  // its ScimError (401/403/429/413/415/400) here and the transform hook rethrows it unchanged.
  const parseFailures = new WeakMap<Request, unknown>();

  const gate = async (request: Request) => {
    if (isAdmitted(request)) return;
    const token = bearerToken(request.headers.get("authorization"));
    const verified = token ? await verifyToken(token) : null;
    if (verified === null)
      throw new ScimError(401, token ? "The bearer token is unknown or revoked" : "A bearer token is required (Authorization: Bearer <token>)", undefined, { "www-authenticate": 'Bearer realm="scim"' });
    const tokenId = verified.id;
    if (activity.logs(request)) await activity.admitted(request, tokenId);
    if (!(await isEnabled())) throw new ScimError(403, "SCIM provisioning is disabled for this organization");
    if (verified.workspaceArchived) throw new ScimError(403, `Workspace ${verified.workspaceId} is archived; its SCIM tokens no longer provision`);
    const wait = takeRequest(tokenId);
    if (wait > 0) throw new ScimError(429, `Rate limit exceeded; retry in ${wait} s`, undefined, { "retry-after": String(wait) });
    setScope(request, { workspaceId: verified.workspaceId });
  };

  // The provisioning log's hook, on the routes that can write (and the 405s, which answer writes):
  // a route's own hook, not the plugin's, because Elysia compiles a plugin-wide after-response
  // hook into every route as a `setImmediate` per request, reads included (docs/benchmarks/read-path.md, round 8).
  // Named fields, not the whole context: Elysia infers what to parse from what hooks read (test/app.test.ts).
  const provisioningLog: ProvisioningLogHook = {
    afterResponse: (c) =>
      activity.noted(c.request)
        ? activity.afterResponse({ request: c.request, set: c.set, responseValue: c.responseValue, body: c.body, error: (c as { error?: unknown }).error, code: (c as { code?: unknown }).code })
        : undefined,
  };

  // Registered after the resource routes: a method-specific route always wins over `all`.
  const methodNotAllowed = new Elysia({ name: "scim-405" });
  for (const [path, allowed] of Object.entries(SCIM_PATHS)) {
    methodNotAllowed.all(path, ({ request }) => {
      throw new ScimError(405, `${request.method} is not supported on this endpoint; allowed: ${allowed.join(", ")}`, undefined, { allow: allowed.join(", ") });
    }, { ...provisioningLog, detail: { hide: true } });
  }

  return new Elysia({ name: "scim", prefix: "/scim/v2" })
    .onParse(async ({ request }) => {
      try {
        await gate(request);
        assertScimMediaType(request.headers.get("content-type"));
        // null (not undefined) for an empty body, so Elysia does not try its own parsers.
        return (await readScimJsonBody(request)) ?? null;
      } catch (e) {
        parseFailures.set(request, e);
        return null;
      }
    })
    .onTransform(async ({ request, set }) => {
      if (parseFailures.has(request)) throw parseFailures.get(request);
      await gate(request);
      set.headers["content-type"] = SCIM_CONTENT_TYPE;
    })
    .use(usersRoutes(ctx, provisioningLog))
    .use(groupsRoutes(ctx, provisioningLog))
    .use(searchAllRoutes(ctx))
    .use(discoveryRoutes(ctx))
    .use(methodNotAllowed);
}
