import { afterAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { BEGIN, clientOperations, COMPAT_DOC, compatRows, compatTable, END, NOT_SERVED, PARTLY, servedPath, servedRoutes } from "../../scripts/qase-compat";
import { createTestApp } from "../helpers";

// The compatibility table of docs/qase-compatibility.md is the generator's output over the
// clients installed and the routes the app serves, and the app answers as the table says.
const ops = clientOperations();
const rows = compatRows(ops, await servedRoutes());
const t = createTestApp();
afterAll(() => t.close());
const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "compat" })).json()) as { token: string }).token;

test("the clients declare what the table is built from (both clients read, every operation once)", () => {
  expect(ops.filter((o) => o.client === "v1").length).toBeGreaterThan(80);
  expect(ops.filter((o) => o.client === "v2").map((o) => o.operation).sort()).toEqual(["createResultV2", "createResultsV2", "getCustomFieldV2", "getCustomFieldsV2"]);
  const keys = ops.map((o) => `${o.client} ${o.api}.${o.operation}`);
  expect(new Set(keys).size).toBe(keys.length);
});

test("docs/qase-compatibility.md holds the generated table (run `bun scripts/qase-compat.ts` after changing routes, notes or clients)", () => {
  const doc = readFileSync(COMPAT_DOC, "utf8");
  const section = doc.slice(doc.indexOf(BEGIN) + BEGIN.length, doc.indexOf(END)).trim();
  expect(section).toBe(compatTable(rows).trim());
});

test("every operation not served has a reason; every note names an operation in the state it describes", () => {
  expect(rows.filter((r) => r.status === "not" && !r.note).map((r) => `${r.client} ${r.api}.${r.operation} ${r.method} ${r.path}`)).toEqual([]);
  const state = new Map(rows.map((r) => [`${r.client} ${r.api}.${r.operation}`, r.status]));
  expect([...NOT_SERVED.keys()].filter((k) => state.get(k) !== "not")).toEqual([]);
  expect([...PARTLY.keys()].filter((k) => state.get(k) !== "partly")).toEqual([]);
});

test("through app.handle, a served operation's route exists and a route the table calls not served is the unknown-route 404", async () => {
  const wrong: string[] = [];
  for (const r of rows) {
    // Placeholders: a project that does not exist, ids that name nothing; a route that exists answers 4xx of its own.
    const path = servedPath(r).replace(/\{(code|project_code)\}/g, "NOPROJ").replace(/\{hash\}/g, "0123abcd").replace(/\{[^}]+\}/g, "1");
    const res = await t.request(r.method, path, { headers: { token }, body: ["POST", "PATCH", "PUT"].includes(r.method) ? {} : undefined });
    const body = (await res.json().catch(() => null)) as { error?: { message?: string } } | null;
    const noRoute = res.status === 404 && /^No route for/.test(body?.error?.message ?? "");
    if (noRoute !== (r.status === "not")) wrong.push(`${r.status} ${r.method} ${path} → ${res.status} ${body?.error?.message ?? ""}`);
  }
  expect(wrong).toEqual([]);
});
