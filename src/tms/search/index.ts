import type { AppContext } from "../../context";
import { TMS_BODY_ERRORS, tmsApi, tmsResponses } from "../shared/api";

/** What these routes may answer besides 2xx: unknown project or entity, a duplicate, body limits. */
const ERRS = [404, 409, ...TMS_BODY_ERRORS] as const;
import { ok, paging } from "../shared/envelope";
import { SearchQuery, SearchResult } from "./model";
import { search } from "./service";

export function searchRoutes(ctx: AppContext) {
  return tmsApi(ctx).get("/search", async ({ query, caller }) => ok(await search(ctx.db, ctx.config.baseUrl, caller, query.query, paging(query))), {
    query: SearchQuery, response: tmsResponses({ 200: SearchResult }, ERRS),
    detail: { tags: ["Search"], summary: "QQL search (a documented subset: case, run, result, defect, plan) within the token's workspace" },
  });
}
