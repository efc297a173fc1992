import { createTestApp } from "./test/helpers";
const t = createTestApp();
const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "b" })).json()) as any).token;
const h = { token };
const api = (m: string, p: string, body?: unknown) => t.request(m, p, { body, headers: h });
console.log((await api("POST", "/api/v1/project", { title: "Bench", code: "BENCH" })).status);
const cases = await (await api("POST", "/api/v1/case/BENCH/bulk", { cases: Array.from({ length: 1000 }, (_, i) => ({ title: `c${i}` })) })).json() as any;
const ids = cases.result.ids as number[];
const run = await (await api("POST", "/api/v1/run/BENCH", { title: "r", cases: ids })).json() as any;
for (const [n, k, steps, defect] of [[200, 1, 0, false], [2000, 1, 0, false], [2000, 1, 0, true], [500, 10, 0, false], [200, 1, 50, false], [2000, 1, 10, false]] as const) {
  const results = Array.from({ length: n }, (_, i) => ({ title: `t${i}`, execution: { status: "failed" }, testops_ids: ids.slice(i % 900, i % 900 + k), defect, steps: Array.from({ length: steps }, () => ({ data: { action: "a" }, execution: { status: "passed" } })) }));
  const body = JSON.stringify({ results });
  const t0 = performance.now();
  const r = await t.request("POST", `/api/v2/BENCH/run/${run.result.id}/results`, { rawBody: body, headers: { ...h, "content-type": "application/json" } });
  console.log(n, k, steps, defect, r.status, (performance.now() - t0).toFixed(0), "ms", (body.length/1e6).toFixed(2), "MB");
}
const bulk = { cases: Array.from({ length: 1000 }, (_, i) => ({ title: `x${i}`, steps: Array.from({ length: 50 }, () => ({ action: "do", expected_result: "ok" })) })) };
let t0 = performance.now();
const r = await api("POST", "/api/v1/case/BENCH/bulk", bulk);
console.log("cases 1000x50", r.status, (performance.now() - t0).toFixed(0), "ms");
t.close();
