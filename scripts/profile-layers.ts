/**
 * Where a SCIM request's CPU goes, layer by layer, from a Chrome-format CPU profile of the
 * Gatehouse process (`bun scripts/bench-read-path.ts --profile DIR --only lookup` writes one).
 * Each sample is charged to the layer of the innermost frame a rule below recognises (native
 * frames such as a statement's `get` or `JSON.parse` go to the layer that called them).
 *
 *   bun scripts/profile-layers.ts DIR/CPU….cpuprofile[=µs per request] [more profiles…]
 *
 * Prints one markdown table, a column per profile: each layer's share of the samples spent
 * handling requests (and, given the measured server CPU per request, its microseconds).
 */
import { readFileSync } from "node:fs";

type Frame = { functionName: string; url: string; lineNumber: number };
type Node = { id: number; callFrame: Frame; children?: number[] };
type Profile = { nodes: Node[]; samples: number[]; timeDeltas: number[] };

/** Layers in the order the table lists them; the first rule that matches a frame wins. */
const RULES: [layer: string, match: (f: Frame) => boolean][] = [
  ["token verification (hash, cache, lookup)", (f) => /src\/scim\/tokens\/|src\/lib\/tokens\.ts|src\/db\/last-used/.test(f.url)],
  ["rate limiting", (f) => /src\/scim\/rate-limit\.ts/.test(f.url)],
  ["scope (workspace of the token)", (f) => /src\/scim\/scope\.ts|src\/directory\/workspaces\.ts/.test(f.url)],
  ["activity log hook (writes only)", (f) => /src\/scim\/activity\//.test(f.url)],
  ["filter parse", (f) => /src\/scim\/filter\/parser\.ts/.test(f.url)],
  ["filter cost + compile to SQL", (f) => /src\/scim\/filter\/(cost|compiler)\.ts|src\/scim\/users\/attributes\.ts/.test(f.url)],
  ["transaction BEGIN/COMMIT (WAL frames written)", (f) => (f.functionName === "#runNoArgs" || f.functionName === "run") && f.url === "bun:sqlite"],
  ["storage seam (routed handle, AsyncLocalStorage, statement wrapper, writer mutex)", (f) => /src\/db\/(store|statement|connection|transaction)\.ts/.test(f.url) || f.url === "node:async_hooks"],
  ["drizzle query builder (SQL built per call)", (f) => /drizzle-orm\//.test(f.url) && !/session\.js$/.test(f.url)],
  ["body → user state, validation", (f) => /src\/scim\/users\/(rules|profile|values)\.ts|src\/http\/body\.ts/.test(f.url) || (/src\/directory\/users\.ts/.test(f.url) && /validateUser|columnsOf|resolveDisplayName/.test(f.functionName))],
  ["query string + list parameters", (f) => /src\/scim\/query\.ts/.test(f.url) && !/projectResource|pickSubs|listResponse/.test(f.functionName)],
  ["rendering (row → resource, projection)", (f) => /src\/scim\/users\/render\.ts/.test(f.url) || (/src\/scim\/users\/service\.ts/.test(f.url) && /render|present|withManager|view/.test(f.functionName)) || /projectResource|pickSubs|listResponse|resourceLocation/.test(f.functionName)],
  ["query (bun:sqlite)", (f) => f.url === "bun:sqlite"],
  ["users service (scope check, statement choice, its async steps)", (f) => /src\/scim\/users\/service\.ts|src\/directory\/users\.ts/.test(f.url)],
  ["SCIM gate, media type, body (plugin hooks)", (f) => /src\/scim\/(index|protocol|errors|search)\.ts/.test(f.url)],
  ["request id, metrics, request log", (f) => /src\/ops\/(observe|metrics)\.ts|src\/lib\/metrics\.ts|src\/http\/request-info\.ts|src\/server\/index\.ts|src\/log\.ts/.test(f.url)],
  ["group commit / write admission", (f) => /src\/db\/group-commit\.ts|src\/app\.ts/.test(f.url)],
  ["admin API's request hook (path check)", (f) => /src\/admin\/(index|auth)\.ts/.test(f.url)],
  ["webhook delivery loop (background)", (f) => /src\/webhooks\//.test(f.url)],
  ["Elysia (routing, hooks, response mapping, serialization)", (f) => /node_modules\/elysia\//.test(f.url)],
  ["other application code", (f) => /\/src\//.test(f.url)],
];
const NATIVE_HTTP = "Bun HTTP server, event loop, native (no JS caller)";
const QUERY = "query (bun:sqlite)";
const RESPONSE_JSON = "the answer: Response.json (JSON text, headers from Elysia's set)";
const IDLE = "idle / GC / program";
const STARTUP = "start-up (modules, migrations, data steps)";
const BACKGROUND = ["webhook delivery loop (background)", IDLE, STARTUP];
/** Frames only start-up runs: samples under them are not request handling. */
const isStartup = (f: Frame) => f.functionName === "(module)" || /^(startGatehouse|runMigrations|refoldUserKeys|runCli|loadConfig)$/.test(f.functionName);

function layersOf(file: string): Map<string, number> {
  const p = JSON.parse(readFileSync(file, "utf8")) as Profile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const memo = new Map<number, string>();
  const layerOf = (id: number): string => {
    const cached = memo.get(id);
    if (cached) return cached;
    let layer: string | undefined;
    for (let at: number | undefined = id; at !== undefined && !layer; at = parent.get(at)) if (isStartup(byId.get(at)!.callFrame)) layer = STARTUP;
    layer ??= statementLayer(id);
    if (!layer && byId.get(id)!.callFrame.functionName === "json" && byId.get(id)!.callFrame.url === "") layer = RESPONSE_JSON;
    for (let at: number | undefined = id; at !== undefined && !layer; at = parent.get(at)) {
      const f = byId.get(at)!.callFrame;
      if (/^\((idle|garbage collector|program|root)\)$/.test(f.functionName) && at === id) layer = IDLE;
      else layer = RULES.find(([, match]) => match(f))?.[0];
    }
    layer ??= NATIVE_HTTP;
    memo.set(id, layer);
    return layer;
  };
  /**
   * A statement's native `get`/`all`/`run`/`values` (a frame without a script, or bun:sqlite's
   * wrapper) is the query itself, whichever layer called it — except BEGIN/COMMIT, which the
   * rules above name. Other natives of those names (Map#get…) fall through to their caller.
   */
  function statementLayer(id: number): string | undefined {
    const leaf = byId.get(id)!.callFrame;
    if (!/^(get|all|run|values|#run|#runNoArgs)$/.test(leaf.functionName) || (leaf.url !== "" && leaf.url !== "bun:sqlite")) return undefined;
    for (let at = parent.get(id), hops = 0; at !== undefined && hops < 3; at = parent.get(at), hops++) {
      const f = byId.get(at)!.callFrame;
      if (f.url === "bun:sqlite" && /^(run|exec)$/.test(f.functionName)) return "transaction BEGIN/COMMIT (WAL frames written)";
      if (/src\/db\/statement\.ts|drizzle-orm\/.*session\.js/.test(f.url) || (f.url === "bun:sqlite" && f.functionName !== "transaction")) return QUERY;
    }
    return undefined;
  }
  const counts = new Map<string, number>();
  for (const s of p.samples) counts.set(layerOf(s), (counts.get(layerOf(s)) ?? 0) + 1);
  return counts;
}

/**
 * One column per profile: `file` or `file=µs` (the measured server CPU per request, which turns
 * each share into microseconds).
 */
const columns = process.argv.slice(2).map((arg) => {
  const [file, perRequest] = arg.split("=") as [string, string | undefined];
  const counts = layersOf(file);
  const handling = [...counts].filter(([l]) => !BACKGROUND.includes(l)).reduce((a, [, n]) => a + n, 0);
  return { file, perRequest: perRequest === undefined ? null : Number(perRequest), counts, handling };
});
console.log(`| Layer | ${columns.map((c) => `${c.file.split("/").slice(-2, -1)[0] ?? c.file} (${c.handling} samples)`).join(" | ")} |`);
console.log(`|---|${columns.map(() => "---:").join("|")}|`);
for (const layer of [...RULES.map(([l]) => l), RESPONSE_JSON, NATIVE_HTTP]) {
  if (BACKGROUND.includes(layer) || columns.every((c) => !c.counts.get(layer))) continue;
  const cells = columns.map((c) => {
    const share = (c.counts.get(layer) ?? 0) / c.handling;
    return `${(100 * share).toFixed(1)}%${c.perRequest === null ? "" : ` · ${Math.round(share * c.perRequest)} µs`}`;
  });
  console.log(`| ${layer} | ${cells.join(" | ")} |`);
}
console.log(`| *not request handling: ${BACKGROUND.join(", ")} (samples)* | ${columns.map((c) => BACKGROUND.reduce((a, l) => a + (c.counts.get(l) ?? 0), 0)).join(" | ")} |`);
