import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestApp } from "../helpers";

// Lists of projects, suites and runs load what their views read (counts, cases, time spent) in
// batches: the queries a list runs do not grow with its length, and each listed entity reads
// the same as the entity fetched alone.

let t: ReturnType<typeof createTestApp>;
let token: string;

async function api(method: string, path: string, body?: unknown) {
  const r = await t.request(method, `/api/v1${path}`, { body, headers: { token } });
  const json = (await r.json()) as any;
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(json)}`);
  return json.result;
}

/**
 * The queries drizzle ran while `fn` ran. drizzle prepares each query it runs through its
 * session's client (the statement cache answers repeats), so counting those calls counts queries.
 */
async function queriesDuring(fn: () => Promise<unknown>): Promise<number> {
  const session = (t.ctx.db as unknown as { session: { client: { prepare(sql: string): unknown } } }).session;
  const client = session.client;
  let n = 0;
  session.client = new Proxy(client, {
    get: (target, key) => (key === "prepare" ? (sql: string) => (n++, target.prepare(sql)) : Reflect.get(target, key)),
  });
  try {
    await fn();
  } finally {
    session.client = client;
  }
  return n;
}

/** A run's elapsed_time moves with the clock between two reads; everything else must match. */
const still = (v: any) => ({ ...v, elapsed_time: 0 });

beforeAll(async () => {
  t = createTestApp();
  token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "batch" })).json()) as { token: string }).token;
  for (const [code, suitesWithCases] of [["BA", [2, 1, 0]], ["BB", [3]], ["BC", []]] as const) {
    await api("POST", "/project", { title: code, code });
    const caseIds: number[] = [];
    for (const n of suitesWithCases) {
      const suite = (await api("POST", `/suite/${code}`, { title: `${code} suite` })).id;
      for (let i = 0; i < n; i++) caseIds.push((await api("POST", `/case/${code}`, { title: `${code} case ${i}`, suite_id: suite })).id);
    }
    if (caseIds.length) await api("POST", `/defect/${code}`, { title: "broken", actual_result: "it broke", case_id: caseIds[0] });
    for (let r = 0; r < caseIds.length; r++) {
      const run = (await api("POST", `/run/${code}`, { title: `${code} run ${r}`, cases: caseIds.slice(0, r + 1) })).id;
      for (let i = 0; i <= r; i++) await api("POST", `/result/${code}/${run}`, { case_id: caseIds[i], status: i % 2 ? "failed" : "passed", time_ms: 100 * (i + 1) });
      if (r % 2) await api("POST", `/run/${code}/${run}/complete`);
    }
  }
});
afterAll(() => t?.close());

test("projects: the list's queries do not grow with its length; each reads as GET /project/{code}", async () => {
  const one = await queriesDuring(() => api("GET", "/project?limit=1"));
  let all: any;
  const many = await queriesDuring(async () => (all = await api("GET", "/project?limit=100")));
  expect(all.entities).toHaveLength(3);
  expect(many).toBe(one);
  for (const p of all.entities) expect(p).toEqual(await api("GET", `/project/${p.code}`));
  expect(all.entities.map((p: any) => [p.counts.cases, p.counts.suites, p.counts.runs, p.counts.defects]))
    .toEqual([[3, 3, { total: 3, active: 2 }, { total: 1, open: 1 }], [3, 1, { total: 3, active: 2 }, { total: 1, open: 1 }], [0, 0, { total: 0, active: 0 }, { total: 0, open: 0 }]]);
});

test("suites: the list's queries do not grow with its length; each reads as GET /suite/{code}/{id}", async () => {
  const one = await queriesDuring(() => api("GET", "/suite/BA?limit=1"));
  let all: any;
  const many = await queriesDuring(async () => (all = await api("GET", "/suite/BA?limit=100")));
  expect(many).toBe(one);
  expect(all.entities.map((s: any) => s.cases_count)).toEqual([2, 1, 0]);
  for (const s of all.entities) expect(s).toEqual(await api("GET", `/suite/BA/${s.id}`));
});

test("runs: the list's queries do not grow with its length; each reads as GET /run/{code}/{id}", async () => {
  const one = await queriesDuring(() => api("GET", "/run/BA?limit=1"));
  let all: any;
  const many = await queriesDuring(async () => (all = await api("GET", "/run/BA?limit=100")));
  expect(many).toBe(one);
  expect(all.entities.map((r: any) => [r.stats.total, r.stats.passed, r.stats.failed, r.time_spent, r.cases.length]))
    .toEqual([[1, 1, 0, 100, 1], [2, 1, 1, 300, 2], [3, 2, 1, 600, 3]]);
  for (const r of all.entities) expect(still(r)).toEqual(still(await api("GET", `/run/BA/${r.id}`)));
});
