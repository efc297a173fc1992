import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "./harness";

// Qase clients that build `<host>/v1/...` themselves (@qase/mcp-server) reach the same handlers
// at the root as clients configured with `<base>/api/v1`.
let h: Harness;
beforeAll(async () => {
  h = await tmsHarness();
});
afterAll(() => h.close());

const call = async (method: string, path: string, body?: unknown, token = h.token) => {
  const r = await h.t.request(method, path, { body, headers: token ? { token } : {} });
  return { status: r.status, body: await r.json() as any };
};

test("/v1 and /api/v1 are the same API: a project created at one is read at the other", async () => {
  expect((await call("POST", "/v1/project", { title: "Root", code: "ROOT" })).status).toBe(200);
  const viaApi = await call("GET", "/api/v1/project/ROOT");
  expect(viaApi.body.result).toMatchObject({ code: "ROOT", title: "Root" });
  expect((await call("POST", "/api/v1/case/ROOT", { title: "a case" })).status).toBe(200);
  const list = await call("GET", "/v1/case/ROOT");
  expect(list.body.result.entities.map((c: any) => c.title)).toEqual(["a case"]);
});

test("/v2 at the root takes results like /api/v2", async () => {
  const run = await call("POST", "/v1/run/ROOT", { title: "r", include_all_cases: true });
  const rootV2 = await call("POST", `/v2/ROOT/run/${run.body.result.id}/results`, { results: [{ title: "a case", execution: { status: "passed" } }] });
  expect(rootV2.status).toBe(200);
  const results = await call("GET", `/api/v1/result/ROOT?run=${run.body.result.id}`);
  expect(results.body.result.entities).toHaveLength(1);
});

test("the root mount has the same token check and JSON errors", async () => {
  const anonymous = await call("GET", "/v1/project", undefined, "");
  expect(anonymous.status).toBe(401);
  expect(anonymous.body.status).toBe(false);
  const unknown = await call("GET", "/v1/no-such-thing");
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.code).toBe("not_found");
});

test("OpenAPI documents each route once, under /api", async () => {
  const doc = await (await h.t.request("GET", "/openapi/json")).json() as { paths: Record<string, unknown> };
  const paths = Object.keys(doc.paths);
  expect(paths).toContain("/api/v1/project");
  expect(paths.filter((p) => /^\/v[12]\//.test(p))).toEqual([]);
});
