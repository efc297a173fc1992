import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { queryParameters } from "../../http/responses";
import { parseListParams, parseProjectionParams, queryOf } from "../query";
import { SCIM_BODY_ERRORS, scimResponses } from "../responses";
import { assertPatchOpSchemas, canonicalizeKeys, canonicalNames, resourceLocation } from "../protocol";
import { GroupListQuery, GroupListResponse, GroupPatch, GroupProjectionQuery, GroupResource, GroupWrite } from "./model";
import { createGroupService, echoedMemberSubs } from "./service";
import { scopeOf } from "../scope";
import type { ProvisioningLogHook } from "../activity/observer";
import { SEARCH_REQUEST_KEYS, SearchRequest, searchParams } from "../search";

const tags = ["SCIM Groups"];
// Read by parseListParams/parseProjectionParams (names case-insensitive), as /Users does.
const listQuery = queryParameters(GroupListQuery);
const projectionQuery = queryParameters(GroupProjectionQuery);
const theGroup = (description: string) => ({ description, schema: GroupResource });
const aPage = { 200: { description: "A ListResponse of groups", schema: GroupListResponse } };

/** Canonical spelling of the keys a /Groups body may carry (RFC 7643: attribute names are case-insensitive). */
const CANONICAL = canonicalNames(["schemas", "id", "externalId", "displayName", "members", "meta", "Operations", "op", "path", "value", "type", "display", "$ref", ...SEARCH_REQUEST_KEYS]);

/** /Groups: workspace teams and their membership. */
/** `provisioningLog`: the SCIM plugin's after-response hook, which every route that writes carries. */
export function groupsRoutes(ctx: AppContext, provisioningLog: ProvisioningLogHook) {
  const service = createGroupService(ctx);
  return new Elysia({ name: "scim-groups" })
    .onTransform((c) => {
      if (c.body && typeof c.body === "object") c.body = canonicalizeKeys(c.body, CANONICAL) as never;
    })
    .get("/Groups", ({ request }) => service.list(parseListParams(queryOf(request)), scopeOf(request)), {
      detail: {
        tags,
        summary: "List groups (teams); filter on displayName, sort, page, project attributes",
        parameters: listQuery,
        responses: scimResponses(aPage, [400]),
      },
    })
    .post("/Groups/.search", ({ body, request }) => service.list(searchParams(body), scopeOf(request)), {
      parse: "json",
      body: SearchRequest,
      detail: {
        tags,
        summary: "Search groups with POST (RFC 7644 §3.4.3)",
        description: "A SearchRequest body with the same semantics as GET /Groups with query parameters.",
        responses: scimResponses(aPage, SCIM_BODY_ERRORS),
      },
    })
    .get("/Groups/:id", ({ params, request }) => service.get(params.id, parseProjectionParams(queryOf(request)), scopeOf(request)), {
      detail: { tags, summary: "Get a group (team) with its members", parameters: projectionQuery, responses: scimResponses({ 200: theGroup("The group") }, [400, 404]) },
    })
    .post(
      "/Groups",
      async ({ body, request, set }) => {
        const created = await service.create(body, { ...parseProjectionParams(queryOf(request)), echo: echoedMemberSubs(body.members) }, scopeOf(request));
        set.status = 201;
        set.headers["location"] = resourceLocation(ctx.config.baseUrl, "Groups", created.id);
        return created.resource;
      },
      { ...provisioningLog, body: GroupWrite, detail: {
          tags,
          summary: "Create a group; members optional (an empty group is allowed)",
          parameters: projectionQuery,
          responses: scimResponses({ 201: theGroup("The created group; Location header = meta.location") }, [...SCIM_BODY_ERRORS, 409]),
        },
      },
    )
    .put("/Groups/:id", ({ params, body, request }) => service.replace(params.id, body, { ...parseProjectionParams(queryOf(request)), echo: echoedMemberSubs(body.members) }, scopeOf(request)), {
      ...provisioningLog,
      body: GroupWrite,
      detail: {
        tags,
        summary: "Replace a group: displayName and the whole member list (omitted members → none)",
        parameters: projectionQuery,
        responses: scimResponses({ 200: theGroup("The group after replacement") }, [...SCIM_BODY_ERRORS, 404, 409]),
      },
    })
    .patch(
      "/Groups/:id",
      ({ params, body, request }) => {
        assertPatchOpSchemas(body.schemas);
        // members sent in operation values: an array (path "members") or a no-path object's `members`
        const sent = body.Operations.flatMap((o) => {
          const v = o.value as unknown;
          if (Array.isArray(v)) return v;
          if (!v || typeof v !== "object") return [];
          const key = Object.keys(v).find((k) => k.toLowerCase() === "members");
          return key && Array.isArray((v as Record<string, unknown>)[key]) ? ((v as Record<string, unknown>)[key] as unknown[]) : [];
        });
        return service.patch(params.id, body.Operations, { ...parseProjectionParams(queryOf(request)), echo: echoedMemberSubs(sent) }, scopeOf(request));
      },
      { ...provisioningLog, body: GroupPatch, detail: {
          tags,
          summary: "Add/remove/replace members, rename; answers with the full member list",
          parameters: projectionQuery,
          responses: scimResponses({ 200: theGroup("The group with its full member list") }, [...SCIM_BODY_ERRORS, 404, 409]),
        },
      },
    )
    .delete(
      "/Groups/:id",
      async ({ params, set, request }) => {
        await service.delete(params.id, scopeOf(request));
        set.status = 204;
        return undefined;
      },
      { ...provisioningLog, detail: { tags, summary: "Delete a group (its memberships go with it; users stay)", responses: scimResponses({ 204: { description: "Deleted" } }, [404]) } },
    );
}

