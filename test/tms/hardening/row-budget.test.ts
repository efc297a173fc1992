import { afterAll, beforeAll, expect, test } from "bun:test";
import { EVENT_ROWS, MAX_ROWS_PER_REQUEST } from "../../../src/tms/shared/row-budget";
import { createTestApp } from "../../helpers";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../../src/db/statement";

const t = createTestApp();
afterAll(() => t.close());
let token: string;
let runId: number;
let caseIds: number[];
const api = (method: string, path: string, body?: unknown) => t.request(method, path, { body, headers: { token } });
const count = async (table: string) => Number((await rowsOf<{ n: number }>(t.ctx.db, sql.raw(`SELECT count(*) AS n FROM ${table}`)))[0]!.n);

beforeAll(async () => {
  token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "budget" })).json()) as any).token;
  expect((await api("POST", "/api/v1/project", { title: "Budget", code: "BUDGET" })).status).toBe(200);
  caseIds = ((await (await api("POST", "/api/v1/case/BUDGET/bulk", { cases: Array.from({ length: 100 }, (_, i) => ({ title: `c${i}` })) })).json()) as any).result.ids;
  runId = ((await (await api("POST", "/api/v1/run/BUDGET", { title: "r", cases: caseIds })).json()) as any).result.id;
});

async function expectRefused(r: Response) {
  expect(r.status).toBe(413);
  const body = (await r.json()) as any;
  expect(body.error.code).toBe("row_budget_exceeded");
  expect(body.error.message).toContain(String(MAX_ROWS_PER_REQUEST));
}

test("v2 results × linked cases over the budget → 413 naming the limit, and nothing is written", async () => {
  const counts = () => Promise.all([count("tms_results"), count("tms_defects"), count("webhook_events")]);
  const before = await counts();
  // 100 results × 100 testops_ids = 10 000 results (and as many defects): the stall, scaled down.
  const results = Array.from({ length: 100 }, (_, i) => ({ title: `t${i}`, testops_ids: caseIds, execution: { status: "failed" }, defect: true }));
  await expectRefused(await api("POST", `/api/v2/BUDGET/run/${runId}/results`, { results }));
  expect(await counts()).toEqual(before);
});

test("steps count: a bulk of results with many steps is refused; the same results without them pass", async () => {
  const steps = Array.from({ length: 100 }, () => ({ data: { action: "a" }, execution: { status: "passed" } }));
  const results = Array.from({ length: 50 }, (_, i) => ({ title: `s${i}`, testops_id: caseIds[i], execution: { status: "passed" }, steps }));
  await expectRefused(await api("POST", `/api/v2/BUDGET/run/${runId}/results`, { results }));
  const plain = results.map(({ steps: _, ...r }) => r);
  expect((await api("POST", `/api/v2/BUDGET/run/${runId}/results`, { results: plain })).status).toBe(200);
});

test("results that create cases (unlinked, by title) count those cases and their events", async () => {
  const n = Math.ceil(MAX_ROWS_PER_REQUEST / (2 + 1 + EVENT_ROWS)) + 5;
  const before = await count("tms_cases");
  const results = Array.from({ length: n }, (_, i) => ({ title: `new case ${i}`, execution: { status: "passed" } }));
  await expectRefused(await api("POST", `/api/v2/BUDGET/run/${runId}/results`, { results }));
  expect(await count("tms_cases")).toBe(before);
});

test("v1 bulk results with defects are counted the same way", async () => {
  const n = Math.ceil(MAX_ROWS_PER_REQUEST / (2 + 1 + EVENT_ROWS)) + 1;
  const results = Array.from({ length: n }, (_, i) => ({ case_id: caseIds[i % 100], status: "failed", defect: true }));
  await expectRefused(await api("POST", `/api/v1/result/BUDGET/${runId}/bulk`, { results }));
});

test("case bulk: cases × steps over the budget → 413; a bulk within it is created", async () => {
  const steps = Array.from({ length: 50 }, () => ({ action: "do", expected_result: "ok" }));
  await expectRefused(await api("POST", "/api/v1/case/BUDGET/bulk", { cases: Array.from({ length: 100 }, (_, i) => ({ title: `big${i}`, steps })) }));
  const ok = await api("POST", "/api/v1/case/BUDGET/bulk", { cases: Array.from({ length: 10 }, (_, i) => ({ title: `small${i}`, steps })) });
  expect(ok.status).toBe(200);
});
