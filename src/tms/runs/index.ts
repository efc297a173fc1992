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
    .post("/run/:code", async ({ project, body, caller }) => ok(await createRun(ctx.db, caller, project, body)), {
      params: CodeParam, body: RunCreate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Start a test run from a plan and/or cases (run.started)"),
    })
    .post("/run/:code/external-issue", async ({ project, body }) => ok(await setRunExternalIssues(ctx.db, project, body)), {
      params: CodeParam, body: RunExternalIssues, response: tmsResponses({ 200: Envelope(t.Object({})) }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Link runs to external issues (Jira)"),
    })
    .get("/run/:code", async ({ project, query }) => {
      const r = await listRuns(ctx.db, base, project, { ...query, ...paging(query) });
      return page(r.entities, r.total, r.filtered);
    }, { params: CodeParam, query: RunListQuery, response: tmsResponses({ 200: PageOf(RunView) }, [404]), detail: runDetail("List test runs") })
    .get("/run/:code/:id", async ({ project, params, query }) => {
      checkInclude(query.include, ["cases"]);
      return ok(await getRun(ctx.db, base, project, params.id));
    }, { params: NumberParams, query: RunGetQuery, response: tmsResponses({ 200: Envelope(RunView) }, [404]), detail: runDetail("Get a test run with its stats") })
    .patch("/run/:code/:id", async ({ project, params, body }) => ok(await updateRun(ctx.db, project, params.id, body)), {
      params: NumberParams, body: RunUpdate, response: tmsResponses({ 200: Numbered }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Update a run's title, description, environment, milestone, tags, configurations (no event)"),
    })
    .delete("/run/:code/:id", async ({ project, params }) => ok(await deleteNumbered(ctx.db, project, "run", params.id)), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404]), detail: runDetail("Delete a test run and its results (run.deleted)"),
    })
    .post("/run/:code/:id/complete", async ({ project, params }) => ok(await endRun(ctx.db, project, params.id, "completed")), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404, 409]), detail: runDetail("Complete an active run (run.completed); a completed run answers 200 unchanged, an aborted one 409"),
    })
    .post("/run/:code/:id/abort", async ({ project, params }) => ok(await endRun(ctx.db, project, params.id, "aborted")), {
      params: NumberParams, response: tmsResponses({ 200: Numbered }, [404, 409]), detail: runDetail("Abort an active run (Gatehouse extension; run.aborted; 409 unless active)"),
    })
    .patch("/run/:code/:id/public", async ({ project, params, body }) => ok(await setRunPublic(ctx.db, base, project, params.id, body.status)), {
      params: NumberParams, body: RunPublic, response: tmsResponses({ 200: Envelope(RunPublicResult) }, [404, ...TMS_BODY_ERRORS]), detail: runDetail("Show or hide the public report (run.report_changed when it changes)"),
    })
    .post("/result/:code/:id", async ({ project, params, body, caller }) => ok((await recordResults(ctx.db, caller, project, params.id, (f) => [fromV1(body, f)]))[0]!), {
      params: RunIdParams, body: ResultCreate, response: tmsResponses({ 200: ResultCreated }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("Add a result to an active or completed run (409 if aborted)"),
    })
    .post("/result/:code/:id/bulk", async ({ project, params, body, caller }) => {
      await recordResults(ctx.db, caller, project, params.id, () => body.results.map((r, i) => fromV1(r, `results.${i}.`)));
      return { status: true };
    }, { params: RunIdParams, body: ResultCreateBulk, response: tmsResponses({ 200: StatusOnly }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("Add many results to an active or completed run in one transaction (409 if aborted)") })
    .get("/result/:code", async ({ project, query }) => {
      const r = await listResults(ctx.db, project, { ...query, ...paging(query) });
      return page(r.entities, r.total, r.filtered);
    }, {
      params: CodeParam,
      query: ResultListQuery,
      response: tmsResponses({ 200: PageOf(ResultView) }, [404]),
      detail: resultDetail("List results"),
    })
    .patch("/result/:code/:id/:hash", async ({ project, params, body }) => ok(await updateResult(ctx.db, project, params.id, params.hash, body)), {
      params: RunResultParams, body: ResultUpdate, response: tmsResponses({ 200: HashResult }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("Update a result; the case's latest status in the run follows (no event)"),
    })
    .delete("/result/:code/:id/:hash", async ({ project, params }) => ok(await deleteResult(ctx.db, project, params.id, params.hash)), {
      params: RunResultParams, response: tmsResponses({ 200: HashResult }, [404]), detail: resultDetail("Delete a result; the case's latest status in the run follows (no event)"),
    })
    .get("/result/:code/:hash", async ({ project, params }) => ok(await getResult(ctx.db, project, params.hash)), { params: CodeHashParams, response: tmsResponses({ 200: Envelope(ResultView) }, [404]), detail: resultDetail("Get a result") });
}

/** The Qase v2 results API the reporters (playwright-qase-reporter, qase-javascript-commons…) post to. */
export function runV2Routes(ctx: AppContext) {
  return projectApi(ctx, "/v2")
    .post("/:code/run/:runId/result", async ({ project, params, body, caller }) => {
      const r = await recordV2Results(ctx.db, ctx.log, caller, project, params.runId, [body]);
      // One item: its problem is the request's problem.
      const e = r.errors[0];
      if (e) throw badRequest(e.message, e.field?.replace(/^results\.0\.?/, "") || undefined);
      const { index: _, ...stored } = r.results[0]!;
      return ok({ ...stored, warnings: r.warnings });
    }, { params: V2RunParams, body: V2ResultCreate, response: tmsResponses({ 200: V2ResultCreated }, [404, 409, ...TMS_BODY_ERRORS]), detail: resultDetail("v2: add one result (idempotent by `id`)") })
    .post("/:code/run/:runId/results", async ({ project, params, body, caller }) => ok(await recordV2Results(ctx.db, ctx.log, caller, project, params.runId, body.results)), {
      params: V2RunParams, body: V2ResultsCreate, response: tmsResponses({ 200: V2ResultsCreated }, [404, 409, ...TMS_BODY_ERRORS]),
      detail: resultDetail("v2: add results in bulk: every good item is stored, each bad one reported in `errors` (idempotent by `id`)"),
    });
}
