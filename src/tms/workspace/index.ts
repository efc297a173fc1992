import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;
import { ok, page, paging, Paging } from "../shared/envelope";
import { AuthorList, AuthorListQuery, AuthorResult, IdParam, SystemFieldList, UserList, UserResult } from "./model";
import { getAuthor, getUser, listAuthors, listUsers, systemFields } from "./service";

/** Workspace-wide lookups: system fields, users and authors (the SCIM directory's people). */
export function workspaceRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .get("/system_field", () => ok(systemFields()), {
      response: tmsResponses({ 200: SystemFieldList }, ERRS), detail: { tags: ["System fields"], summary: "List system fields (case enums with the numbers the API takes)" },
    })
    .get("/user", async ({ query, caller }) => {
      const r = await listUsers(ctx.db, caller.workspaceId, paging(query));
      return page(r.entities, r.total, r.filtered);
    }, { query: Paging, response: tmsResponses({ 200: UserList }, ERRS), detail: { tags: ["Users"], summary: "List the users of the token's workspace (SCIM-provisioned; status 1 active, 0 deactivated)" } })
    .get("/user/:id", async ({ params, caller }) => ok(await getUser(ctx.db, caller.workspaceId, params.id)), { params: IdParam, response: tmsResponses({ 200: UserResult }, ERRS), detail: { tags: ["Users"], summary: "Get a user" } })
    .get("/author", async ({ query, caller }) => {
      const r = await listAuthors(ctx.db, caller.workspaceId, { ...paging(query), search: query.search, type: query.type });
      return page(r.entities, r.total, r.filtered);
    }, { query: AuthorListQuery, response: tmsResponses({ 200: AuthorList }, ERRS), detail: { tags: ["Authors"], summary: "List authors (the directory's users)" } })
    .get("/author/:id", async ({ params, caller }) => ok(await getAuthor(ctx.db, caller.workspaceId, params.id)), { params: IdParam, response: tmsResponses({ 200: AuthorResult }, ERRS), detail: { tags: ["Authors"], summary: "Get an author" } });
}
