import { afterAll, expect, test } from "bun:test";
import { AxiosError } from "axios";
import { CasesApi, SharedParametersApi, SharedParameterCreateTypeEnum, type SharedParameter, type TestCase, type TestCaseParameter } from "qase-api-client";
import { qaseClientHarness } from "./harness";
import { checkParameters, filterCodes } from "../../src/tms/shared-parameters/service";
import { caseParameterViews } from "../../src/tms/cases/parameters";

/**
 * Shared parameters (Qase `/shared_parameter`): workspace-wide, addressed by UUID, checked as
 * docs/tms.md "Shared parameters" states. Through app.handle (`h.api`; the contract checker
 * validates every answer) and with the official `SharedParametersApi` over HTTP.
 */
const { h, v1, close } = await qaseClientHarness();
afterAll(close);
await h.api("POST", "/project", { title: "Params A", code: "PA" });
await h.api("POST", "/project", { title: "Params B", code: "PB" });

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await h.api(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

test("create, read, update and delete a single and a group shared parameter", async () => {
  const single = (await ok("POST", "/shared_parameter", {
    title: "Browsers", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "browser", values: ["chromium", "firefox"] }],
  })).id;
  expect(single).toMatch(UUID);
  expect(await ok("GET", `/shared_parameter/${single}`)).toEqual({
    id: single, title: "Browsers", type: "single", project_codes: [], is_enabled_for_all_projects: true, parameters: [{ title: "browser", values: ["chromium", "firefox"] }],
  });
  // At the root as well (where @qase/mcp-server looks), and the UUID in upper case finds it too.
  const atRoot = await h.t.request("GET", `/v1/shared_parameter/${single.toUpperCase()}`, { headers: { token: h.token } });
  expect(((await atRoot.json()) as any).result.id).toBe(single);

  const group = (await ok("POST", "/shared_parameter", {
    title: "Accounts", type: "group", is_enabled_for_all_projects: false, project_codes: ["pa", "PA"],
    parameters: [{ title: "user", values: ["alice", "bob"] }, { title: "role", values: ["admin", "viewer"] }],
  })).id;
  expect(await ok("GET", `/shared_parameter/${group}`)).toMatchObject({ type: "group", project_codes: ["PA"], is_enabled_for_all_projects: false });

  expect(await ok("PATCH", `/shared_parameter/${group}`, {
    title: "Accounts and roles", project_codes: ["PB", "pa"], parameters: [{ title: "user", values: ["carol"] }, { title: "role", values: ["owner"] }, { title: "plan", values: ["pro"] }],
  })).toEqual({ id: group });
  expect(await ok("GET", `/shared_parameter/${group}`)).toEqual({
    id: group, title: "Accounts and roles", type: "group", project_codes: ["PB", "PA"], is_enabled_for_all_projects: false,
    parameters: [{ title: "user", values: ["carol"] }, { title: "role", values: ["owner"] }, { title: "plan", values: ["pro"] }],
  });
  // A PATCH changes only what it names.
  await ok("PATCH", `/shared_parameter/${group}`, { is_enabled_for_all_projects: true });
  expect(await ok("GET", `/shared_parameter/${group}`)).toMatchObject({ title: "Accounts and roles", project_codes: ["PB", "PA"], is_enabled_for_all_projects: true });

  expect(await ok("DELETE", `/shared_parameter/${single}`)).toEqual({ id: single });
  for (const [method, body] of [["GET"], ["PATCH", { title: "x" }], ["DELETE"]] as const) {
    const r = await h.api(method, `/shared_parameter/${single}`, body);
    expect(`${method} ${r.status} ${r.body.error?.code}`).toBe(`${method} 404 not_found`);
  }
  await ok("DELETE", `/shared_parameter/${group}`);
});

test("the list pages, and filters by search, type and project codes (repeated or comma-separated, as clients send them)", async () => {
  const make = (title: string, type: "single" | "group", codes: string[] | null) => ok("POST", "/shared_parameter", {
    title, type, is_enabled_for_all_projects: codes === null, project_codes: codes,
    parameters: type === "single" ? [{ title: "v", values: ["1"] }] : [{ title: "a", values: ["1"] }, { title: "b", values: ["2"] }],
  });
  const everywhere = (await make("Locale everywhere", "single", null)).id;
  const onlyA = (await make("Locale in A", "single", ["PA"])).id;
  const onlyB = (await make("Screen in B", "group", ["PB"])).id;
  const both = (await make("Screen in A and B", "group", ["PA", "PB"])).id;
  const ids = async (query: string) => {
    const r = await ok("GET", `/shared_parameter?limit=100&${query}`);
    expect(r.count).toBe(r.entities.length);
    return r.entities.map((e: SharedParameter) => e.id);
  };
  expect(await ids("")).toEqual([everywhere, onlyA, onlyB, both]);
  expect(await ids("filters[search]=LOCALE")).toEqual([everywhere, onlyA]);
  expect(await ids("filters%5Btype%5D=group")).toEqual([onlyB, both]);
  expect(await ids("filters[project_codes][]=pa")).toEqual([everywhere, onlyA, both]);
  expect(await ids("filters[project_codes][]=PB")).toEqual([everywhere, onlyB, both]);
  expect(await ids("filters[project_codes][]=PA,PB")).toEqual([everywhere, onlyA, onlyB, both]);
  expect(await ids("filters[project_codes][]=PA&filters[project_codes][]=PB&filters[type]=group&filters[search]=screen")).toEqual([onlyB, both]);

  const page2 = await ok("GET", "/shared_parameter?limit=2&offset=1&filters[type]=single");
  expect(page2).toMatchObject({ total: 4, filtered: 2, count: 1 });
  expect(page2.entities.map((e: SharedParameter) => e.id)).toEqual([onlyA]);

  const badType = await h.api("GET", "/shared_parameter?filters[type]=triple");
  expect(badType.status).toBe(400);
  expect(badType.body.error.field).toBe("filters[type]");
  const badCode = await h.api("GET", "/shared_parameter?filters[project_codes][]=PA,NOPE");
  expect(badCode.status).toBe(400);
  expect(badCode.body.error).toMatchObject({ field: "filters[project_codes][]" });
  expect(badCode.body.error.message).toContain('"NOPE"');
  expect((await h.api("GET", "/shared_parameter?limit=101")).body.error.field).toBe("limit");
  for (const id of [everywhere, onlyA, onlyB, both]) await ok("DELETE", `/shared_parameter/${id}`);
});

test("bad input is a 400 naming the field, and nothing is written", async () => {
  const single = { title: "T", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "p", values: ["x"] }] };
  const cases: [string, unknown, string][] = [
    ["missing title", { ...single, title: undefined }, "title"],
    ["empty title", { ...single, title: "" }, "title"],
    ["long title", { ...single, title: "x".repeat(256) }, "title"],
    ["unknown type", { ...single, type: "matrix" }, "type"],
    ["no is_enabled_for_all_projects", { ...single, is_enabled_for_all_projects: undefined }, "is_enabled_for_all_projects"],
    ["single with two parameters", { ...single, parameters: [{ title: "a", values: ["1"] }, { title: "b", values: ["2"] }] }, "parameters"],
    ["group with one parameter", { ...single, type: "group" }, "parameters"],
    ["no parameters", { ...single, parameters: [] }, "parameters"],
    ["empty values", { ...single, parameters: [{ title: "p", values: [] }] }, "parameters"],
    ["empty value", { ...single, parameters: [{ title: "p", values: ["a", ""] }] }, "parameters"],
    ["value not a string", { ...single, parameters: [{ title: "p", values: [1] }] }, "parameters"],
    ["too many values", { ...single, parameters: [{ title: "p", values: Array.from({ length: 101 }, (_, i) => `v${i}`) }] }, "parameters"],
    ["repeated value", { ...single, parameters: [{ title: "p", values: ["a", "a"] }] }, "parameters"],
    ["repeated title in a group", { ...single, type: "group", parameters: [{ title: "User", values: ["1"] }, { title: "user", values: ["2"] }] }, "parameters"],
    ["uneven group rows", { ...single, type: "group", parameters: [{ title: "a", values: ["1", "2"] }, { title: "b", values: ["1"] }] }, "parameters"],
    ["unknown project code", { ...single, project_codes: ["PA", "NOPE"] }, "project_codes"],
    ["no project at all", { ...single, is_enabled_for_all_projects: false }, "project_codes"],
  ];
  for (const [what, body, field] of cases) {
    const r = await h.api("POST", "/shared_parameter", body);
    // Schema errors name the exact place (e.g. `parameters.0.values`); the service's checks name `parameters`.
    expect(`${what}: ${r.status} ${r.body?.error?.field?.split(".")[0]}`).toBe(`${what}: 400 ${field}`);
  }
  expect((await ok("GET", "/shared_parameter")).total).toBe(0);

  // An update is checked against the stored type, and a refused one changes nothing.
  const id = (await ok("POST", "/shared_parameter", single)).id;
  for (const [body, field] of [
    [{ parameters: [{ title: "a", values: ["1"] }, { title: "b", values: ["1"] }] }, "parameters"],
    [{ title: "Changed", project_codes: ["PA", "ZZ"] }, "project_codes"],
    [{ title: "Changed", is_enabled_for_all_projects: false }, "project_codes"],
    [{ title: "" }, "title"],
  ] as const) {
    const r = await h.api("PATCH", `/shared_parameter/${id}`, body);
    expect(`${r.status} ${r.body.error.field?.split(".")[0]}`).toBe(`400 ${field}`);
  }
  expect(await ok("GET", `/shared_parameter/${id}`)).toMatchObject({ title: "T", is_enabled_for_all_projects: true, project_codes: [], parameters: [{ title: "p", values: ["x"] }] });
  const badId = await h.api("GET", "/shared_parameter/12");
  expect(`${badId.status} ${badId.body.error.field}`).toBe("400 id");
  await ok("DELETE", `/shared_parameter/${id}`);
});

test("a token sees its own workspace's shared parameters only; other workspaces' project codes are unknown", async () => {
  const ws = ((await (await h.t.admin("POST", "/api/admin/workspaces", { name: "Elsewhere" })).json()) as any).id;
  const other = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "other", workspaceId: ws })).json()) as any).token;
  const as = async (method: string, path: string, body?: unknown) => {
    const r = await h.t.request(method, `/api/v1${path}`, { body, headers: { token: other } });
    return { status: r.status, body: (await r.json()) as any };
  };
  expect((await as("POST", "/project", { title: "Elsewhere", code: "EW" })).status).toBe(200);
  const mine = (await ok("POST", "/shared_parameter", { title: "Mine", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "p", values: ["1"] }] })).id;
  const theirs = (await as("POST", "/shared_parameter", { title: "Theirs", type: "single", is_enabled_for_all_projects: false, project_codes: ["ew"], parameters: [{ title: "p", values: ["1"] }] })).body.result.id;

  for (const method of ["GET", "PATCH", "DELETE"]) expect(`${method} ${(await as(method, `/shared_parameter/${mine}`, method === "PATCH" ? { title: "x" } : undefined)).status}`).toBe(`${method} 404`);
  expect((await as("GET", "/shared_parameter")).body.result).toMatchObject({ total: 1, entities: [{ id: theirs, project_codes: ["EW"] }] });
  expect((await ok("GET", "/shared_parameter")).entities.map((e: SharedParameter) => e.id)).toEqual([mine]);
  expect((await h.api("GET", `/shared_parameter/${theirs}`)).status).toBe(404);
  // Codes name projects of the caller's workspace only.
  expect((await as("PATCH", `/shared_parameter/${theirs}`, { project_codes: ["PA"] })).body.error.field).toBe("project_codes");
  expect((await h.api("PATCH", `/shared_parameter/${mine}`, { project_codes: ["EW"] })).body.error.field).toBe("project_codes");
  expect((await as("GET", "/shared_parameter?filters[project_codes][]=PA")).status).toBe(400);
  await ok("DELETE", `/shared_parameter/${mine}`);
  expect((await as("DELETE", `/shared_parameter/${theirs}`)).status).toBe(200);
});

test("the official qase-api-client SharedParametersApi round-trips over HTTP", async () => {
  const api = new SharedParametersApi(v1);
  const id = (await api.createSharedParameter({
    title: "Viewports", type: SharedParameterCreateTypeEnum.GROUP, is_enabled_for_all_projects: false, project_codes: ["PA"],
    parameters: [{ title: "width", values: ["375", "1440"] }, { title: "height", values: ["812", "900"] }],
  })).data.result!.id!;
  const got: SharedParameter = (await api.getSharedParameter(id)).data.result!;
  expect(got).toEqual({
    id, title: "Viewports", type: "group", project_codes: ["PA"], is_enabled_for_all_projects: false,
    parameters: [{ title: "width", values: ["375", "1440"] }, { title: "height", values: ["812", "900"] }],
  } as SharedParameter);
  await api.updateSharedParameter(id, { title: "Screens", project_codes: ["PA", "PB"] });
  // getSharedParameters(limit, offset, search, type, projectCodes): the client joins the codes into one comma-separated value.
  const list = (await api.getSharedParameters(10, 0, "screen", "group", ["PB", "PA"])).data.result!;
  expect(list.total).toBe(1);
  expect(list.entities!.map((e) => [e.id, e.title, e.project_codes])).toEqual([[id, "Screens", ["PA", "PB"]]]);
  expect((await api.getSharedParameters(10, 0, undefined, "single")).data.result!.entities).toEqual([]);
  const refused = await api.createSharedParameter({ title: "Bad", type: SharedParameterCreateTypeEnum.SINGLE, is_enabled_for_all_projects: true, parameters: [] }).catch((e: AxiosError) => e);
  expect((refused as AxiosError).response?.status).toBe(400);
  expect((await api.deleteSharedParameter(id)).data.result!.id).toBe(id);
  expect(await api.getSharedParameter(id).catch((e: AxiosError) => e.response?.status)).toBe(404);
});

test("checkParameters and filterCodes (pure)", () => {
  const p = (title: string, ...values: string[]) => ({ title, values });
  expect(() => checkParameters("single", [p("a", "1", "2")])).not.toThrow();
  expect(() => checkParameters("group", [p("a", "1", "2"), p("b", "1", "1")])).not.toThrow(); // a group's column may repeat a value
  expect(() => checkParameters("single", [p("a", "1"), p("b", "2")])).toThrow(/exactly one/);
  expect(() => checkParameters("group", [p("a", "1")])).toThrow(/two or more/);
  expect(() => checkParameters("group", [p("a", "1"), p("A", "2")])).toThrow(/twice/);
  expect(() => checkParameters("group", [p("a", "1"), p("b", "1", "2")])).toThrow(/same number of values/);
  expect(() => checkParameters("single", [p("a", "1", "1")])).toThrow(/value twice/);
  expect(filterCodes(undefined)).toEqual([]);
  expect(filterCodes("PA")).toEqual(["PA"]);
  expect(filterCodes(["PA, pb", "", "PC,"])).toEqual(["PA", "pb", "PC"]);
});


test("case parameters: single, group and shared forms in v1 create, update and bulk, answered as Qase's TestCaseParameter", async () => {
  const shared = (await ok("POST", "/shared_parameter", {
    title: "OS", type: "group", is_enabled_for_all_projects: false, project_codes: ["PA"],
    parameters: [{ title: "os", values: ["linux", "macos"] }, { title: "arch", values: ["x64", "arm64"] }],
  })).id;
  const id = (await ok("POST", "/case/PA", {
    title: "Parameterised", parameters: [
      { title: "browser", values: ["chromium", "firefox"] },
      { items: [{ title: "user", values: ["alice"] }, { title: "role", values: ["admin"] }] },
      { shared_id: shared.toUpperCase() },
    ],
  })).id;
  expect((await ok("GET", `/case/PA/${id}`)).parameters).toEqual([
    { shared_id: null, type: "single", item: { title: "browser", values: ["chromium", "firefox"] } },
    { shared_id: null, type: "group", items: [{ title: "user", values: ["alice"] }, { title: "role", values: ["admin"] }] },
    { shared_id: shared, type: "group", items: [{ title: "os", values: ["linux", "macos"] }, { title: "arch", values: ["x64", "arm64"] }] },
  ]);
  // A reference shows the shared parameter as it is now.
  await ok("PATCH", `/shared_parameter/${shared}`, { parameters: [{ title: "os", values: ["windows"] }, { title: "arch", values: ["x64"] }] });
  expect((await ok("GET", `/case/PA/${id}`)).parameters[2].items[0]).toEqual({ title: "os", values: ["windows"] });
  // Lists and clones carry them too.
  expect((await ok("GET", "/case/PA?search=Parameterised")).entities[0].parameters).toHaveLength(3);
  const clone = (await ok("POST", `/case/PA/${id}/clone`, {})).id;
  expect((await ok("GET", `/case/PA/${clone}`)).parameters).toHaveLength(3);

  // An update replaces them; other fields leave them alone; [] removes them.
  await ok("PATCH", `/case/PA/${id}`, { parameters: [{ title: "locale", values: ["en", "de"] }] });
  await ok("PATCH", `/case/PA/${id}`, { title: "Parameterised (renamed)" });
  expect((await ok("GET", `/case/PA/${id}`)).parameters).toEqual([{ shared_id: null, type: "single", item: { title: "locale", values: ["en", "de"] } }]);
  await ok("PATCH", `/case/PA/${id}`, { parameters: [] });
  expect((await ok("GET", `/case/PA/${id}`)).parameters).toEqual([]);

  // Deleting the shared parameter removes it from the cases that use it.
  await ok("DELETE", `/shared_parameter/${shared}`);
  expect((await ok("GET", `/case/PA/${clone}`)).parameters.map((p: any) => p.shared_id)).toEqual([null, null]);

  const bulk = await ok("POST", "/case/PA/bulk", { cases: [{ title: "Bulk plain" }, { title: "Bulk param", parameters: [{ title: "size", values: ["s", "m"] }] }] });
  expect((await ok("GET", `/case/PA/${bulk.ids[1]}`)).parameters).toEqual([{ shared_id: null, type: "single", item: { title: "size", values: ["s", "m"] } }]);
  expect((await ok("GET", `/case/PA/${bulk.ids[0]}`)).parameters).toEqual([]);
});

test("case parameters: bad forms, unknown or unusable shared parameters are 400s naming the item, and nothing is written", async () => {
  const onlyB = (await ok("POST", "/shared_parameter", { title: "B only", type: "single", is_enabled_for_all_projects: false, project_codes: ["PB"], parameters: [{ title: "b", values: ["1"] }] })).id;
  const browsers = (await ok("POST", "/shared_parameter", { title: "Browsers", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "browser", values: ["chromium"] }] })).id;
  const before = (await ok("GET", "/case/PA")).total;
  const bad: [string, unknown[], string][] = [
    ["unknown shared parameter", [{ shared_id: "00000000-0000-4000-8000-000000000000" }], "parameters.0.shared_id"],
    ["not enabled for the project", [{ title: "x", values: ["1"] }, { shared_id: onlyB }], "parameters.1.shared_id"],
    ["malformed shared_id", [{ shared_id: "nope" }], "parameters.0.shared_id"],
    ["group of one", [{ items: [{ title: "a", values: ["1"] }] }], "parameters.0.items"],
    ["uneven group", [{ items: [{ title: "a", values: ["1", "2"] }, { title: "b", values: ["1"] }] }], "parameters.0"],
    ["repeated value", [{ title: "a", values: ["1", "1"] }], "parameters.0"],
    ["empty values", [{ title: "a", values: [] }], "parameters.0.values"],
    ["empty value in a group", [{ title: "a", values: ["1"] }, { items: [{ title: "b", values: [""] }, { title: "c", values: ["1"] }] }], "parameters.1.items.0.values.0"],
    ["title without values", [{ title: "a" }], "parameters.0"],
    ["title used twice across the case", [{ title: "Browser", values: ["x"] }, { shared_id: browsers }], "parameters.1"],
    ["neither form", [{ name: "a" }], "parameters.0"],
  ];
  for (const [what, parameters, field] of bad) {
    const r = await h.api("POST", "/case/PA", { title: "Refused", parameters });
    expect(`${what}: ${r.status} ${r.body.error?.field}`).toBe(`${what}: 400 ${field}`);
  }
  const inBulk = await h.api("POST", "/case/PA/bulk", { cases: [{ title: "fine" }, { title: "refused", parameters: [{ shared_id: onlyB }] }] });
  expect(`${inBulk.status} ${inBulk.body.error.field}`).toBe("400 cases.1.parameters.0.shared_id");
  expect((await ok("GET", "/case/PA")).total).toBe(before);

  // Another workspace's shared parameter is unknown here, even when enabled for all its projects.
  const ws = ((await (await h.t.admin("POST", "/api/admin/workspaces", { name: "Far away" })).json()) as any).id;
  const other = ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: "far", workspaceId: ws })).json()) as any).token;
  const theirs = ((await (await h.t.request("POST", "/api/v1/shared_parameter", {
    headers: { token: other }, body: { title: "Theirs", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "t", values: ["1"] }] },
  })).json()) as any).result.id;
  const refused = await h.api("POST", "/case/PA", { title: "Refused", parameters: [{ shared_id: theirs }] });
  expect(`${refused.status} ${refused.body.error.field}`).toBe("400 parameters.0.shared_id");

  // A refused update changes nothing.
  const id = (await ok("POST", "/case/PA", { title: "Kept", parameters: [{ shared_id: browsers }] })).id;
  expect((await h.api("PATCH", `/case/PA/${id}`, { title: "Changed", parameters: [{ shared_id: onlyB }] })).status).toBe(400);
  expect(await ok("GET", `/case/PA/${id}`)).toMatchObject({ title: "Kept", revision: 1, parameters: [{ shared_id: browsers, type: "single" }] });
  await ok("DELETE", `/shared_parameter/${onlyB}`);
  await ok("DELETE", `/shared_parameter/${browsers}`);
});

test("the official CasesApi sends TestCaseParameterCreate forms and reads TestCaseParameter back", async () => {
  const sharedApi = new SharedParametersApi(v1);
  const shared = (await sharedApi.createSharedParameter({
    title: "Locales", type: SharedParameterCreateTypeEnum.SINGLE, is_enabled_for_all_projects: true, parameters: [{ title: "locale", values: ["en", "fr"] }],
  })).data.result!.id!;
  const cases = new CasesApi(v1);
  const id = (await cases.createCase("PB", {
    title: "Checkout in every locale",
    parameters: [{ shared_id: shared }, { title: "currency", values: ["EUR", "USD"] }, { items: [{ title: "card", values: ["visa"] }, { title: "cvc", values: ["123"] }] }],
  })).data.result!.id!;
  const got: TestCase = (await cases.getCase("PB", id)).data.result!;
  const parameters: TestCaseParameter[] = got.parameters!;
  expect(parameters).toEqual([
    { shared_id: shared, type: "single", item: { title: "locale", values: ["en", "fr"] } },
    { shared_id: null, type: "single", item: { title: "currency", values: ["EUR", "USD"] } },
    { shared_id: null, type: "group", items: [{ title: "card", values: ["visa"] }, { title: "cvc", values: ["123"] }] },
  ] as TestCaseParameter[]);
  await cases.updateCase("PB", id, { parameters: [{ title: "currency", values: ["GBP"] }] });
  expect((await cases.getCase("PB", id)).data.result!.parameters).toEqual([{ shared_id: null, type: "single", item: { title: "currency", values: ["GBP"] } }] as TestCaseParameter[]);
  await sharedApi.deleteSharedParameter(shared);
});

test("caseParameterViews (pure): inline ones as stored, references resolved, dangling references left out", () => {
  const row = { uuid: "u1", type: "single", parameters: [{ title: "a", values: ["1"] }] } as any;
  expect(caseParameterViews([{ type: "single", item: { title: "x", values: ["1"] } }, { shared_id: "u1" }, { shared_id: "gone" }], new Map([["u1", row]]))).toEqual([
    { shared_id: null, type: "single", item: { title: "x", values: ["1"] } },
    { shared_id: "u1", type: "single", item: { title: "a", values: ["1"] } },
  ]);
});
