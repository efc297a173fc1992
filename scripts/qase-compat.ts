/**
 * The Qase compatibility table (docs/qase-compatibility.md): every operation the official
 * clients `qase-api-client` (v1) and `qase-api-v2-client` (v2) declare — both generated from
 * the OpenAPI specs Qase publishes (qase-tms/specs) — checked against the routes Gatehouse
 * serves. Whether a route exists is computed (the app's own OpenAPI document); what differs for
 * an operation that is served, or why one is not, is the note below. test/qase/compat-table.test.ts
 * fails when the doc's table is not this script's output, when a client operation is missing
 * without a reason, or when a note names an operation that no longer needs it.
 *
 *   bun scripts/qase-compat.ts        (rewrites the table in the doc)
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export type ClientOperation = { client: "v1" | "v2"; api: string; operation: string; method: string; path: string };

const ROOT = join(import.meta.dir, "..");
export const COMPAT_DOC = join(ROOT, "docs", "qase-compatibility.md");
const CLIENTS = [
  { client: "v1", pkg: "qase-api-client", base: "/api/v1" },
  { client: "v2", pkg: "qase-api-v2-client", base: "/api/v2" },
] as const;

/** The operations of both clients, read from their generated request builders. */
export function clientOperations(): ClientOperation[] {
  const out: ClientOperation[] = [];
  for (const { client, pkg } of CLIENTS) {
    const dir = join(ROOT, "node_modules", pkg, "dist", "api");
    for (const file of readdirSync(dir).filter((f) => f.endsWith("-api.js")).sort()) {
      const api = file.replace(/-api\.js$/, "").split("-").map((w) => w[0]!.toUpperCase() + w.slice(1)).join("") + "Api";
      const text = readFileSync(join(dir, file), "utf8");
      for (const m of text.matchAll(/(\w+): \([^)]*\) => __awaiter[\s\S]*?const localVarPath = `([^`]+)`[\s\S]*?method: '(\w+)'/g))
        out.push({ client, api, operation: m[1]!, path: m[2]!, method: m[3]! });
    }
  }
  return out;
}

export function versionOf(pkg: "qase-api-client" | "qase-api-v2-client"): string {
  return (JSON.parse(readFileSync(join(ROOT, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
}

/** `GET /case/{}/{}`: a route with its parameters unnamed, so the client's and ours compare. */
export const routeKey = (method: string, path: string) => `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, "{}")}`;

/** The full path Gatehouse serves a client operation at. */
export const servedPath = (op: ClientOperation) => `${CLIENTS.find((c) => c.client === op.client)!.base}${op.path}`;

/** What differs for an operation Gatehouse serves ("partly"), by `client api.operation`. */
export const PARTLY = new Map<string, string>([
  ["v1 SearchApi.search", "a QQL subset: no aggregation (`SELECT`, `GROUP BY`), no `requirement` entity (docs/tms.md, Search)"],
  ["v1 ResultsApi.createResult", "custom result statuses are a 400"],
  ["v1 ResultsApi.createResultBulk", "custom result statuses are a 400"],
  ["v2 ResultsApi.createResultV2", "custom result statuses are a 400"],
  ["v2 ResultsApi.createResultsV2", "custom result statuses are a 400"],
]);

/** Why an operation is not served (its route answers the JSON 404 of an unknown route). */
const REVIEWS = "reviews are not implemented (docs/tms.md, Not implemented)";
const ACCESS = "who reaches a project is its workspace's membership, from the IdP (SCIM groups → workspaces); no per-project grants";
export const NOT_SERVED = new Map<string, string>([
  ["v1 ProjectsApi.grantAccessToProject", ACCESS],
  ["v1 ProjectsApi.revokeAccessToProject", ACCESS],
  ["v1 ReviewsApi.bulkCreateReviews", REVIEWS],
  ["v1 ReviewsApi.createReview", REVIEWS],
  ["v1 ReviewsApi.deleteReview", REVIEWS],
  ["v1 ReviewsApi.getReview", REVIEWS],
  ["v1 ReviewsApi.getReviews", REVIEWS],
  ["v1 ReviewsApi.updateReview", REVIEWS],
]);

export type Row = ClientOperation & { status: "supported" | "partly" | "not"; note: string };

/** Each client operation with its status; `served` holds the route keys of the app's OpenAPI document. */
export function compatRows(ops: ClientOperation[], served: ReadonlySet<string>): Row[] {
  return ops.map((op) => {
    const key = `${op.client} ${op.api}.${op.operation}`;
    if (!served.has(routeKey(op.method, servedPath(op)))) return { ...op, status: "not", note: NOT_SERVED.get(key) ?? "" };
    const note = PARTLY.get(key);
    return { ...op, status: note ? "partly" : "supported", note: note ?? "" };
  });
}

/** The doc's generated section: the clients' versions, then the table of the rows. */
export function compatTable(rows: Row[]): string {
  const lines = [`Checked against qase-api-client ${versionOf("qase-api-client")} and qase-api-v2-client ${versionOf("qase-api-v2-client")}.`, "", "| Client | Operation | Route | Gatehouse | What differs / why not |", "|---|---|---|---|---|"];
  for (const r of rows) lines.push(`| ${r.client} | \`${r.api}.${r.operation}\` | \`${r.method} ${r.path}\` | ${r.status} | ${r.note.replaceAll("|", "\\|")} |`);
  const count = (s: Row["status"]) => rows.filter((r) => r.status === s).length;
  lines.push("", `${rows.length} operations: ${count("supported")} supported, ${count("partly")} partly, ${count("not")} not.`);
  return lines.join("\n");
}

export const BEGIN = "<!-- compat-table:begin (generated by scripts/qase-compat.ts; test/qase/compat-table.test.ts checks it) -->";
export const END = "<!-- compat-table:end -->";

/** The route keys the app serves, from its OpenAPI document. */
export async function servedRoutes(): Promise<Set<string>> {
  const { openApiDocument } = await import("./openapi-document");
  const doc = (await openApiDocument()) as { paths: Record<string, Record<string, unknown>> };
  const keys = new Set<string>();
  for (const [path, methods] of Object.entries(doc.paths)) for (const m of Object.keys(methods)) keys.add(routeKey(m, path));
  return keys;
}

/** The doc with its table section replaced by `table`. */
export function withTable(doc: string, table: string): string {
  const at = doc.indexOf(BEGIN), end = doc.indexOf(END);
  if (at < 0 || end < at) throw new Error(`${COMPAT_DOC} has no ${BEGIN} … ${END} section`);
  return doc.slice(0, at + BEGIN.length) + "\n" + table + "\n" + doc.slice(end);
}

if (import.meta.main) {
  const rows = compatRows(clientOperations(), await servedRoutes());
  await Bun.write(COMPAT_DOC, withTable(readFileSync(COMPAT_DOC, "utf8"), compatTable(rows)));
  console.log(`wrote ${COMPAT_DOC}: ${compatTable(rows).split("\n").at(-1)}`);
}
