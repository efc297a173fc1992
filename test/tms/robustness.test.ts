import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "./harness";

/** Whatever a client sends, the answer is a JSON error or success — never a 500. */
let h: Harness;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Robust", code: "ROB" });
  const c = (await h.api("POST", "/case/ROB", { title: "c" })).body.result.id;
  await h.api("POST", "/suite/ROB", { title: "s" });
  await h.api("POST", "/milestone/ROB", { title: "m" });
  await h.api("POST", "/plan/ROB", { title: "p", cases: [c] });
  await h.api("POST", "/run/ROB", { title: "r", cases: [c] });
  await h.api("POST", "/defect/ROB", { title: "d", actual_result: "x", case_id: c });
});
afterAll(() => h.close());

const ROUTES: [string, string][] = [
  ["POST", "/project"], ["POST", "/case/ROB"], ["POST", "/case/ROB/bulk"], ["PATCH", "/case/ROB/1"], ["POST", "/case/ROB/1/clone"],
  ["POST", "/suite/ROB"], ["PATCH", "/suite/ROB/1"], ["DELETE", "/suite/ROB/1"], ["POST", "/suite/ROB/1/clone"],
  ["POST", "/milestone/ROB"], ["PATCH", "/milestone/ROB/1"], ["POST", "/shared_step/ROB"], ["PATCH", "/shared_step/ROB/x"],
  ["POST", "/plan/ROB"], ["PATCH", "/plan/ROB/1"], ["POST", "/run/ROB"], ["PATCH", "/run/ROB/1/public"],
  ["POST", "/result/ROB/1"], ["POST", "/result/ROB/1/bulk"], ["POST", "/api/v2/ROB/run/1/results"], ["POST", "/api/v2/ROB/run/1/result"],
  ["POST", "/defect/ROB"], ["POST", "/custom_field"], ["PATCH", "/custom_field/1"],
  ["POST", "/environment/ROB"], ["PATCH", "/environment/ROB/1"], ["POST", "/configuration/ROB/group"], ["POST", "/configuration/ROB"],
  ["POST", "/run/ROB/external-issue"], ["POST", "/case/ROB/external-issue/attach"], ["POST", "/case/ROB/external-issue/detach"],
];
const BODIES: unknown[] = [
  null, [], "text", 42, {}, { title: null }, { title: 7 }, { title: "x".repeat(300) }, { title: "ok", cases: "1,2" }, { title: "ok", cases: [-1, 1e20] },
  { title: "ok", steps: [{}] }, { title: "ok", steps: [null] }, { title: "ok", parent_id: 1.5 }, { title: "ok", custom_field: { a: 1 } },
  { results: [] }, { results: [{}] }, { results: [{ status: "passed", case_id: 2 ** 53 }] }, { results: [{ title: "t", execution: {} }] },
  { status: null }, { title: "ok", entity: 7, type: -1 }, { title: "ok", code: "x" }, { title: "ok", actual_result: "a", result_hash: "zz" },
  { title: "ok", severity: { nested: true } }, { title: "ok", attachments: [0] }, { title: "ok", suite_id: 99999999999 },
];

test("every write route answers garbage with a JSON 4xx (or 2xx), never 5xx", async () => {
  const statuses = new Map<number, number>();
  for (const [method, path] of ROUTES)
    for (const body of BODIES) {
      const full = path.startsWith("/api/") ? path : `/api/v1${path}`;
      const r = await h.t.request(method, full, { rawBody: JSON.stringify(body), headers: { token: h.token, "content-type": "application/json" } });
      statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
      const text = await r.text();
      if (r.status >= 500) throw new Error(`${method} ${full} ${JSON.stringify(body)} → ${r.status} ${text}`);
      expect(() => JSON.parse(text)).not.toThrow();
    }
  expect(statuses.get(400)! > 0).toBe(true);
}, 30_000); // ~750 requests, each write awaiting its WAL sync: seconds on a loaded machine
