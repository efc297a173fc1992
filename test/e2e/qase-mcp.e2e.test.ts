import { afterAll, beforeAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { join } from "node:path";
import { ROOT, startBinary, type RunningBinary } from "./binary";

/**
 * The official @qase/mcp-server (run by node over stdio, driven by the MCP SDK client as an AI
 * agent's host would) against the compiled binary, with only its documented settings:
 * QASE_API_DOMAIN=<host:port> and QASE_API_PROTOCOL=http (it calls <protocol>://<domain>/v1/...).
 */
const ADMIN = "mcp-e2e-admin-token-0123456789";
let bin: RunningBinary;
let client: Client;
let token: string;

beforeAll(async () => {
  bin = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: ADMIN } });
  ({ token } = (await (await fetch(`${bin.url}/api/admin/api-tokens`, {
    method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "mcp" }),
  })).json()) as { token: string });
  client = new Client({ name: "gatehouse-test", version: "1.0.0" });
  await client.connect(new StdioClientTransport({
    command: "node",
    args: [join(ROOT, "node_modules/@qase/mcp-server/build/index.js")],
    env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", QASE_API_TOKEN: token, QASE_API_DOMAIN: new URL(bin.url).host, QASE_API_PROTOCOL: "http" },
    stderr: "pipe",
  }));
}, 180_000);
afterAll(async () => {
  await client?.close();
  if (bin && bin.proc.exitCode === null) await bin.stop();
});

/** Calls a tool and returns its JSON answer; a tool error fails the test with its text. */
async function call(name: string, args: Record<string, unknown>): Promise<any> {
  const r = (await client.callTool({ name, arguments: args })) as { isError?: boolean; content: { type: string; text?: string }[] };
  const text = r.content.map((c) => c.text ?? "").join("\n");
  if (r.isError) throw new Error(`${name} → ${text}`);
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

test("case (enum by name via system fields), run, results, read back, QQL search and project context through the MCP server", async () => {
  const tools = (await client.listTools()).tools.map((t) => t.name);
  expect(tools).toEqual(expect.arrayContaining(["qase_case_upsert", "qase_run_upsert", "qase_result_record", "qase_get", "qase_project_context", "qql_search"]));
  // Project creation is not among the server's default tools; the project comes from the API.
  const api = (path: string, init: RequestInit = {}) => fetch(`${bin.url}/v1${path}`, { ...init, headers: { token, "content-type": "application/json" } }).then((r) => r.json() as Promise<any>);
  // Another project's case comes first: ids are numbers within each project.
  await api("/project", { method: "POST", body: JSON.stringify({ code: "OTH", title: "Someone else" }) });
  await api("/case/OTH", { method: "POST", body: JSON.stringify({ title: "Someone else's case" }) });
  await api("/project", { method: "POST", body: JSON.stringify({ code: "MCP", title: "Driven by an agent" }) });
  const created = JSON.stringify(await call("qase_case_upsert", { code: "MCP", title: "Agent writes a case", severity: "critical", priority: "high" }));
  const caseId = Number(/"id":\s*(\d+)/.exec(created)?.[1]);
  expect(caseId).toBe(1);
  expect(JSON.stringify(await call("qase_get", { entity: "case", code: "OTH", id: 1 }))).toContain("Someone else's case");
  // The server turned the names into Qase's numbers through /system_field; the case answers those numbers.
  const got = JSON.stringify(await call("qase_get", { entity: "case", code: "MCP", id: caseId }));
  expect(got).toContain('"severity":2'); // critical
  expect(got).toContain('"priority":1'); // high

  const run = JSON.stringify(await call("qase_run_upsert", { code: "MCP", title: "Agent run" }));
  const runId = Number(/"id":\s*(\d+)/.exec(run)?.[1]);
  expect(runId).toBeGreaterThan(0);
  await call("qase_result_record", { code: "MCP", run_id: runId, results: [{ case_id: caseId, status: "failed", comment: "seen by the agent" }] });

  const results = (await api(`/result/MCP?run=${runId}`)).result.entities;
  expect(results).toMatchObject([{ case_id: caseId, status: "failed", comment: "seen by the agent" }]);
  expect((await api("/result/OTH")).result.total).toBe(0);
  const found = JSON.stringify(await call("qql_search", { query: 'entity = "case" and project = "MCP" and severity = "critical"' }));
  expect(found).toContain("Agent writes a case");
  const context = JSON.stringify(await call("qase_project_context", { code: "MCP" }));
  expect(context).toContain("Driven by an agent");
}, 120_000);

test("qase_get reads a shared parameter by its UUID (SharedParametersApi.getSharedParameter)", async () => {
  const api = (path: string, init: RequestInit = {}) => fetch(`${bin.url}/v1${path}`, { ...init, headers: { token, "content-type": "application/json" } }).then((r) => r.json() as Promise<any>);
  const created = await api("/shared_parameter", {
    method: "POST",
    body: JSON.stringify({ title: "Agent browsers", type: "single", is_enabled_for_all_projects: true, parameters: [{ title: "browser", values: ["chromium", "firefox"] }] }),
  });
  const id = created.result.id as string;
  // The server asks for a project code for this entity (and does not send it); the id is the UUID.
  const got = await call("qase_get", { entity: "shared_parameter", code: "MCP", id });
  expect(JSON.stringify(got)).toContain("Agent browsers");
  expect(JSON.stringify(got)).toContain('"values":["chromium","firefox"]');
  expect(JSON.stringify(got)).toContain(id);
}, 60_000);

test("round two over stdio: automation by label or number, bulk create, a defect with no case and custom fields, results into a completed run, case external issues, QQL dates", async () => {
  const api = (path: string, init: RequestInit = {}) => fetch(`${bin.url}/v1${path}`, { ...init, headers: { token, "content-type": "application/json" } }).then((r) => r.json() as Promise<any>);
  await api("/project", { method: "POST", body: JSON.stringify({ code: "MC2", title: "Round two" }) });
  const idOf = (answer: unknown) => Number(/"id":\s*(\d+)/.exec(JSON.stringify(answer))?.[1]);

  // The tools map `automation` (a label or its number) to isManual/isToBeAutomated sent as numbers (0/1), which Qase takes.
  const automated = idOf(await call("qase_case_upsert", { code: "MC2", title: "Automated", automation: "Automated" }));
  const planned = idOf(await call("qase_case_upsert", { code: "MC2", title: "Planned", automation: "1" }));
  expect((await api(`/case/MC2/${automated}`)).result).toMatchObject({ automation: 2, isManual: false });
  expect((await api(`/case/MC2/${planned}`)).result).toMatchObject({ automation: 1, isManual: true, isToBeAutomated: true });
  await call("qase_case_bulk_create", { code: "MC2", cases: [{ title: "Bulk manual", automation: "Manual" }, { title: "Bulk automated", automation: "2" }] });
  expect((await api("/case/MC2?automation=automated")).result.entities.map((c: any) => c.title)).toEqual(["Automated", "Bulk automated"]);

  // A defect names no case (Qase's DefectCreate has none) and keeps its custom field values.
  const field = (await api("/custom_field", { method: "POST", body: JSON.stringify({ title: "Found in build", entity: "defect", type: "string" }) })).result.id;
  const defect = idOf(await call("qase_defect_upsert", { code: "MC2", title: "Checkout hangs", actual_result: "spinner forever", severity: "critical", custom_field: { [field]: "1.4.2" } }));
  expect((await api(`/defect/MC2/${defect}`)).result).toMatchObject({ title: "Checkout hangs", case_id: null, custom_fields: [{ id: field, value: "1.4.2" }] });

  // Sharded CI: a result recorded into a run an earlier job completed is accepted.
  const run = idOf(await call("qase_run_upsert", { code: "MC2", title: "Sharded", cases: [automated, planned] }));
  await call("qase_run_complete", { code: "MC2", id: run });
  await call("qase_result_record", { code: "MC2", run_id: run, results: [{ case_id: planned, status: "passed" }] });
  expect((await api(`/result/MC2?run=${run}`)).result.entities).toMatchObject([{ case_id: planned, status: "passed" }]);

  // Case external issues: attach, read back with include, detach.
  await call("qase_external_issue_link", { code: "MC2", entity: "case", action: "attach", type: "jira-cloud", links: [{ id: automated, issues: ["SHOP-7"] }] });
  expect((await api(`/case/MC2/${automated}?include=external_issues`)).result.external_issues).toEqual([{ type: "jira-cloud", issues: [{ id: "SHOP-7" }] }]);
  expect((await api(`/case/MC2?${encodeURIComponent("external_issues[ids][]")}=SHOP-7`)).result.entities.map((c: any) => c.id)).toEqual([automated]);
  await call("qase_external_issue_link", { code: "MC2", entity: "case", action: "detach", type: "jira-cloud", links: [{ id: automated, issues: ["SHOP-7"] }] });
  expect((await api(`/case/MC2/${automated}?include=external_issues`)).result.external_issues).toEqual([]);

  // qql_search answers a summary and the JSON it read; a date function and Qase's field names.
  const text = (answer: unknown) => (typeof answer === "string" ? answer : JSON.stringify(answer));
  const recent = text(await call("qql_search", { query: 'entity = "result" and project = "MC2" and status = "passed" and ended >= now("-7d")' }));
  expect(recent).toContain('"total":1');
  const manual = text(await call("qql_search", { query: 'entity = "case" and project = "MC2" and isManual = true order by id' }));
  expect(manual).toContain('"title":"Planned"');
  expect(manual).toContain('"title":"Bulk manual"');
  expect(manual).not.toContain('"title":"Automated"');
}, 120_000);
