import Ajv2020, { type ValidateFunction } from "ajv/dist/2020";
import addFormats from "ajv-formats";

/**
 * The contract check: every answer the app gives through `app.handle` during the test suite is
 * held against the OpenAPI document the same app serves at /openapi/json. For an operation of the
 * document, the status must be documented, the media type must be one the document lists (204: no
 * body), and the body must validate against the documented schema. An answer on a path the
 * document does not list (unknown route, 405) must still be its protocol's error body. A
 * mismatch throws out of `app.handle`, failing the test that made the request.
 * (createTestApp in test/helpers.ts installs it on every test app.)
 */

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, unknown> } };
type Matcher = { template: string; pattern: RegExp; literals: number; methods: Record<string, any> };

export type ContractChecker = (request: Request, response: Response) => Promise<void>;

/** Builds the checker for a document; schemas are compiled on first use. */
export function contractChecker(doc: Doc): ContractChecker {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  const matchers: Matcher[] = Object.entries(doc.paths).map(([template, methods]) => ({
    template,
    pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, "\\$&").replace(/\{[^/]+\}/g, "[^/]+")}/?$`),
    literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
    methods,
  }));
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (key: string, schema: unknown) => {
    let v = compiled.get(key);
    if (!v) {
      // components travel along so "#/components/schemas/…" references resolve
      v = ajv.compile({ ...(schema as object), components: doc.components });
      compiled.set(key, v);
    }
    return v;
  };
  const errorSchemaFor = (path: string) => (path.startsWith("/scim/") ? "ScimError" : "ApiError");

  return async (request, response) => {
    const url = new URL(request.url);
    const path = url.pathname;
    const method = request.method.toLowerCase();
    const where = `${request.method} ${path} → ${response.status}`;
    const candidates = matchers.filter((m) => m.methods[method] && m.pattern.test(path)).sort((a, b) => b.literals - a.literals);
    // 405: the path exists, the method is not one of its operations (the router's catch-all answered)
    const op = response.status === 405 ? undefined : candidates[0]?.methods[method];
    const text = method === "head" ? "" : await response.clone().text();
    const mediaType = (response.headers.get("content-type") ?? "").split(";")[0]!.trim().toLowerCase();

    if (!op) {
      // Not an operation of the document: API errors must still be the protocol's error body.
      if (response.status >= 400 && (path.startsWith("/scim/") || path.startsWith("/api/"))) {
        const name = errorSchemaFor(path);
        check(where, validatorFor(`#${name}`, { $ref: `#/components/schemas/${name}` }), parse(where, text));
      }
      return;
    }
    const template = candidates[0]!.template;
    const documented = op.responses?.[String(response.status)];
    if (!documented) {
      // 5xx is never documented per route; it must still be the protocol's error body
      if (response.status >= 500) {
        const name = errorSchemaFor(path);
        check(where, validatorFor(`#${name}`, { $ref: `#/components/schemas/${name}` }), parse(where, text));
        return;
      }
      throw new Error(`contract: ${where} (${request.method} ${template}) answers a status its OpenAPI operation does not document (documented: ${Object.keys(op.responses ?? {}).join(", ")}). Body: ${text.slice(0, 300)}`);
    }
    if (!documented.content) {
      if (text !== "") throw new Error(`contract: ${where} is documented without a body but sent one: ${text.slice(0, 300)}`);
      return;
    }
    const media = documented.content[mediaType];
    if (!media) throw new Error(`contract: ${where} sent content-type ${JSON.stringify(mediaType)}; documented: ${Object.keys(documented.content).join(", ")}`);
    // text, HTML and file bytes: the documented media type is the contract; only JSON has a body schema to hold it to
    if (!media.schema || !isJsonMediaType(mediaType)) return;
    check(where, validatorFor(`${method} ${template} ${response.status} ${mediaType}`, media.schema), parse(where, text));
  };
}

const isJsonMediaType = (type: string) => type === "application/json" || type.endsWith("+json");

function parse(where: string, text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new Error(`contract: ${where} sent a body that is not JSON: ${text.slice(0, 300)}`);
  }
}

function check(where: string, validate: ValidateFunction, body: unknown) {
  if (validate(body)) return;
  const errors = (validate.errors ?? []).slice(0, 5).map((e) => `${e.instancePath || "/"} ${e.message}${e.params ? ` ${JSON.stringify(e.params)}` : ""}`);
  throw new Error(`contract: ${where}: the body does not match the documented schema:\n  ${errors.join("\n  ")}\nBody: ${JSON.stringify(body).slice(0, 500)}`);
}
