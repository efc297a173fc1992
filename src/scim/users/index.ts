import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { assertPatchOpSchemas, canonicalizeKeys, canonicalNames, resourceLocation, SCHEMA_USER } from "../protocol";
import { parseListParams, parseProjectionParams, projectResource, queryOf } from "../query";
import { queryParameters } from "../../http/responses";
import { SCIM_BODY_ERRORS, scimResponses } from "../responses";
import { PatchBody, UserBody, UserIdParams, UserListQuery, UserListResponse, UserProjectionQuery, UserResource } from "./model";
import { stateFromBody } from "./rules";
import { userAttributeNames } from "./schema";
import { SEARCH_REQUEST_KEYS, SearchRequest, searchParams } from "../search";
import { createUsersService } from "./service";
import { scopeOf } from "../scope";
import type { ProvisioningLogHook } from "../activity/observer";

const tags = ["SCIM Users"];

// Query parameters are read by parseListParams/parseProjectionParams (names case-insensitive),
// not by Elysia: a `query` schema would parse and validate every /Users lookup twice.
const listQuery = queryParameters(UserListQuery);
const projectionQuery = queryParameters(UserProjectionQuery);
const theUser = (description: string) => ({ description, schema: UserResource });
const aPage = { 200: { description: "A ListResponse of users", schema: UserListResponse } };

/** Canonical spelling of the attribute names /Users bodies may carry (RFC 7643: names are case-insensitive). */
const CANONICAL = canonicalNames(["schemas", "Operations", "op", "path", "value", ...userAttributeNames(), ...SEARCH_REQUEST_KEYS]);

/** /Users: list, get, create, replace, patch, deactivate (spec 4.1 with PRODUCT.md's decisions). */
/** `provisioningLog`: the SCIM plugin's after-response hook, which every route that writes carries. */
export function usersRoutes(ctx: AppContext, provisioningLog: ProvisioningLogHook) {
  const users = createUsersService(ctx);
  return new Elysia({ name: "scim-users" })
    .onTransform((c) => {
      if (c.body && typeof c.body === "object") c.body = canonicalizeKeys(c.body, CANONICAL) as never;
    })
    .get("/Users", ({ request }) => users.listAnswer(parseListParams(queryOf(request)), scopeOf(request)), {
      detail: { tags, summary: "List or search users", description: "Filter, sort and page users. Stable order (by id when no sortBy).", parameters: listQuery, responses: scimResponses(aPage, [400]) },
    })
    .post("/Users/.search", ({ body, request }) => users.list(searchParams(body), scopeOf(request)), {
      body: SearchRequest,
      detail: { tags, summary: "Search users with POST (RFC 7644 §3.4.3)", description: "A SearchRequest body with the same semantics as GET /Users with query parameters.", responses: scimResponses(aPage, SCIM_BODY_ERRORS) },
    })
    .get("/Users/:id", ({ params, request }) => users.getAnswer(params.id, parseProjectionParams(queryOf(request)), scopeOf(request)), {
      params: UserIdParams,
      detail: { tags, summary: "Get a user", parameters: projectionQuery, responses: scimResponses({ 200: theUser("The user") }, [400, 404]) },
    })
    .post("/Users", async ({ body, request, set }) => {
      const created = await users.create(stateFromBody(body, { requireNames: true, activeWhenOmitted: true }), scopeOf(request));
      set.status = 201;
      set.headers.location = resourceLocation(ctx.config.baseUrl, "Users", created.id);
      return users.view(created, parseProjectionParams(queryOf(request)), scopeOf(request));
    }, { ...provisioningLog, body: UserBody, detail: {
      tags, summary: "Create (provision) a user", parameters: projectionQuery,
      description: "201 with Location. userName must be an e-mail, unique case-insensitively (duplicate: 400 invalidValue, or 409 uniqueness with GATEHOUSE_SCIM_DUPLICATE_STATUS=409); 409 when no seat is free.",
      responses: scimResponses({ 201: theUser("The created user; Location header = meta.location") }, [...SCIM_BODY_ERRORS, 409]),
    } })
    .put("/Users/:id", async ({ params, body, request }) => {
      const updated = await users.replace(params.id, (before) => stateFromBody(body, { requireNames: false, activeWhenOmitted: before.active }), scopeOf(request));
      return users.view(updated, parseProjectionParams(queryOf(request)), scopeOf(request));
    }, { ...provisioningLog, params: UserIdParams, body: UserBody, detail: {
      tags, summary: "Replace a user", parameters: projectionQuery,
      description: "Attributes not sent are cleared; userType defaults to regular; active is kept when omitted.",
      responses: scimResponses({ 200: theUser("The user after replacement") }, [...SCIM_BODY_ERRORS, 404, 409]),
    } })
    .patch("/Users/:id", async ({ params, body, request }) => {
      assertPatchOpSchemas(body.schemas);
      return users.view(await users.patch(params.id, body.Operations, scopeOf(request)), parseProjectionParams(queryOf(request)), scopeOf(request));
    }, {
      ...provisioningLog,
      params: UserIdParams,
      body: PatchBody,
      detail: {
        tags, summary: "Update user attributes (PatchOp)", parameters: projectionQuery,
        description: "add/replace/remove in any case; with or without path; all operations apply atomically.",
        responses: scimResponses({ 200: theUser("The user after the operations") }, [...SCIM_BODY_ERRORS, 404, 409]),
      },
    })
    .delete("/Users/:id", async ({ params, set, request }) => {
      await users.deactivate(params.id, scopeOf(request));
      set.status = 204;
    }, { ...provisioningLog, params: UserIdParams, detail: {
      tags, summary: "Deactivate a user", description: "The record and its history stay; GET returns it with active false.",
      responses: scimResponses({ 204: { description: "Deactivated" } }, [404]),
    } });
}
