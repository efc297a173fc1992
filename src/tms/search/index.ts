import type { AppContext } from "../../context";
import { tmsApi } from "../shared/api";
import { ok, paging } from "../shared/envelope";
import { SearchQuery, SearchResult } from "./model";
import { search } from "./service";

export function searchRoutes(ctx: AppContext) {
  return tmsApi(ctx).get("/search", ({ query, caller }) => ok(search(ctx.db, ctx.sqlite, ctx.config.baseUrl, caller.workspaceId, query.query, paging(query))), {
    query: SearchQuery, response: { 200: SearchResult },
    detail: { tags: ["Search"], summary: "QQL search (a documented subset: case, run, result, defect, plan) within the token's workspace" },
  });
}
