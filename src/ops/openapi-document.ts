/**
 * Turns what @elysiajs/openapi generates from the routes into the document clients read. Pure:
 * plain JSON in, plain JSON out (src/ops/openapi.ts feeds it the generated paths and each route's
 * body schema). What it corrects, each a generator habit that would make the document lie:
 *
 * - request bodies: the generator emits `content: {}` for routes whose hooks carry a `parse`
 *   list (Elysia gives every route after a plugin with a parse hook an empty one), and lists
 *   form encodings the API does not speak. Every body is rebuilt from the route's own schema,
 *   as JSON (SCIM: application/scim+json and application/json), with its first example — unless
 *   the route declares its own (`detail.requestBody`: a body it reads itself, e.g. multipart);
 * - Elysia's coercing numbers (`t.Integer`, `t.Numeric`: a string-or-number union so "7" is
 *   accepted in a path or query) become the number they decode to — what a client should send;
 * - TypeBox nullables (`anyOf [X, null]`, plus OpenAPI 3.0's `nullable`) become 3.1 type arrays;
 *   unions of literals become `enum`s;
 * - `void` answers (204) lose the non-media-type `content` the generator gives them;
 * - the shared error bodies are referenced from `components.schemas` and each error status gets
 *   a description of what it means.
 */

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };
type Operation = JsonObject & { requestBody?: JsonObject; responses?: JsonObject; tags?: string[] };
export type Paths = Record<string, Record<string, Operation>>;

const isObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);

/** Keys that only describe a schema; they move to the collapsed result. */
const ANNOTATIONS = ["description", "title", "examples", "default", "deprecated", "readOnly", "writeOnly"];

function withAnnotations(target: JsonObject, from: JsonObject): JsonObject {
  const out: JsonObject = { ...target };
  for (const k of ANNOTATIONS) if (from[k] !== undefined && out[k] === undefined) out[k] = from[k]!;
  return out;
}

/** `{type: "string", format: "integer"|"numeric"}`: the string half of Elysia's coercing numbers. */
const isCoercionString = (s: Json) => isObject(s) && s.type === "string" && (s.format === "integer" || s.format === "numeric");
const isNull = (s: Json) => isObject(s) && (s.type === "null" || (s.const === null && Object.keys(s).length <= 2));
const isLiteral = (s: Json) => isObject(s) && s.const !== undefined && s.const !== null && (typeof s.const === "string" || typeof s.const === "number" || typeof s.const === "boolean");

/** One schema, recursively normalised (see the file comment). */
export function normalizeSchema(input: Json): Json {
  if (Array.isArray(input)) return input.map(normalizeSchema);
  if (!isObject(input)) return input;
  let s: JsonObject = {};
  for (const [k, v] of Object.entries(input)) {
    if (k === "nullable") continue; // OpenAPI 3.0; null is a type in 3.1
    // `examples`, `default`, `const`, `enum` hold values, not schemas
    s[k] = k === "examples" || k === "default" || k === "const" || k === "enum" || k === "example" ? v : normalizeSchema(v);
  }
  for (const key of ["anyOf", "oneOf"] as const) {
    const branches = s[key];
    if (!Array.isArray(branches)) continue;
    // a branch that accepts anything (t.Any) makes the union accept anything
    if (branches.some((b) => isObject(b) && Object.keys(b).length === 0)) {
      const { [key]: _, ...outer } = s;
      return withAnnotations({}, outer);
    }
    // Elysia's coercing number: [string format integer|numeric, number|integer] → the number
    let rest = branches.filter((b) => !isCoercionString(b));
    if (rest.length === 1 && rest.length < branches.length) {
      const { [key]: _, ...outer } = s;
      s = withAnnotations(rest[0] as JsonObject, outer);
      return normalizeSchema(s);
    }
    const hasNull = rest.some(isNull);
    rest = rest.filter((b) => !isNull(b));
    const { [key]: _, ...outer } = s;
    if (rest.length > 0 && rest.every(isLiteral) && new Set(rest.map((b) => typeof (b as JsonObject).const)).size === 1) {
      const values = rest.map((b) => (b as JsonObject).const!);
      const type = typeof values[0] === "number" ? (values.every((v) => Number.isInteger(v)) ? "integer" : "number") : (typeof values[0] as string);
      return withAnnotations({ ...outer, type: hasNull ? [type, "null"] : type, enum: hasNull ? [...values, null] : values }, {});
    }
    if (hasNull && rest.length === 1) {
      const only = rest[0] as JsonObject;
      if (typeof only.type === "string" && only.$ref === undefined) {
        const merged: JsonObject = withAnnotations({ ...only, type: [only.type, "null"] }, outer);
        if (Array.isArray(only.enum)) merged.enum = [...only.enum, null];
        for (const [k, v] of Object.entries(outer)) if (merged[k] === undefined) merged[k] = v;
        return merged;
      }
    }
  }
  return s;
}

/**
 * What the generator loses of a route: its body schema, the request body it documents itself (a
 * body that is not JSON) and the query parameters it documents itself.
 */
export type RouteDoc = { body?: { schema: Json; required: boolean }; requestBody?: Json; parameters?: Json[] };

/** Media types a body is accepted in: SCIM takes both (RFC 7644 §3.1), the JSON APIs JSON. */
export const bodyMediaTypes = (path: string): string[] => (path.startsWith("/scim/") ? ["application/scim+json", "application/json"] : ["application/json"]);

/** The first example a schema carries (`examples[0]`), for the media type's `example`. */
function firstExample(schema: Json): Json | undefined {
  return isObject(schema) && Array.isArray(schema.examples) && schema.examples.length > 0 ? schema.examples[0] : undefined;
}

export type ErrorSchemas = {
  /** components.schemas name → schema */
  components: Record<string, Json>;
  /** which component an error answer on this path uses */
  errorComponentFor: (path: string) => string;
  describe: (status: number) => string | undefined;
};

const sameJson = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

/**
 * The generated paths, corrected. `routes` maps "METHOD /path/{param}" to what the generator
 * loses of a route (as JSON): its body schema (an operation whose route has none keeps no request
 * body) and the query parameters of routes that read their query themselves (`detail.parameters`,
 * which the generator replaces by the path's parameters).
 */
export function finishPaths(paths: Paths, routes: ReadonlyMap<string, RouteDoc>, errors: ErrorSchemas): Paths {
  const normalizedComponents = Object.fromEntries(Object.entries(errors.components).map(([k, v]) => [k, normalizeSchema(v)]));
  const out: Paths = {};
  for (const [path, item] of Object.entries(paths)) {
    const fixed: Record<string, Operation> = {};
    for (const [method, raw] of Object.entries(item)) {
      const op = normalizeSchema(raw as Json) as Operation;
      const route = routes.get(`${method.toUpperCase()} ${path}`);
      const body = route?.body;
      if (route?.parameters) {
        const have = Array.isArray(op.parameters) ? (op.parameters as JsonObject[]) : [];
        const key = (p: JsonObject) => `${p.in} ${p.name}`;
        const extra = (normalizeSchema(route.parameters) as JsonObject[]).filter((p) => !have.some((h) => key(h) === key(p)));
        op.parameters = [...have, ...extra];
      }
      delete op.requestBody;
      if (route?.requestBody) op.requestBody = normalizeSchema(route.requestBody) as JsonObject;
      else if (body) {
        const schema = normalizeSchema(body.schema);
        const example = firstExample(schema);
        const media: JsonObject = {};
        for (const type of bodyMediaTypes(path)) media[type] = example === undefined ? { schema } : { schema, example };
        op.requestBody = { required: body.required, content: media };
      }
      if (isObject(op.responses)) op.responses = finishResponses(path, op.responses, errors, normalizedComponents);
      fixed[method] = op;
    }
    out[path] = fixed;
  }
  return out;
}

function finishResponses(path: string, responses: JsonObject, errors: ErrorSchemas, components: Record<string, Json>): JsonObject {
  const out: JsonObject = {};
  for (const status of Object.keys(responses).sort()) {
    const response = { ...(responses[status] as JsonObject) };
    const content = response.content;
    // void answers: the generator puts the schema's own keys where media types belong
    if (isObject(content) && Object.keys(content).some((k) => !k.includes("/"))) delete response.content;
    const code = Number(status);
    if (code >= 400) {
      const name = errors.errorComponentFor(path);
      const meaning = errors.describe(code);
      if (meaning && (typeof response.description !== "string" || response.description.startsWith("Response for status") || response.description === (components[name] as JsonObject)?.description))
        response.description = meaning;
      if (isObject(response.content))
        for (const media of Object.values(response.content))
          if (isObject(media) && sameJson(media.schema!, components[name]!)) media.schema = { $ref: `#/components/schemas/${name}` };
    } else if (typeof response.description !== "string" || response.description.startsWith("Response for status")) {
      response.description = code === 204 ? "No content" : code === 201 ? "Created" : code === 202 ? "Accepted" : "OK";
    }
    out[status] = response;
  }
  return out;
}
