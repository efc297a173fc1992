import { createTestApp } from "./test/helpers";
const t = createTestApp();
const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "b" })).json()) as any).token;
const h = { token };
const api = (m: string, p: string, body?: unknown) => t.request(m, p, { body, headers: h });
await api("POST", "/api/v1/project", { title: "Bench", code: "BENCH" });
for (let k = 0; k < 3; k++) {
let t0 = performance.now();
const cases = await (await api("POST", "/api/v1/case/BENCH/bulk", { cases: Array.from({ length: 1000 }, (_, i) => ({ title: `c${k}${i}` })) })).json() as any;
console.log("1000 cases", (performance.now() - t0).toFixed(0));
}
const run = await (await api("POST", "/api/v1/run/BENCH", { title: "r", include_all_cases: true })).json() as any;
let t0 = performance.now();
let r = await api("POST", `/api/v2/BENCH/run/${run.result.id}/results`, { results: Array.from({ length: 500 }, (_, i) => ({ title: `new${i}`, execution: { status: "passed" } })) });
console.log("500 unlinked (new cases)", r.status, (performance.now() - t0).toFixed(0));
t0 = performance.now();
r = await api("POST", `/api/v2/BENCH/run/${run.result.id}/results`, { results: Array.from({ length: 500 }, (_, i) => ({ title: `new${i}`, execution: { status: "passed" } })) });
console.log("500 unlinked (existing)", r.status, (performance.now() - t0).toFixed(0));
t0 = performance.now();
r = await api("POST", `/api/v2/BENCH/run/${run.result.id}/results`, { results: Array.from({ length: 500 }, (_, i) => ({ title: `x${i}`, testops_id: i + 1, execution: { status: "failed" }, defect: true })) });
console.log("500 defects", r.status, (performance.now() - t0).toFixed(0));
t.close();
