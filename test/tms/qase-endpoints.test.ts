import { afterAll, expect, test } from "bun:test";
import { CasesApi, CustomFieldsApi, DefectsApi, DefectStatusStatusEnum, ProjectsApi, ResultsApi, ResultUpdateStatusEnum, RunsApi } from "qase-api-client";
import { Configuration as V2Configuration, CustomFieldsApi as V2CustomFieldsApi } from "qase-api-v2-client";
import { qaseClientHarness } from "./harness";

/**
 * The updates and deletes qase-api-client and qase-api-v2-client declare (and @qase/mcp-server's
 * run, defect and result tools call), through the official clients over HTTP.
 */
const { h, origin, v1, close } = await qaseClientHarness();
afterAll(close);
await new ProjectsApi(v1).createProject({ title: "Endpoints", code: "EP" });
const cases = new CasesApi(v1);
const c1 = (await cases.createCase("EP", { title: "One" })).data.result!.id!;
const c2 = (await cases.createCase("EP", { title: "Two" })).data.result!.id!;

test("RunsApi.updateRun changes title, description, environment, milestone, tags of a run; unknown references are 400", async () => {
  const runs = new RunsApi(v1);
  const run = (await runs.createRun("EP", { title: "Nightly", cases: [c1] })).data.result!.id!;
  const milestone = (await h.api("POST", "/milestone/EP", { title: "1.0" })).body.result.id;
  await h.api("POST", "/environment/EP", { title: "Staging", slug: "staging" });
  await h.clear();
  expect((await runs.updateRun("EP", run, { title: "Nightly (rerun)", description: "second try", environment_slug: "staging", milestone_id: milestone, tags: ["rerun"] })).data.status).toBe(true);
  expect((await runs.getRun("EP", run)).data.result).toMatchObject({ title: "Nightly (rerun)", description: "second try", environment: { slug: "staging", title: "Staging" }, milestone: { id: milestone }, tags: [{ title: "rerun" }] });
  const bad = await h.api("PATCH", `/run/EP/${run}`, { milestone_id: 999 });
  expect([bad.status, bad.body.error.field]).toEqual([400, "milestone_id"]);
  expect((await h.api("PATCH", "/run/EP/999", { title: "x" })).status).toBe(404);
  expect(await h.inbox()).toEqual([]);
});

test("ResultsApi.updateResult and deleteResult: the case's latest status in the run follows", async () => {
  const runs = new RunsApi(v1);
  const results = new ResultsApi(v1);
  const run = (await runs.createRun("EP", { title: "R", cases: [c1, c2] })).data.result!.id!;
  const first = (await results.createResult("EP", run, { case_id: c1, status: "failed" })).data.result!.hash!;
  const second = (await results.createResult("EP", run, { case_id: c1, status: "blocked" })).data.result!.hash!;
  expect((await runs.getRun("EP", run)).data.result!.stats).toMatchObject({ blocked: 1, failed: 0 });
  expect((await results.updateResult("EP", run, second, { status: ResultUpdateStatusEnum.PASSED, comment: "passed on retry", time_ms: 1200 })).data.result).toEqual({ hash: second });
  expect((await results.getResult("EP", second)).data.result).toMatchObject({ status: "passed", comment: "passed on retry", time_spent_ms: 1200 });
  expect((await runs.getRun("EP", run)).data.result!.stats).toMatchObject({ passed: 1, blocked: 0 });
  expect((await results.deleteResult("EP", run, second)).data.result).toEqual({ hash: second });
  expect((await h.api("GET", `/result/EP/${second}`)).status).toBe(404);
  expect((await runs.getRun("EP", run)).data.result!.stats).toMatchObject({ failed: 1, passed: 0 }); // the older result is the latest again
  await results.deleteResult("EP", run, first);
  expect((await runs.getRun("EP", run)).data.result!.stats).toMatchObject({ untested: 2 });
  expect((await h.api("DELETE", `/result/EP/${run}/${first}`)).status).toBe(404);
  const badStatus = await h.api("PATCH", `/result/EP/${run}/${second}`, { status: "exploded" });
  expect(badStatus.status).toBe(404); // deleted
});

test("DefectsApi.updateDefect and updateDefectStatus: resolved sends defect.resolved; reopening clears resolved_at", async () => {
  const defects = new DefectsApi(v1);
  const id = (await defects.createDefect("EP", { title: "Slow", actual_result: "10 s", severity: 4 })).data.result!.id!;
  await h.clear();
  await defects.updateDefect("EP", id, { title: "Very slow", severity: 2, tags: ["perf"] });
  expect((await defects.getDefect("EP", id)).data.result).toMatchObject({ title: "Very slow", severity: "critical", tags: [{ title: "perf" }], status: "open" });
  expect((await defects.updateDefectStatus("EP", id, { status: DefectStatusStatusEnum.IN_PROGRESS })).data.status).toBe(true);
  expect((await defects.getDefects("EP", "in_progress")).data.result!.entities!.map((d) => d.id)).toEqual([id]);
  await defects.updateDefectStatus("EP", id, { status: DefectStatusStatusEnum.RESOLVED });
  expect((await h.expectEvent("defect.resolved")).payload).toEqual({ id });
  expect((await defects.getDefect("EP", id)).data.result!.resolved_at).toBeString();
  await defects.updateDefectStatus("EP", id, { status: "open" as never });
  expect((await defects.getDefect("EP", id)).data.result).toMatchObject({ status: "open", resolved_at: null });
  const bad = await h.api("PATCH", `/defect/EP/status/${id}`, { status: "closed" });
  expect([bad.status, bad.body.error.field]).toEqual([400, "status"]);
  expect(await h.inbox()).toEqual([]);
});

test("qase-api-v2-client CustomFieldsApi reads fields with their options as objects", async () => {
  const field = (await new CustomFieldsApi(v1).createCustomField({ title: "Area", entity: 0, type: 3, value: [{ id: 1, title: "Web" }, { id: 2, title: "API" }] } as never)).data.result!.id!;
  const v2 = new V2CustomFieldsApi(new V2Configuration({ apiKey: h.token, basePath: `${origin}/api/v2` }));
  const got = (await v2.getCustomFieldV2(field)).data.result!;
  expect(got).toMatchObject({ id: field, title: "Area", entity: "case", type: "selectbox", value: [{ id: 1, title: "Web" }, { id: 2, title: "API" }] });
  expect((await v2.getCustomFieldsV2("case", "selectbox", 100, 0)).data.result!.entities!.map((f) => f.id)).toContain(field);
  expect((await h.api("GET", "/api/v2/custom_field/999999")).status).toBe(404);
});

test("ProjectsApi.deleteProject removes the project and everything in it; its code leaves custom fields", async () => {
  const projects = new ProjectsApi(v1);
  await projects.createProject({ title: "Doomed", code: "DOOM" });
  const c = (await cases.createCase("DOOM", { title: "x" })).data.result!.id!;
  const run = (await new RunsApi(v1).createRun("DOOM", { title: "r", cases: [c] })).data.result!.id!;
  await new ResultsApi(v1).createResult("DOOM", run, { case_id: c, status: "failed", defect: true });
  await h.api("POST", "/suite/DOOM", { title: "s" });
  const field = (await h.api("POST", "/custom_field", { title: "Only Doom", entity: "case", type: "string", is_enabled_for_all_projects: false, projects_codes: ["DOOM"] })).body.result.id;
  expect((await projects.deleteProject("DOOM")).data).toEqual({ status: true });
  expect((await h.api("GET", "/project/DOOM")).status).toBe(404);
  expect((await h.api("GET", "/case/DOOM")).status).toBe(404);
  expect((await h.api("GET", `/custom_field/${field}`)).body.result.projects_codes).toEqual([]);
  // The code is free again, and the new project starts empty.
  await projects.createProject({ title: "Reborn", code: "DOOM" });
  expect((await h.api("GET", "/case/DOOM")).body.result.total).toBe(0);
  expect((await h.api("DELETE", "/project/NOPE")).status).toBe(404);
});

test("custom field values on runs and defects are stored, validated and read back as Qase's CustomFieldValue (RunsApi, DefectsApi)", async () => {
  const field = async (body: object) => (await h.api("POST", "/custom_field", body)).body.result.id as number;
  const build = await field({ title: "Build", entity: "run", type: "number" });
  const area = await field({ title: "Area", entity: "run", type: "selectbox", value: [{ title: "Web" }, { title: "API" }] });
  const found = await field({ title: "Found in", entity: "defect", type: "string" });
  const caseOnly = await field({ title: "Case only", entity: "case", type: "string" });
  const runs = new RunsApi(v1);
  const defects = new DefectsApi(v1);

  const run = (await runs.createRun("EP", { title: "With fields", custom_field: { [build]: "42", [area]: "API" } })).data.result!.id!;
  const option = (await h.api("GET", `/custom_field/${area}`)).body.result;
  const api = (JSON.parse(option.value) as { id: number; title: string }[]).find((o) => o.title === "API")!.id;
  expect((await runs.getRun("EP", run)).data.result!.custom_fields).toEqual([{ id: build, value: "42" }, { id: area, value: String(api) }]);
  await runs.updateRun("EP", run, { custom_field: { [build]: "43", [area]: "" } }); // "" removes a value
  expect((await runs.getRun("EP", run)).data.result!.custom_fields).toEqual([{ id: build, value: "43" }]);

  const defect = (await defects.createDefect("EP", { title: "Crash", actual_result: "boom", severity: 3, custom_field: { [found]: "1.2.3" } })).data.result!.id!;
  expect((await defects.getDefect("EP", defect)).data.result!.custom_fields).toEqual([{ id: found, value: "1.2.3" }]);
  await defects.updateDefect("EP", defect, { custom_field: { [found]: "1.2.4" } });
  expect((await h.api("GET", `/defect/EP/${defect}`)).body.result.custom_fields).toEqual([{ id: found, value: "1.2.4" }]);

  // What a field does not take, or a field of another entity, is a 400 naming it, and nothing is written.
  for (const [method, path, body, name] of [
    ["POST", "/run/EP", { title: "r", custom_field: { [build]: "many" } }, `custom_field.${build}`],
    ["POST", "/run/EP", { title: "r", custom_field: { [caseOnly]: "x" } }, `custom_field.${caseOnly}`],
    ["PATCH", `/run/EP/${run}`, { title: "renamed", custom_field: { [area]: "Mobile" } }, `custom_field.${area}`],
    ["POST", "/defect/EP", { title: "d", actual_result: "a", custom_field: { [build]: "1" } }, `custom_field.${build}`],
  ] as const) {
    const r = await h.api(method, path, body);
    expect([r.status, r.body.error.field]).toEqual([400, name]);
  }
  expect((await runs.getRun("EP", run)).data.result!.title).toBe("With fields");

  // A deleted field's values stay stored but are not shown, as on cases.
  await h.api("DELETE", `/custom_field/${build}`);
  expect((await runs.getRun("EP", run)).data.result!.custom_fields).toEqual([]);
  expect((await h.api("POST", "/run/EP", { title: "r", custom_field: {} })).status).toBe(200);
});
