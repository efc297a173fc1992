import { t } from "elysia";
import type { AppContext } from "../../context";
import { badRequest } from "../../http/errors";
import { projectApi, TMS_BODY_ERRORS, tmsResponses } from "../shared/api";
import { CodeHashParams, CodeNumberParams, CodeParam, EntityNumber, HashResult, NumberResult, Envelope, ok, page, paging, PageOf, StatusOnly } from "../shared/envelope";
import { checkInclude } from "../shared/list-filters";
import { ResultCreate, ResultCreateBulk, ResultListQuery, ResultUpdate, RunCreate, RunGetQuery, RunResultParams, RunUpdate, RunExternalIssues, RunIdParams, RunListQuery, RunPublic, V2ResultCreate, V2ResultCreated, V2ResultsCreate, V2ResultsCreated, V2RunParams, ResultView, RunPublicResult, RunView } from "./model";
import { deleteNumbered } from "../shared/write";
import { recordV2Results } from "./reporter";
import { createRun, deleteResult, endRun, updateResult, updateRun, fromV1, getResult, getRun, listResults, listRuns, recordResults, setRunExternalIssues, setRunPublic } from "./service";

/** `{code}/{id}`: the test run's number within the project. */
const NumberParams = CodeNumberParams("test run");
const Numbered = NumberResult("test run");
const runDetail = (summary: string) => ({ tags: ["Runs"], summary });
const resultDetail = (summary: string) => ({ tags: ["Results"], summary });
const ResultCreated = Envelope(t.Object({ case_id: EntityNumber("test case"), hash: t.String() }));

export function runRoutes(ctx: AppContext) {
  const base = ctx.config.baseUrl;
  return projectApi(ctx)
    .post("/run/:code", ({ project, body, caller }) => ok(createRun(ctx.db, caller, project, body)), {
      params: CodeParam, body: RunCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Start a test run from a plan and/or cases (run.started)"),
    })
    .post("/run/:code/external-issue", ({ project, body }) => ok(setRunExternalIssues(ctx.db, project, body)), {
      params: CodeParam, body: RunExternalIssues, response: tmsResponses({ 200: Envelope(t.Object({})) }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Link runs to external issues (Jira)"),
    })
    .get("/run/:code", ({ project, query }) => {
      const r = listRuns(ctx.db, base, project, { ...query, ...paging(query) });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: RunListQuery, response: tmsResponses({ 200: PageOf(RunView) }, [404]), detail: runDetail("List test runs") })
    .get("/run/:code/:id", ({ project, params, query }) => {
      checkInclude(query.include, ["cases"]);
      return ok(getRun(ctx.db, base, project, params.id));
    }, { params: NumberParams, query: RunGetQuery, response: tmsResponses({ 200: Envelope(RunView) }, [404]), detail: runDetail("Get a test run with its stats") })
    .patch("/run/:code/:id", ({ project, params, body }) => ok(updateRun(ctx.db, project, params.id, body)), {
      params: NumberParams, body: RunUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Update a run's title, description, environment, milestone, tags, configurations (no event)"),
    })
    .delete("/run/:code/:id", ({ project, params }) => ok(deleteNumbered(ctx.db, project, "run", params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: runDetail("Delete a test run and its results (run.deleted)"),
    })
    .post("/run/:code/:id/complete", ({ project, params }) => ok(endRun(ctx.db, project, params.id, "completed")), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404, 409]), detail: runDetail("Complete an active run (run.completed); a completed run answers 200 unchanged, an aborted one 409"),
    })
    .post("/run/:code/:id/abort", ({ project, params }) => ok(endRun(ctx.db, project, params.id, "aborted")), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404, 409]), detail: runDetail("Abort an active run (Gatehouse extension; run.aborted; 409 unless active)"),
    })
    .patch("/run/:code/:id/public", ({ project, params, body }) => ok(setRunPublic(ctx.db, base, project, params.id, body.status)), {
      params: NumberParams, body: RunPublic, response: tmsResponses({ 200: Envelope(RunPublicResult) }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Show or hide the public report (run.report_changed when it changes)"),
    })
    .post("/result/:code/:id", ({ project, params, body, caller }) => ok(recordResults(ctx.db, caller, project, params.id, (f) => [fromV1(body, f)])[0]!), {
      params: RunIdParams, body: ResultCreate, response: tmsResponses({ 200: ResultCreated }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("Add a result to an active or completed run (409 if aborted)"),
    })
    .post("/result/:code/:id/bulk", ({ project, params, body, caller }) => {
      recordResults(ctx.db, caller, project, params.id, () => body.results.map((r, i) => fromV1(r, `results.${i}.`)));
      return { status: true };
    }, { params: RunIdParams, body: ResultCreateBulk, response: tmsResponses({ 200: StatusOnly }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("Add many results to an active or completed run in one transaction (409 if aborted)") })
    .get("/result/:code", ({ project, query }) => {
      const r = listResults(ctx.db, project, { ...query, ...paging(query) });
      return page(r.entities, r.total, r.filtered);
    }, {
      params: CodeParam,
      query: ResultListQuery,
      response: tmsResponses({ 200: PageOf(ResultView) }, [404]),
      detail: resultDetail("List results"),
    })
    .patch("/result/:code/:id/:hash", ({ project, params, body }) => ok(updateResult(ctx.db, project, params.id, params.hash, body)), {
      params: RunResultParams, body: ResultUpdate, response: tmsResponses({ 200: HashResult }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("Update a result; the case's latest status in the run follows (no event)"),
    })
    .delete("/result/:code/:id/:hash", ({ project, params }) => ok(deleteResult(ctx.db, project, params.id, params.hash)), {
      params: RunResultParams, response: tmsResponses({ 200: HashResult }, [404]), detail: resultDetail("Delete a result; the case's latest status in the run follows (no event)"),
    })
    .get("/result/:code/:hash", ({ project, params }) => ok(getResult(ctx.db, project, params.hash)), { params: CodeHashParams, response: tmsResponses({ 200: Envelope(ResultView) }, [404]), detail: resultDetail("Get a result") });
}

/** The Qase v2 results API the reporters (playwright-qase-reporter, qase-javascript-commons…) post to. */
export function runV2Routes(ctx: AppContext) {
  return projectApi(ctx, "/v2")
    .post("/:code/run/:runId/result", ({ project, params, body, caller }) => {
      const r = recordV2Results(ctx.db, ctx.log, caller, project, params.runId, [body]);
      // One item: its problem is the request's problem.
      const e = r.errors[0];
      if (e) throw badRequest(e.message, e.field?.replace(/^results\.0\.?/, "") || undefined);
      const { index: _, ...stored } = r.results[0]!;
      return ok({ ...stored, warnings: r.warnings });
    }, { params: V2RunParams, body: V2ResultCreate, response: tmsResponses({ 200: V2ResultCreated }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("v2: add one result (idempotent by `id`)") })
    .post("/:code/run/:runId/results", ({ project, params, body, caller }) => ok(recordV2Results(ctx.db, ctx.log, caller, project, params.runId, body.results)), {
      params: V2RunParams, body: V2ResultsCreate, response: tmsResponses({ 200: V2ResultsCreated }, [404, 409, ...TMS_BODY_ERRORS]),
      detail: resultDetail("v2: add results in bulk: every good item is stored, each bad one reported in `errors` (idempotent by `id`)"),
    });
}
