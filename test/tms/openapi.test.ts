import { afterAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());

test("the OpenAPI document lists the TMS routes with their tags, request schemas and the Token scheme", async () => {
  const doc = (await (await t.request("GET", "/openapi/json")).json()) as any;
  const paths = Object.keys(doc.paths);
  for (const p of ["/api/v1/project", "/api/v1/case/{code}", "/api/v1/case/{code}/{id}/clone", "/api/v1/suite/{code}/{id}/clone", "/api/v1/run/{code}/{id}/complete", "/api/v1/run/{code}/{id}/abort", "/api/v1/result/{code}/{id}/bulk", "/api/v2/{code}/run/{runId}/results", "/api/v1/defect/{code}/resolve/{id}", "/api/v1/custom_field"])
    expect(paths).toContain(p);
  expect(paths.some((p) => p.startsWith("/api/admin/api-tokens"))).toBe(true);
  const createCase = doc.paths["/api/v1/case/{code}"].post;
  expect(createCase.tags).toEqual(["Test cases"]);
  expect(createCase.security).toEqual([{ apiToken: [] }]);
  expect(doc.components.securitySchemes.apiToken).toMatchObject({ type: "apiKey", in: "header", name: "Token" });
});
