import { afterAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { normalizeSchema, type Json } from "../../src/ops/openapi-document";
import { createTestApp } from "../helpers";

/**
 * The document tells the whole truth: every operation's body is described with an example that
 * fits it, every operation documents its 2xx answer with a schema, and every error status the
 * route's guards, validation and lookups can answer is documented with its protocol's error body.
 * (What the routes really answer during the suite is checked by test/contract.ts.)
 */

const t = createTestApp();
afterAll(() => t.close());
const doc = (await (await t.request("GET", "/openapi/json")).json()) as any;

type Op = { method: string; path: string; op: any };
const operations: Op[] = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
  Object.entries(item).map(([method, op]) => ({ method, path, op })),
);
const name = ({ method, path }: Op) => `${method.toUpperCase()} ${path}`;
const hasPathParams = (path: string) => /\{[^}]+\}/.test(path);
const areaOf = (path: string) =>
  path.startsWith("/scim/") ? "scim" : path.startsWith("/api/admin/") ? "admin" : path.startsWith("/api/v1/") || path.startsWith("/api/v2/") ? "tms" : "ops";

/** The error statuses a route can answer by construction: its area's guard, validation, lookups. */
function statusesItCanAnswer({ method, path, op }: Op): number[] {
  const withInput = !!op.requestBody || (op.parameters ?? []).length > 0;
  switch (areaOf(path)) {
    case "scim":
      // the gate (token, switch, rate limit); bodies (JSON, size, media type); ids; list/projection params
      return [401, 403, 429, ...(op.requestBody ? [400, 413, 415] : []), ...(hasPathParams(path) ? [404] : []), ...((op.parameters ?? []).some((p: any) => p.in === "query" && p.name !== "filter") ? [400] : [])];
    case "admin":
      // the admin home's guard; bodies (JSON within the admin limit); ids
      return [401, 503, ...(withInput ? [400] : []), ...(op.requestBody ? [413, 415] : []), ...(hasPathParams(path) ? [404] : [])];
    case "tms":
      // the Token check; validation; bodies (JSON within the body limit); project and entity lookups
      return [400, 401, 403, ...(op.requestBody ? [413, 415] : []), ...(hasPathParams(path) ? [404] : [])];
    default:
      return path === "/readyz" ? [503] : path === "/metrics" || path === "/version" ? [401, 503] : [];
  }
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const withComponents = (schema: object) => ({ ...schema, components: doc.components });

test("the document has operations from every area", () => {
  for (const area of ["scim", "admin", "tms", "ops"]) expect(operations.filter((o) => areaOf(o.path) === area).length).toBeGreaterThan(0);
});

test("every route the app registers is documented, and every documented operation is a route", () => {
  // Elysia's route table; hidden routes (the document itself, the UI, the console's files, SCIM's
  // 405 catch-alls) are not API. /v1 and /v2 repeat /api/v1 and /api/v2 (the Qase root mount):
  // documented once, under /api.
  const routes = (t.app as unknown as { getGlobalRoutes(): { method: string; path: string; hooks?: { detail?: { hide?: boolean } } }[] }).getGlobalRoutes();
  const key = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/:([^/]+)/g, "{$1}")}`;
  const registered = new Set(routes.filter((r) => !r.hooks?.detail?.hide).map((r) => key(r.method, r.path.replace(/^\/(v[12])\//, "/api/$1/"))));
  const documented = new Set(operations.map(name));
  expect([...registered].filter((k) => !documented.has(k))).toEqual([]);
  expect([...documented].filter((k) => !registered.has(k))).toEqual([]);
  // the paths with a dot, which the generator leaves out unless told not to
  for (const path of ["/scim/v2/.search", "/scim/v2/Users/.search", "/scim/v2/Groups/.search"]) expect(documented.has(`POST ${path}`)).toBe(true);
});

test("the three SCIM .search operations document the SearchRequest body and a ListResponse", () => {
  for (const path of ["/scim/v2/.search", "/scim/v2/Users/.search", "/scim/v2/Groups/.search"]) {
    const op = doc.paths[path].post;
    const body = op.requestBody.content["application/scim+json"].schema;
    expect(Object.keys(body.properties)).toEqual(expect.arrayContaining(["schemas", "filter", "startIndex", "count", "attributes"]));
    const page = op.responses["200"].content["application/scim+json"].schema;
    expect(page.required).toEqual(expect.arrayContaining(["schemas", "totalResults", "Resources"]));
  }
  const anyResource = doc.paths["/scim/v2/.search"].post.responses["200"].content["application/scim+json"].schema.properties.Resources.items;
  expect(anyResource.anyOf).toHaveLength(2); // a user or a group
});

describe("every operation", () => {
  test("a request body has content, a schema and an example that fits it", () => {
    const problems: string[] = [];
    for (const o of operations) {
      const body = o.op.requestBody;
      if (!body) continue;
      const media = Object.entries(body.content ?? {}) as [string, any][];
      if (media.length === 0) problems.push(`${name(o)}: request body without content`);
      for (const [type, m] of media) {
        if (!m.schema || Object.keys(m.schema).length === 0) problems.push(`${name(o)} ${type}: no schema`);
        else if (m.example === undefined) problems.push(`${name(o)} ${type}: no example`);
        else if (!ajv.validate(withComponents(m.schema), m.example)) problems.push(`${name(o)} ${type}: the example does not fit: ${ajv.errorsText()}`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("documents a 2xx answer, with a schema unless it is 204", () => {
    const problems: string[] = [];
    for (const o of operations) {
      const success = Object.entries(o.op.responses ?? {}).filter(([status]) => status.startsWith("2")) as [string, any][];
      if (success.length === 0) problems.push(`${name(o)}: no 2xx answer`);
      for (const [status, r] of success) {
        if (status === "204") {
          if (r.content) problems.push(`${name(o)} 204: has content`);
          continue;
        }
        const media = Object.values(r.content ?? {}) as any[];
        if (media.length === 0 || media.some((m) => !m.schema || Object.keys(m.schema).length === 0)) problems.push(`${name(o)} ${status}: no schema`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("documents every error status it can answer, with its protocol's error body", () => {
    const problems: string[] = [];
    for (const o of operations) {
      const responses = o.op.responses ?? {};
      for (const status of new Set(statusesItCanAnswer(o))) if (!responses[status]) problems.push(`${name(o)}: ${status} not documented`);
      for (const [status, r] of Object.entries(responses) as [string, any][]) {
        // the readiness probe's 503 is its own { status } body, for load balancers
        if (Number(status) < 400 || o.path === "/readyz") continue;
        const [type, expected] = areaOf(o.path) === "scim" ? ["application/scim+json", "ScimError"] : ["application/json", "ApiError"];
        if (r.content?.[type]?.schema?.$ref !== `#/components/schemas/${expected}`) problems.push(`${name(o)} ${status}: not the ${expected} body as ${type}`);
        if (!r.description || r.description.startsWith("Response for status")) problems.push(`${name(o)} ${status}: no description`);
      }
    }
    expect(problems).toEqual([]);
  });

  test("has a tag the document describes, a summary and a unique operationId", () => {
    const described = new Set((doc.tags as { name: string; description: string }[]).filter((t) => t.description).map((t) => t.name));
    const ids = operations.map((o) => o.op.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const problems = operations.filter((o) => !o.op.summary || !o.op.tags?.length || o.op.tags.some((t: string) => !described.has(t))).map(name);
    expect(problems).toEqual([]);
  });
});

test("SCIM list operations declare the RFC 7644 query parameters", () => {
  for (const path of ["/scim/v2/Users", "/scim/v2/Groups"]) {
    const names = doc.paths[path].get.parameters.map((p: { name: string }) => p.name);
    for (const p of ["filter", "startIndex", "count", "sortBy", "sortOrder", "attributes", "excludedAttributes"]) expect(names).toContain(p);
  }
  const count = doc.paths["/scim/v2/Users"].get.parameters.find((p: { name: string }) => p.name === "count");
  expect(count.schema).toMatchObject({ type: "integer", default: 100 });
});

test("types are OpenAPI 3.1: integer ids, enums, nullable as type arrays, defaults that match the behaviour", () => {
  const text = JSON.stringify(doc);
  expect(text).not.toContain('"nullable"');
  expect(text).not.toContain('"format":"numeric"');
  expect(text).not.toContain('"format":"integer"');
  const idParam = doc.paths["/api/v1/case/{code}/{id}"].get.parameters.find((p: { name: string }) => p.name === "id");
  expect(idParam.schema.type).toBe("integer");
  // Ids are integers everywhere (a `number` is a float to Java, Go and C# generators): every
  // numeric parameter or property named id, …Id or …_id, in paths, queries, bodies and answers.
  const floats: string[] = [];
  const isId = (key: string) => /^(id|value|.*_id|.*Id)$/.test(key);
  const typeOf = (s: any): string[] => (s ? [s.type ?? [], ...(s.anyOf ?? s.oneOf ?? []).flatMap(typeOf)].flat() : []);
  const walk = (x: any, where: string) => {
    if (!x || typeof x !== "object") return;
    for (const [k, v] of Object.entries(x.properties ?? {})) if (isId(k) && typeOf(v).includes("number")) floats.push(`${where}.${k}`);
    for (const [k, v] of Object.entries(x)) walk(v, `${where}/${k}`);
  };
  for (const o of operations) {
    for (const p of o.op.parameters ?? []) if (isId(p.name) && typeOf(p.schema).includes("number")) floats.push(`${name(o)} ${p.in} ${p.name}`);
    walk(o.op.requestBody, `${name(o)} body`);
    walk(o.op.responses, `${name(o)} answer`);
  }
  expect(floats).toEqual([]);
  const limit = doc.paths["/api/v1/case/{code}"].get.parameters.find((p: { name: string }) => p.name === "limit");
  expect(limit.schema.default).toBe(10);
  const subscription = doc.paths["/api/admin/webhooks/{id}"].get.responses["200"].content["application/json"].schema;
  expect(subscription.properties.id).toEqual({ type: "integer" });
  expect(subscription.properties.project.type).toEqual(["string", "null"]);
  const caseView = doc.paths["/api/v1/case/{code}/{id}"].get.responses["200"].content["application/json"].schema.properties.result;
  // Case enums answer Qase's numbers, each listed with its meaning.
  expect(caseView.properties.severity).toMatchObject({ type: "integer", enum: [0, 1, 2, 3, 4, 5, 6] });
  expect(caseView.properties.severity.description).toContain("2 = critical");
});

test("tags are described, with how to authenticate; the document links to the console", () => {
  const byName = Object.fromEntries((doc.tags as { name: string; description: string }[]).map((t) => [t.name, t.description]));
  expect(byName["SCIM Users"]).toContain("Bearer");
  expect(byName["Test cases"]).toContain("Token");
  expect(byName["Webhooks (admin)"]).toContain("GATEHOUSE_ADMIN_TOKEN");
  expect(doc.info.description).toContain("](/console)");
});

describe("normalizeSchema", () => {
  test("Elysia's coercing numbers become the number they decode to, keeping annotations", () => {
    expect(normalizeSchema({ description: "d", anyOf: [{ type: "string", format: "integer", default: 0 }, { type: "integer", minimum: 1 }] })).toEqual({ type: "integer", minimum: 1, description: "d" });
  });
  test("nullables become type arrays; 3.0's nullable goes", () => {
    expect(normalizeSchema({ nullable: true, anyOf: [{ type: "string", format: "date-time" }, { type: "null" }] })).toEqual({ type: ["string", "null"], format: "date-time" });
    expect(normalizeSchema({ anyOf: [{ type: "object", properties: {} }, { type: "null" }] })).toEqual({ type: ["object", "null"], properties: {} });
  });
  test("unions of literals become enums (with null when nullable)", () => {
    expect(normalizeSchema({ anyOf: [{ const: "a", type: "string" }, { const: "b", type: "string" }] })).toEqual({ type: "string", enum: ["a", "b"] });
    expect(normalizeSchema({ anyOf: [{ const: 1, type: "number" }, { const: 2, type: "number" }, { type: "null" }] })).toEqual({ type: ["integer", "null"], enum: [1, 2, null] });
  });
  test("real unions stay unions; values are not touched", () => {
    const union: Json = { anyOf: [{ type: "boolean" }, { type: "string", pattern: "^x$" }] };
    expect(normalizeSchema(union)).toEqual(union);
    expect(normalizeSchema({ type: "object", examples: [{ nullable: true }], default: { anyOf: [] } })).toEqual({ type: "object", examples: [{ nullable: true }], default: { anyOf: [] } });
  });
});
