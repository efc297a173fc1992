import { t } from "elysia";
import type { AppContext } from "../../context";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { CodeNumberParams, CodeParam, NumberResult, Envelope, ok, page, paging, PageOf, StatusOnly } from "../shared/envelope";
import { CaseBulkCreate, CaseClone, CaseCreate, CaseExternalIssues, CaseGetQuery, CaseListQuery, CaseUpdate, CaseView } from "./model";
import { attachCaseExternalIssues, detachCaseExternalIssues } from "./external-issues";
import { cloneCase, createCase, createCasesBulk, deleteCase, getCase, listCases, updateCase } from "./service";

/** `{code}/{id}`: the test case's number within the project. */
const NumberParams = CodeNumberParams("test case");
const Numbered = NumberResult("test case");
const detail = (summary: string) => ({ tags: ["Test cases"], summary });

export function caseRoutes(ctx: AppContext) {
  return projectApi(ctx)
    .post("/case/:code", async ({ project, body, caller }) => ok(await createCase(ctx.db, caller, project, body)), {
      params: CodeParam, body: CaseCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Create a test case (case.created)"),
    })
    .post("/case/:code/bulk", async ({ project, body, caller }) => ok(await createCasesBulk(ctx.db, caller, project, body.cases)), {
      params: CodeParam, body: CaseBulkCreate, response: tmsResponses({ 200: Envelope(t.Object({ ids: t.Array(t.Integer()) })) }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Create many test cases in one transaction (case.created for each)"),
    })
    .get("/case/:code", async ({ project, query }) => {
      const r = await listCases(ctx.db, project, { ...query, ...paging(query) });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: CaseListQuery, response: tmsResponses({ 200: PageOf(CaseView) }, [404]), detail: detail("List test cases") })
    .post("/case/:code/external-issue/attach", async ({ project, body }) => await attachCaseExternalIssues(ctx.db, project, body), {
      params: CodeParam, body: CaseExternalIssues, response: tmsResponses({ 200: StatusOnly }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Link cases to issues of a Jira integration (kept once; no event)"),
    })
    .post("/case/:code/external-issue/detach", async ({ project, body }) => await detachCaseExternalIssues(ctx.db, project, body), {
      params: CodeParam, body: CaseExternalIssues, response: tmsResponses({ 200: StatusOnly }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Unlink cases from issues of a Jira integration (no ids: all of that type; no event)"),
    })
    .get("/case/:code/:id", async ({ project, params, query }) => ok(await getCase(ctx.db, project, params.id, query.include)), { params: NumberParams, query: CaseGetQuery, response: tmsResponses({ 200: Envelope(CaseView) }, [404]), detail: detail("Get a test case") })
    .patch("/case/:code/:id", async ({ project, params, body }) => ok(await updateCase(ctx.db, project, params.id, body)), {
      params: NumberParams, body: CaseUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: detail("Update a test case; revision + 1 (case.updated)"),
    })
    .delete("/case/:code/:id", async ({ project, params }) => ok(await deleteCase(ctx.db, project, params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: detail("Delete a test case (case.deleted)"),
    })
    .post("/case/:code/:id/clone", async ({ project, params, body, caller }) => ok(await cloneCase(ctx.db, caller, project, params.id, body ?? {})), {
      params: NumberParams, body: t.Optional(CaseClone), response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]),
      detail: detail("Clone a test case (Gatehouse extension; case.cloned with from_id)"),
    });
}
