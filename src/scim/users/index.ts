import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { assertPatchOpSchemas, canonicalizeKeys, canonicalNames, resourceLocation, SCHEMA_USER } from "../protocol";
import { parseListParams, parseProjectionParams, projectResource, queryOf } from "../query";
import { PatchBody, UserBody, UserIdParams } from "./model";
import { stateFromBody } from "./rules";
import { userAttributeNames } from "./schema";
import { SEARCH_REQUEST_KEYS, SearchRequest, searchParams } from "../search";
import { createUsersService } from "./service";
import { scopeOf } from "../scope";

const tags = ["SCIM Users"];

/**
 * The SCIM plugin's own parser (src/scim/index.ts) reads every body and always answers, so this
 * route-level "json" never runs; it is here because the OpenAPI generator lists a request body's
 * media types only from named parsers. (application/scim+json is accepted as well.)
 */
const DOCUMENTED_AS_JSON = "json" as const;

/** Canonical spelling of the attribute names /Users bodies may carry (RFC 7643: names are case-insensitive). */
const CANONICAL = canonicalNames(["schemas", "Operations", "op", "path", "value", ...userAttributeNames(), ...SEARCH_REQUEST_KEYS]);

/** /Users: list, get, create, replace, patch, deactivate (spec 4.1 with PRODUCT.md's decisions). */
export function usersRoutes(ctx: AppContext) {
  const users = createUsersService(ctx);
  return new Elysia({ name: "scim-users" })
    .onTransform((c) => {
      if (c.body && typeof c.body === "object") c.body = canonicalizeKeys(c.body, CANONICAL) as never;
    })
    .get("/Users", ({ request }) => users.list(parseListParams(queryOf(request)), scopeOf(request)), {
      detail: { tags, summary: "List or search users", description: "filter (RFC 7644 grammar), startIndex, count (≤1000), sortBy, sortOrder, attributes, excludedAttributes" },
    })
    .post("/Users/.search", ({ body, request }) => users.list(searchParams(body), scopeOf(request)), {
      parse: DOCUMENTED_AS_JSON,
      body: SearchRequest,
      detail: { tags, summary: "Search users with POST (RFC 7644 §3.4.3)", description: "A SearchRequest body with the same semantics as GET /Users with query parameters." },
    })
    .get("/Users/:id", ({ params, request }) => users.get(params.id, parseProjectionParams(queryOf(request)), scopeOf(request)), {
      params: UserIdParams,
      detail: { tags, summary: "Get a user" },
    })
    .post("/Users", ({ body, request, set }) => {
      const created = users.create(stateFromBody(body, { requireNames: true, activeWhenOmitted: true }), scopeOf(request));
      set.status = 201;
      set.headers.location = resourceLocation(ctx.config.baseUrl, "Users", created.id);
      return users.view(created, parseProjectionParams(queryOf(request)));
    }, { parse: DOCUMENTED_AS_JSON, body: UserBody, detail: { tags, summary: "Create (provision) a user", description: "201 with Location. userName must be an e-mail, unique case-insensitively." } })
    .put("/Users/:id", ({ params, body, request }) => {
      const updated = users.replace(params.id, (before) => stateFromBody(body, { requireNames: false, activeWhenOmitted: before.active }), scopeOf(request));
      return users.view(updated, parseProjectionParams(queryOf(request)));
    }, { params: UserIdParams, parse: DOCUMENTED_AS_JSON, body: UserBody, detail: { tags, summary: "Replace a user", description: "Attributes not sent are cleared; userType defaults to regular; active is kept when omitted." } })
    .patch("/Users/:id", ({ params, body, request }) => {
      assertPatchOpSchemas(body.schemas);
      return users.view(users.patch(params.id, body.Operations, scopeOf(request)), parseProjectionParams(queryOf(request)));
    }, {
      params: UserIdParams,
      parse: DOCUMENTED_AS_JSON,
      body: PatchBody,
      detail: { tags, summary: "Update user attributes (PatchOp)", description: "add/replace/remove in any case; with or without path; all operations apply atomically." },
    })
    .delete("/Users/:id", ({ params, set, request }) => {
      users.deactivate(params.id, scopeOf(request));
      set.status = 204;
    }, { params: UserIdParams, detail: { tags, summary: "Deactivate a user", description: "The record and its history stay; GET returns it with active false." } });
}
