import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { parseListParams, parseProjectionParams } from "../query";
import { assertPatchOpSchemas, canonicalizeKeys, canonicalNames, resourceLocation } from "../protocol";
import { GroupListQuery, GroupListResponse, GroupPatch, GroupProjectionQuery, GroupResource, GroupWrite, scimResponse } from "./model";
import { createGroupService, echoedMemberSubs } from "./service";
import { scopeOf } from "../scope";
import { SEARCH_REQUEST_KEYS, SearchRequest, searchParams } from "../search";

const tags = ["SCIM Groups"];

/** Canonical spelling of the keys a /Groups body may carry (RFC 7643: attribute names are case-insensitive). */
const CANONICAL = canonicalNames(["schemas", "id", "externalId", "displayName", "members", "meta", "Operations", "op", "path", "value", "type", "display", "$ref", ...SEARCH_REQUEST_KEYS]);

/** /Groups: workspace teams and their membership. */
export function groupsRoutes(ctx: AppContext) {
  const service = createGroupService(ctx);
  return new Elysia({ name: "scim-groups" })
    .onTransform((c) => {
      if (c.body && typeof c.body === "object") c.body = canonicalizeKeys(c.body, CANONICAL) as never;
    })
    .get("/Groups", ({ query, request }) => service.list(parseListParams(query), scopeOf(request)), {
      query: GroupListQuery,
      detail: {
        tags,
        summary: "List groups (teams); filter on displayName, sort, page, project attributes",
        responses: scimResponse(200, "ListResponse of groups", GroupListResponse),
      },
    })
    .post("/Groups/.search", ({ body, request }) => service.list(searchParams(body), scopeOf(request)), {
      parse: "json",
      body: SearchRequest,
      detail: {
        tags,
        summary: "Search groups with POST (RFC 7644 §3.4.3)",
        description: "A SearchRequest body with the same semantics as GET /Groups with query parameters.",
        responses: scimResponse(200, "ListResponse of groups", GroupListResponse),
      },
    })
    .get("/Groups/:id", ({ params, query, request }) => service.get(params.id, parseProjectionParams(query), scopeOf(request)), {
      query: GroupProjectionQuery,
      detail: { tags, summary: "Get a group (team) with its members", responses: scimResponse(200, "The group", GroupResource) },
    })
    .post(
      "/Groups",
      ({ body, query, set, request }) => {
        const created = service.create(body, { ...parseProjectionParams(query), echo: echoedMemberSubs(body.members) }, scopeOf(request));
        set.status = 201;
        set.headers["location"] = resourceLocation(ctx.config.baseUrl, "Groups", created.id);
        return created.resource;
      },
      { body: GroupWrite, query: GroupProjectionQuery, detail: {
          tags,
          summary: "Create a group; members optional (an empty group is allowed)",
          responses: scimResponse(201, "The created group; Location header = meta.location", GroupResource),
        },
      },
    )
    .put("/Groups/:id", ({ params, body, query, request }) => service.replace(params.id, body, { ...parseProjectionParams(query), echo: echoedMemberSubs(body.members) }, scopeOf(request)), {
      body: GroupWrite,
      query: GroupProjectionQuery,
      detail: {
        tags,
        summary: "Replace a group: displayName and the whole member list (omitted members → none)",
        responses: scimResponse(200, "The group after replacement", GroupResource),
      },
    })
    .patch(
      "/Groups/:id",
      ({ params, body, query, request }) => {
        assertPatchOpSchemas(body.schemas);
        // members sent in operation values: an array (path "members") or a no-path object's `members`
        const sent = body.Operations.flatMap((o) => {
          const v = o.value as unknown;
          if (Array.isArray(v)) return v;
          if (!v || typeof v !== "object") return [];
          const key = Object.keys(v).find((k) => k.toLowerCase() === "members");
          return key && Array.isArray((v as Record<string, unknown>)[key]) ? ((v as Record<string, unknown>)[key] as unknown[]) : [];
        });
        return service.patch(params.id, body.Operations, { ...parseProjectionParams(query), echo: echoedMemberSubs(sent) }, scopeOf(request));
      },
      { body: GroupPatch, query: GroupProjectionQuery, detail: {
          tags,
          summary: "Add/remove/replace members, rename; answers with the full member list",
          responses: scimResponse(200, "The group with its full member list", GroupResource),
        },
      },
    )
    .delete(
      "/Groups/:id",
      ({ params, set, request }) => {
        service.delete(params.id, scopeOf(request));
        set.status = 204;
        return undefined;
      },
      { detail: { tags, summary: "Delete a group (its memberships go with it; users stay)", responses: scimResponse(204, "Deleted") } },
    );
}

