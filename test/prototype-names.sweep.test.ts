import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createTestApp } from "./helpers";
import { createScimToken } from "../src/scim/tokens/service";

/**
 * The guard for "a name taken from a request never indexes a plain object": every documented
 * operation of the OpenAPI document the app serves is called with the names Object.prototype
 * carries — as every path and query parameter, as every field of its documented body (one at a
 * time, over the documented example), as extra JSON keys at every level, and with a `__proto__`
 * key that would become the body's prototype if the body were copied with plain assignment. The
 * answer must be a 4xx or a 2xx that holds to the contract (createTestApp checks it), never a
 * 5xx. Afterwards every GET route must still answer below 500: nothing stored on the way in may
 * break a later read. A new route or body field is covered without editing this file.
 */
/** Each test sweeps hundreds of routes × names × places: minutes on a loaded machine. */
const SWEEP_MS = 300_000;
const NAMES = ["constructor", "__proto__", "prototype", "toString", "hasOwnProperty"] as const;

type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; anyOf?: Schema[]; examples?: unknown[] };
type Operation = { parameters?: { in: string; name: string }[]; requestBody?: { content: Record<string, { schema: Schema; example?: unknown }> } };

const t = createTestApp({ webhookAllowPrivateTargets: true });
let apiToken = "";
let scimToken = "";
let doc: { paths: Record<string, Record<string, Operation>> };
const failures: string[] = [];
let calls = 0;

afterAll(() => t.close());
beforeEach(() => {
  failures.length = 0;
});

const authFor = (path: string): Record<string, string> =>
  path.startsWith("/scim/") ? { authorization: `Bearer ${scimToken}` } : path.startsWith("/api/admin/") ? { authorization: `Bearer ${t.ctx.config.adminToken}` } : { token: apiToken };

/** Real ids the fixtures below create, so a poisoned body reaches the handler behind the 404. */
const realParams: Record<string, string> = { code: "GRD", runId: "1", id: "1", hash: "x" };

async function call(method: string, template: string, params: Record<string, string>, query: string, rawBody: string | undefined, what: string): Promise<number> {
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(Object.hasOwn(params, name) ? params[name]! : "1"));
  const headers: Record<string, string> = { ...authFor(template) };
  if (rawBody !== undefined) headers["content-type"] = template.startsWith("/scim/") ? "application/scim+json" : "application/json";
  calls++;
  let status: number;
  try {
    const r = await t.request(method, path + query, { rawBody, headers });
    status = r.status;
    await r.text();
  } catch (e) {
    failures.push(`${method} ${path}${query} ${what}: ${String(e).slice(0, 300)}`);
    return 0;
  }
  if (status >= 500) failures.push(`${method} ${path}${query} ${what}: ${status}`);
  return status;
}

/** Paths of the body's schema where a value can be put: top-level fields, nested fields, array items. */
function leafPaths(schema: Schema | undefined, at: (string | number)[] = [], depth = 0): (string | number)[][] {
  if (!schema || depth > 4) return [];
  const out: (string | number)[][] = at.length ? [at] : [];
  const variants = schema.anyOf ?? [schema];
  for (const s of variants) {
    for (const [name, sub] of Object.entries(s.properties ?? {})) out.push(...leafPaths(sub, [...at, name], depth + 1));
    if (s.items) out.push(...leafPaths(s.items, [...at, 0], depth + 1));
  }
  return out;
}

/** The example with `value` put at `path` (containers created on the way). */
function withValue(example: unknown, path: (string | number)[], value: unknown): unknown {
  const root = structuredClone(example ?? {}) as any;
  let node = root;
  for (let i = 0; i < path.length - 1; i++) {
    const key = path[i]!;
    const nextIsIndex = typeof path[i + 1] === "number";
    if (node[key] === null || typeof node[key] !== "object") node[key] = nextIsIndex ? [] : {};
    node = node[key];
  }
  node[path[path.length - 1]!] = value;
  return root;
}

/**
 * Names that must be unique (userName, displayName) made unique per call, so a poisoned field of a
 * SCIM body is judged by the handler and not stopped earlier as a duplicate of the last call.
 */
function unique<T>(body: T, poisoned: string): T {
  const walk = (v: unknown): void => {
    if (!v || typeof v !== "object") return;
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === "string" && !(NAMES as readonly string[]).includes(x) && x !== poisoned) {
        if (k === "userName") (v as Record<string, unknown>)[k] = `u${calls}-${x}`;
        else if (k === "displayName") (v as Record<string, unknown>)[k] = `${x} ${calls}`;
      } else walk(x);
    }
  };
  walk(body);
  return body;
}

/** The example's objects (the root and every nested object), as paths. */
function objectPaths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (!value || typeof value !== "object") return [];
  const out: (string | number)[][] = Array.isArray(value) ? [] : [at];
  for (const [k, v] of Object.entries(value)) out.push(...objectPaths(v, [...at, Array.isArray(value) ? Number(k) : k]));
  return out;
}

/** JSON text of `example` with an extra member `"name": memberJson` in the object at `path` (raw text: `__proto__` must stay a key). */
function withKey(example: unknown, path: (string | number)[], name: string, memberJson: string): string {
  const marker = "\u0001marker\u0001";
  const marked = path.length === 0 ? { [marker]: 0, ...(example as object) } : withValue(example, [...path, marker], 0);
  return JSON.stringify(marked).replace(`"${marker}":0`, `${JSON.stringify(name)}:${memberJson}${path.length === 0 && Object.keys(example as object).length === 0 ? "" : ","}`).replace(/,\}/g, "}");
}

function bodyOf(op: Operation): { schema: Schema; example: unknown } | null {
  const content = op.requestBody?.content;
  if (!content) return null;
  const json = content["application/json"] ?? content["application/scim+json"];
  if (!json) return null; // multipart (attachments) is covered by its own tests
  return { schema: json.schema, example: json.example ?? json.schema.examples?.[0] ?? {} };
}

beforeAll(async () => {
  doc = (await (await t.request("GET", "/openapi/json")).json()) as typeof doc;
  apiToken = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "guard" })).json()) as { token: string }).token;
  scimToken = (await createScimToken(t.ctx.db, "guard")).token;
  // Fixtures: one of each entity, made from the documented examples of the creating routes.
  const project = await t.request("POST", "/api/v1/project", { body: { title: "Guard", code: "GRD" }, headers: { token: apiToken } });
  expect(project.status).toBe(200);
  expect((await t.request("POST", "/api/v1/case/GRD", { body: { title: "Guard case" }, headers: { token: apiToken } })).status).toBe(200);
  // twice: an example may name an entity another example creates (a case's suite)
  for (const round of [1, 2])
    for (const [template, ops] of Object.entries(doc.paths)) {
      const op = ops.post;
      const body = op && bodyOf(op);
      if (!body || template.includes("/admin/") || /\{(id|hash|runId)\}/.test(template) || template.endsWith("/bulk")) continue;
      await call("POST", template, realParams, "", JSON.stringify(body.example), `fixture ${round}`);
    }
  await t.request("POST", "/api/v1/run/GRD", { body: { title: "guard run", cases: [1] }, headers: { token: apiToken } });
});

/** Every operation but the SCIM on/off switch (its example turns SCIM off for the rest of the sweep; its body is one boolean). */
const operations = () =>
  Object.entries(doc.paths).filter(([template]) => template !== "/api/admin/scim")
    .flatMap(([template, ops]) => Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase(), template, op })));

test("every documented body, with each Object.prototype name as each field's value, answers below 500", async () => {
  for (const { method, template, op } of operations()) {
    const body = bodyOf(op);
    if (!body || method === "DELETE") continue;
    for (const path of leafPaths(body.schema))
      for (const name of NAMES) await call(method, template, realParams, "", JSON.stringify(unique(withValue(body.example, path, name), name)), `${path.join(".")} = ${name}`);
  }
  expect(failures).toEqual([]);
}, SWEEP_MS);

test("every documented body, with each Object.prototype name as an extra key at every level, answers below 500", async () => {
  for (const { method, template, op } of operations()) {
    const body = bodyOf(op);
    if (!body || method === "DELETE") continue;
    for (const at of objectPaths(body.example))
      for (const name of NAMES)
        for (const member of ['"x"', "{}", '{"active":false,"userName":"proto@example.com","status":"constructor"}'])
          await call(method, template, realParams, "", withKey(unique(structuredClone(body.example), ""), at, name, member), `key ${[...at, name].join(".")} = ${member}`);
  }
  expect(failures).toEqual([]);
}, SWEEP_MS);

test("every path and query parameter set to each Object.prototype name answers below 500", async () => {
  for (const { method, template, op } of operations()) {
    if (method === "DELETE") continue;
    const body = bodyOf(op);
    const rawBody = body ? JSON.stringify(body.example) : undefined;
    for (const p of op.parameters ?? [])
      for (const name of NAMES) {
        if (p.in === "path") await call(method, template, { ...realParams, [p.name]: name }, "", rawBody, `path ${p.name}`);
        if (p.in === "query") await call(method, template, realParams, `?${encodeURIComponent(p.name)}=${encodeURIComponent(name)}`, rawBody, `query ${p.name}`);
      }
  }
  expect(failures).toEqual([]);
}, SWEEP_MS);

test("QQL and SCIM filters, sort keys and attribute lists naming Object.prototype members answer 400", async () => {
  for (const name of NAMES) {
    const queries = [
      `entity = "${name}"`, `entity = "case" and ${name} = 1`, `entity = "case" order by ${name}`, `entity = "case" and severity = "${name}"`,
      `entity = "case" and priority in ["${name}"]`, `entity = "run" and status = "${name}"`, `entity = "result" and status = "${name}"`, `entity = "defect" and ${name} is empty`,
    ];
    for (const q of queries) expect(await call("GET", "/api/v1/search", {}, `?query=${encodeURIComponent(q)}`, undefined, `QQL ${q}`)).toBe(400);
    for (const resource of ["Users", "Groups"]) {
      for (const filter of [`${name} pr`, `${name} eq "x"`, `name.${name} pr`, `emails[${name} eq "x"]`, `emails.${name} eq "x"`, `urn:ietf:params:scim:schemas:core:2.0:User:${name} pr`])
        expect(await call("GET", `/scim/v2/${resource}`, {}, `?filter=${encodeURIComponent(filter)}`, undefined, `filter ${filter}`)).toBe(400);
      for (const sortBy of [name, `name.${name}`, `emails.${name}`]) {
        const status = await call("GET", `/scim/v2/${resource}`, {}, `?sortBy=${encodeURIComponent(sortBy)}`, undefined, `sortBy ${sortBy}`);
        expect(status === 400 || status === 200).toBe(true);
      }
      for (const list of ["attributes", "excludedAttributes"]) // an unknown attribute is ignored; `__proto__` is no ATTRNAME (RFC 7644: ALPHA first)
        expect(await call("GET", `/scim/v2/${resource}`, {}, `?${list}=${name}`, undefined, list)).toBe(name === "__proto__" ? 400 : 200);
    }
  }
  expect(failures).toEqual([]);
}, SWEEP_MS);

test("afterwards, nothing stored on the way in breaks a read: every GET answers below 500", async () => {
  for (const { method, template } of operations()) if (method === "GET") await call("GET", template, realParams, "", undefined, "read-back");
  for (const entity of ["case", "run", "result", "defect", "plan"]) await call("GET", "/api/v1/search", {}, `?query=${encodeURIComponent(`entity = "${entity}"`)}`, undefined, "read-back");
  expect(failures).toEqual([]);
  for (const key of ["active", "userName", "status", "x"]) expect(key in {}).toBe(false); // nothing reached Object.prototype
  expect(calls).toBeGreaterThan(1000);
}, SWEEP_MS);

// The findings of issue #23 §3, each as the rule now answers it.
const api = async (method: string, path: string, body?: unknown) => {
  const r = await t.request(method, `/api/v1${path}`, { body, headers: { token: apiToken } });
  return { status: r.status, body: (await r.json()) as any };
};

test("a result step status naming an Object.prototype member is refused, so the project's results stay readable", async () => {
  const created = await api("POST", "/run/GRD", { title: "steps", cases: [1] });
  if (created.status !== 200) throw new Error(JSON.stringify(created));
  const run = created.body.result.id;
  for (const name of NAMES) {
    const r = await api("POST", `/result/GRD/${run}`, { case_id: 1, status: "passed", steps: [{ position: 1, status: name }] });
    expect(r.status).toBe(400);
    expect(r.body.errorMessage).toContain("steps.0.status");
  }
  const v2 = await t.request("POST", `/api/v2/GRD/run/${run}/results`, {
    body: { results: [{ title: "good", execution: { status: "passed" } }, { title: "bad", execution: { status: "constructor" } }, { title: "bad step", execution: { status: "passed" }, steps: [{ execution: { status: "__proto__" }, data: { action: "a" } }] }] },
    headers: { token: apiToken },
  });
  expect(v2.status).toBe(200);
  const batch = ((await v2.json()) as any).result;
  expect(batch.stored).toBe(1);
  expect(batch.errors.map((e: { index: number }) => e.index)).toEqual([1, 2]);
  expect((await api("GET", `/result/GRD?run=${run}`)).status).toBe(200);
  expect((await api("GET", `/search?query=${encodeURIComponent('entity = "result"')}`)).status).toBe(200);
});

test("a selectbox option titled like an Object.prototype member keeps its title through replace_values", async () => {
  const field = (await api("POST", "/custom_field", { title: "Proto", entity: "case", type: "selectbox", value: NAMES.map((title) => ({ title })) })).body.result.id;
  expect((await api("PATCH", `/custom_field/${field}`, { replace_values: { unrelated: "x" } })).status).toBe(200);
  expect(JSON.parse((await api("GET", `/custom_field/${field}`)).body.result.value).map((o: { title: string }) => o.title)).toEqual([...NAMES]);
  // the body's validation drops a `__proto__` key (as every body key of that name): that option keeps its title
  expect((await api("PATCH", `/custom_field/${field}`, { replace_values: JSON.parse('{"constructor":"renamed","__proto__":"dropped","toString":"to string"}') })).status).toBe(200);
  expect(JSON.parse((await api("GET", `/custom_field/${field}`)).body.result.value).map((o: { title: string }) => o.title)).toEqual(["renamed", "__proto__", "prototype", "to string", "hasOwnProperty"]);
});

test("a `__proto__` member of a SCIM body is no attribute: it neither deactivates the user nor stands in for a missing userName", async () => {
  const scim = (method: string, path: string, raw: string) =>
    t.request(method, `/scim/v2${path}`, { rawBody: raw, headers: { authorization: `Bearer ${scimToken}`, "content-type": "application/scim+json" } });
  const created = await scim("POST", "/Users", '{"__proto__":{"active":false,"userType":"billing"},"userName":"protoactive@example.com","name":{"givenName":"P","familyName":"A"}}');
  expect(created.status).toBe(201);
  expect(await created.json()).toMatchObject({ active: true, userType: "regular" });
  const missing = await scim("POST", "/Users", '{"__proto__":{"userName":"stand-in@example.com"},"name":{"givenName":"P","familyName":"A"}}');
  expect(missing.status).toBe(400);
  const group = await scim("POST", "/Groups", '{"__proto__":{"displayName":"Stand-in"}}');
  expect(group.status).toBe(400);
});
