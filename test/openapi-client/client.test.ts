import { afterAll, expect, test } from "bun:test";
import createClient from "openapi-fetch";
import { generatedClientTypes, CLIENT_TYPES_PATH } from "../../scripts/openapi-client";
import { ADMIN_TOKEN, createTestApp } from "../helpers";
import type { paths } from "./schema";

/**
 * A client generated from /openapi/json by a standard generator (openapi-typescript types +
 * openapi-fetch) drives one flow per API. `tsc` type-checks this file against the generated
 * types, so a request or answer shape the document gets wrong fails the type check or the flow;
 * the answers also pass through the contract check (test/contract.ts).
 */

const t = createTestApp();
afterAll(() => t.close());
const client = createClient<paths>({ baseUrl: "http://localhost", fetch: (request) => t.app.handle(request) });
const admin = { Authorization: `Bearer ${ADMIN_TOKEN}` };

test("the committed client types are what the generator makes of the current document", async () => {
  // regenerate with: bun scripts/openapi-client.ts
  expect(await Bun.file(CLIENT_TYPES_PATH).text()).toBe(await generatedClientTypes());
}, 30_000);

test("admin API: create a SCIM token, see it listed, switch SCIM off and on", async () => {
  const created = await client.POST("/api/admin/scim-tokens", { headers: admin, body: { name: "Generated client" } });
  expect(created.response.status).toBe(201);
  const id: number = created.data!.id;
  const listed = await client.GET("/api/admin/scim-tokens", { headers: admin });
  expect(listed.data!.map((tok) => tok.id)).toContain(id);
  const off = await client.PATCH("/api/admin/scim", { headers: admin, body: { enabled: false } });
  expect(off.data!.enabled).toBe(false);
  expect((await client.PATCH("/api/admin/scim", { headers: admin, body: { enabled: true } })).data!.enabled).toBe(true);
  const denied = await client.GET("/api/admin/scim-tokens", {});
  expect(denied.response.status).toBe(401);
  expect(denied.error!.error.code).toBe("unauthorized");
});

test("SCIM: provision a user, find it by filter, deactivate it", async () => {
  const { token } = (await client.POST("/api/admin/scim-tokens", { headers: admin, body: { name: "IdP" } })).data!;
  const scim = { Authorization: `Bearer ${token}` };
  const created = await client.POST("/scim/v2/Users", {
    headers: scim,
    body: { userName: "grace@example.com", name: { givenName: "Grace", familyName: "Hopper" }, emails: [{ value: "grace@example.com", type: "work", primary: true }] },
  });
  expect(created.response.status).toBe(201);
  const id: string = created.data!.id;
  const found = await client.GET("/scim/v2/Users", { headers: scim, params: { query: { filter: 'userName eq "grace@example.com"', count: 10 } } });
  expect(found.data!.totalResults).toBe(1);
  expect(found.data!.Resources[0]!.id).toBe(id);
  const gone = await client.DELETE("/scim/v2/Users/{id}", { headers: scim, params: { path: { id } } });
  expect(gone.response.status).toBe(204);
  const after = await client.GET("/scim/v2/Users/{id}", { headers: scim, params: { path: { id } } });
  expect(after.data!.active).toBe(false);
  const missing = await client.GET("/scim/v2/Users/{id}", { headers: scim, params: { path: { id: "999999" } } });
  expect(missing.response.status).toBe(404);
  expect(missing.error!.status).toBe("404");
});

test("test management (v1): a project, a case, a run and a result, read back", async () => {
  const { token } = (await client.POST("/api/admin/api-tokens", { headers: admin, body: { name: "Generated client" } })).data!;
  const api = { Token: token };
  const project = await client.POST("/api/v1/project", { headers: api, body: { title: "Client", code: "GEN" } });
  const code: string = project.data!.result.code;
  const kase = await client.POST("/api/v1/case/{code}", { headers: api, params: { path: { code } }, body: { title: "Typed client", severity: "major" } });
  const caseId: number = kase.data!.result.id;
  const read = await client.GET("/api/v1/case/{code}/{id}", { headers: api, params: { path: { code, id: caseId } } });
  expect(read.data!.result.title).toBe("Typed client");
  expect(read.data!.result.severity).toBe(3); // sent as the name "major", answered as Qase's number
  const run = await client.POST("/api/v1/run/{code}", { headers: api, params: { path: { code } }, body: { title: "Nightly", cases: [caseId] } });
  const runId: number = run.data!.result.id;
  const result = await client.POST("/api/v1/result/{code}/{id}", { headers: api, params: { path: { code, id: runId } }, body: { case_id: caseId, status: "passed" } });
  expect(result.data!.result.case_id).toBe(caseId);
  const runs = await client.GET("/api/v1/run/{code}", { headers: api, params: { path: { code }, query: { limit: 10 } } });
  expect(runs.data!.result.entities.map((r) => r.id)).toContain(runId);
  const stats = runs.data!.result.entities.find((r) => r.id === runId)!.stats;
  expect(stats.passed).toBe(1);
  const unknown = await client.GET("/api/v1/case/{code}/{id}", { headers: api, params: { path: { code, id: 424242 } } });
  expect(unknown.response.status).toBe(404);
  expect(unknown.error!.status).toBe(false);
});
