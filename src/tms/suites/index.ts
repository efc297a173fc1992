import { t } from "elysia";
import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { CodeNumberParams, CodeParam, NumberResult, ok, page, paging, Envelope, PageOf } from "../shared/envelope";
import { SearchPaging } from "../shared/list-filters";
import { SuiteClone, SuiteCreate, SuiteDelete, SuiteUpdate, SuiteView } from "./model";
import { cloneSuite, createSuite, deleteSuite, getSuite, listSuites, updateSuite } from "./service";

/** `{code}/{id}`: the suite's number within the project. */
const NumberParams = CodeNumberParams("suite");
const Numbered = NumberResult("suite");
const detail = (summary: string) => ({ tags: ["Suites"], summary });

export function suiteRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/suite/:code", async ({ project, body, caller }) => ok(await createSuite(ctx.db, caller, project, body)), {
      params: CodeParam, body: SuiteCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a suite (suite.created)"),
    })
    .get("/suite/:code", async ({ project, query }) => {
      const r = await listSuites(ctx.db, project, { ...paging(query), search: query.search });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: SearchPaging, response: tmsResponses({ 200: PageOf(SuiteView) }, [404]), detail: detail("List suites") })
    .get("/suite/:code/:id", async ({ project, params }) => ok(await getSuite(ctx.db, project, params.id)), { params: NumberParams, response: tmsResponses({ 200: Envelope(SuiteView) }, [404]), detail: detail("Get a suite") })
    .patch("/suite/:code/:id", async ({ project, params, body }) => ok(await updateSuite(ctx.db, project, params.id, body)), {
      params: NumberParams, body: SuiteUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update or move a suite (suite.updated)"),
    })
    .delete("/suite/:code/:id", async ({ project, params, body }) => ok(await deleteSuite(ctx.db, project, params.id, body?.destination_id)), {
      params: NumberParams, body: t.Optional(SuiteDelete), response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Delete a suite and its sub-suites (suite.deleted each; cases moved to destination_id or deleted)"),
    })
    .post("/suite/:code/:id/clone", async ({ project, params, body, caller }) => ok(await cloneSuite(ctx.db, caller, project, params.id, body ?? {})), {
      params: NumberParams, body: t.Optional(SuiteClone), response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Clone a suite with its sub-suites and cases (Gatehouse extension; suite.cloned, case.cloned)"),
    });
}
