import type { AppContext } from "../../context";
import { tmsApi } from "../shared/api";
import { ok, page, paging, Paging } from "../shared/envelope";
import { AuthorList, AuthorListQuery, AuthorResult, IdParam, SystemFieldList, UserList, UserResult } from "./model";
import { getAuthor, getUser, listAuthors, listUsers, systemFields } from "./service";

/** Workspace-wide lookups: system fields, users and authors (the SCIM directory's people). */
export function workspaceRoutes(ctx: AppContext) {
  return tmsApi(ctx)
    .get("/system_field", () => ok(systemFields()), {
      response: { 200: SystemFieldList }, detail: { tags: ["System fields"], summary: "List system fields (case enums with the numbers the API takes)" },
    })
    .get("/user", ({ query, caller }) => {
      const r = listUsers(ctx.db, caller.workspaceId, paging(query));
      return page(r.entities, r.total, r.filtered);
    }, { query: Paging, response: { 200: UserList }, detail: { tags: ["Users"], summary: "List the users of the token's workspace (SCIM-provisioned; status 1 active, 0 deactivated)" } })
    .get("/user/:id", ({ params, caller }) => ok(getUser(ctx.db, caller.workspaceId, params.id)), { params: IdParam, response: { 200: UserResult }, detail: { tags: ["Users"], summary: "Get a user" } })
    .get("/author", ({ query, caller }) => {
      const r = listAuthors(ctx.db, caller.workspaceId, { ...paging(query), search: query.search });
      return page(r.entities, r.total, r.filtered);
    }, { query: AuthorListQuery, response: { 200: AuthorList }, detail: { tags: ["Authors"], summary: "List authors (the directory's users)" } })
    .get("/author/:id", ({ params, caller }) => ok(getAuthor(ctx.db, caller.workspaceId, params.id)), { params: IdParam, response: { 200: AuthorResult }, detail: { tags: ["Authors"], summary: "Get an author" } });
}
