/**
 * QQL on PostgreSQL: projects, cases, runs, results, defects, plans and custom fields made through
 * the real API (on SQLite), their rows copied into a PostgreSQL database migrated to the
 * product's schema, and each query of the QQL tests compiled once per engine and run on each
 * exactly as the search service runs it (count, then a page of keys in order) — the same keys in
 * the same order.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import type postgres from "postgres";
import { postgresPlaceholders } from "../../../src/db/dialect";
import { engine as currentEngine, useEngine, type Engine } from "../../../src/db/engine";
import { users } from "../../../src/directory/tables";
import { cases } from "../../../src/tms/cases/tables";
import { customFields } from "../../../src/tms/custom-fields/tables";
import { defects } from "../../../src/tms/defects/tables";
import { milestones } from "../../../src/tms/milestones/tables";
import { plans } from "../../../src/tms/plans/tables";
import { projects } from "../../../src/tms/projects/tables";
import { results, runCases, runs } from "../../../src/tms/runs/tables";
import { compileQql, customFieldTitles, type QqlCustomField } from "../../../src/tms/search/compile";
import { parseQql } from "../../../src/tms/search/qql";
import { suites } from "../../../src/tms/suites/tables";
import { migratedCopy } from "../../db/postgres-tables";
import { tmsHarness, type Harness } from "../harness";

const TABLES = [users, projects, cases, runs, runCases, results, defects, plans, suites, milestones, customFields];

let h: Harness;
let pg: postgres.Sql;
let closePg: () => Promise<void>;
const s: Record<string, number> = {};
const NOW = new Date();

const engineAtStart = currentEngine();

beforeAll(async () => {
  h = await tmsHarness({ sqlite: true }); // the source of the copy, in both runs
  const ok = async (method: string, path: string, body?: unknown) => {
    const r = await h.api(method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  };
  await ok("POST", "/project", { title: "Fields", code: "QF" });
  await ok("POST", "/project", { title: "Other", code: "OTH" });
  const scim = ((await (await h.t.admin("POST", "/api/admin/scim-tokens", { name: "idp" })).json()) as any).token;
  for (const [userName, displayName] of [["grace@example.com", "Grace Hopper"], ["ÉDITH@exemple.fr", "Édith Piaf"]]) {
    const made = await h.t.request("POST", "/scim/v2/Users", {
      headers: { authorization: `Bearer ${scim}`, "content-type": "application/scim+json" },
      rawBody: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, name: { givenName: "G", familyName: "H" }, displayName }),
    });
    if (made.status !== 201) throw new Error(`SCIM user: ${made.status}`);
    s[userName] = Number(((await made.json()) as any).id);
  }
  const tokenOf = async (userId: number) => ((await (await h.t.admin("POST", "/api/admin/api-tokens", { name: `u${userId}`, userId })).json()) as any).token as string;
  const as = async (token: string, method: string, path: string, body?: unknown) => {
    const r = await h.t.request(method, `/api/v1${path}`, { body, headers: { token } });
    const json = (await r.json()) as any;
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json.result;
  };
  const grace = await tokenOf(s["grace@example.com"]!);
  const edith = await tokenOf(s["ÉDITH@exemple.fr"]!);

  s.sprint = (await ok("POST", "/milestone/QF", { title: "Sprint 12" })).id;
  s.other = (await ok("POST", "/milestone/QF", { title: "Sprint 13" })).id;
  s.auth = (await ok("POST", "/suite/QF", { title: "Auth" })).id;
  s.ticket = (await ok("POST", "/custom_field", { title: "Ticket", entity: "case", type: "string" })).id;
  s.area = (await ok("POST", "/custom_field", { title: "Area", entity: "case", type: "selectbox", value: [{ title: "Web" }, { title: "API" }] })).id;
  s.points = (await ok("POST", "/custom_field", { title: "Points", entity: "case", type: "number" })).id;
  s.checked = (await ok("POST", "/custom_field", { title: "Reviewed", entity: "case", type: "checkbox" })).id;
  s.build = (await ok("POST", "/custom_field", { title: "Build", entity: "run", type: "number" })).id;
  s.login = (await as(grace, "POST", "/case/QF", {
    title: "Log in", suite_id: s.auth, milestone_id: s.sprint, tags: ["smoke", "Auth"], isManual: true, severity: "critical",
    custom_field: { [s.ticket]: "JIRA-101", [s.area]: "Web", [s.points]: "5", [s.checked]: "true" },
  })).id;
  s.pay = (await ok("POST", "/case/QF", { title: "Pay by card", tags: ["payments"], isManual: false, severity: "minor", custom_field: { [s.points]: "13", [s.checked]: "0", [s.ticket]: "ÄBC-7" } })).id;
  s.old = (await ok("POST", "/case/QF", { title: "Legacy export 50%_off", milestone_id: s.other, description: "ÄBC" })).id;
  s.umlaut = (await as(edith, "POST", "/case/QF", { title: "Über äbc", tags: ["ÄBC", "x_y"], severity: 1, description: "" })).id;
  await ok("POST", "/case/OTH", { title: "Login elsewhere", severity: "critical" });
  h.t.ctx.sqlite!.run("UPDATE tms_cases SET created = '2025-01-01T08:00:00.000000Z' WHERE title = 'Legacy export 50%_off'");
  s.plan = (await ok("POST", "/plan/QF", { title: "Release plan", cases: [s.login, s.pay] })).id;
  s.run = (await as(grace, "POST", "/run/QF", { title: "Sprint run", milestone_id: s.sprint, plan_id: s.plan, tags: ["nightly"], custom_field: { [s.build]: "12" } })).id;
  await as(grace, "POST", `/result/QF/${s.run}`, { case_id: s.login, status: "failed", comment: "Boom ÄBC" });
  await as(grace, "POST", `/result/QF/${s.run}`, { case_id: s.pay, status: "passed", time_ms: 1500 });
  await ok("POST", `/run/QF/${s.run}/complete`);
  s.open = (await ok("POST", "/run/QF", { title: "Open run", cases: [s.pay, s.umlaut], custom_field: { [s.build]: "7" } })).id;
  await ok("POST", `/result/QF/${s.open}`, { case_id: s.umlaut, status: "blocked" });
  await ok("POST", "/defect/QF", { title: "Login broken", actual_result: "500", severity: "blocker", milestone_id: s.sprint, tags: ["auth"] });
  await ok("POST", "/defect/QF", { title: "Slow page", actual_result: "10 s", severity: "minor" });

  ({ pg, close: closePg } = await migratedCopy(h.t.ctx.sqlite!, TABLES, "qql"));
}, 60_000);

afterAll(async () => {
  useEngine(engineAtStart);
  h?.close();
  await closePg?.();
});

/** The workspace's custom fields by lower-cased title, as the search service reads them. */
function fieldsFor(entity: string, titles: string[]): Map<string, QqlCustomField[]> {
  const found = new Map<string, QqlCustomField[]>();
  const rows = h.t.ctx.db.select().from(customFields).where(eq(customFields.entity, entity as "case")).all();
  for (const f of rows) {
    const key = f.title.toLowerCase();
    if (titles.includes(key)) found.set(key, [...(found.get(key) ?? []), { id: f.id, type: f.type, options: f.options }]);
  }
  return found;
}

type Found = { total: number; keys: (string | number)[] };

async function searchOn(engine: Engine, query: string, userId: number | null): Promise<Found> {
  const before = currentEngine();
  useEngine(engine);
  let c;
  try {
    const q = parseQql(query);
    c = compileQql(q, 1, { userId, now: NOW, customFields: fieldsFor(q.entity, customFieldTitles(q)) });
  } finally {
    useEngine(before);
  }
  const countSql = `SELECT count(*) AS n FROM ${c.from} WHERE ${c.where}`;
  const pageSql = `SELECT ${c.key} AS k FROM ${c.from} WHERE ${c.where} ORDER BY ${c.order} LIMIT ? OFFSET ?`;
  const params = [...c.params, 100, 0];
  if (engine === "sqlite") {
    const n = (h.t.ctx.sqlite!.query(countSql).get(...(c.params as never[])) as { n: number }).n;
    return { total: n, keys: (h.t.ctx.sqlite!.query(pageSql).all(...(params as never[])) as { k: string | number }[]).map((r) => r.k) };
  }
  const [count] = (await pg.unsafe(postgresPlaceholders(countSql), c.params as never[])) as unknown as { n: number }[];
  const rows = (await pg.unsafe(postgresPlaceholders(pageSql), params as never[])) as unknown as { k: string | number }[];
  return { total: Number(count!.n), keys: rows.map((r) => r.k) };
}

async function same(query: string, userId: number | null = null): Promise<Found> {
  const lite = await searchOn("sqlite", query, userId);
  const onPg = await searchOn("postgres", query, userId);
  expect({ query, ...onPg }).toEqual({ query, ...lite });
  return lite;
}

const QUERIES = [
  // test/tms/search/qql.test.ts and search.test.ts
  'entity = "case" and project = "QF" and status = "Actual" and title ~ "50%_off" and id >= 3',
  'entity = "case" and (severity in ("critical", \'blocker\') or not title ~ "login") and suite is not empty order by id desc',
  'entity = "case" and project = "QF" and severity = "Critical" order by id desc', 'entity = "case" and title ~ "log"', 'entity = "case" and severity = 5',
  'entity = "case" and severity in (2, "minor") order by id', 'entity = "case" and severity = "blocker"', 'entity = "result" and status = 2', 'entity = "result" and status = "In progress"',
  'entity = "run" and title ~ "night"', 'entity = "result" and project = "QF" and (status = "failed" or status = "blocked")', 'entity = "result" and not status = "failed"',
  'entity = "defect"', 'entity = "run" and status = "failed"', 'entity = "run" and status = "passed"', 'entity = "run" and status not in ["passed", "In progress", 2]',
  'entity = "case" and id in [1, 2, 10]',
  // test/tms/search/qql-fields.test.ts
  'entity = "case" and project = "QF" and status = "Actual"', 'entity = "defect" and severity = "blocker" and status = "open"', 'entity = "result" and status = "failed" and ended >= now("-7d")',
  'entity = "run" and milestone ~ "Sprint 12"', 'entity = "case" and created >= startOfDay()', 'entity = "case" and created < startOfMonth("-1m")',
  'entity = "case" and created >= "2025-01-01" and created <= endOfDay("2025-01-01")', 'entity = "result" and ended < now("-7d")', 'entity = "run" and ended is not empty and started <= now()',
  'entity = "run" and isEnded = false and isStarted is true', 'entity = "case" and milestone = "sprint 12"', 'entity = "case" and milestone is empty', 'entity = "case" and suite = "Auth"',
  'entity = "run" and plan ~ "release"', 'entity = "defect" and milestone = "Sprint 12" and tags = "AUTH"', 'entity = "result" and milestone = "Sprint 12"', 'entity = "case" and tags = "auth"',
  'entity = "case" and tags in ["payments", "smoke"]', 'entity = "case" and tags !~ "pay"', 'entity = "case" and tags is empty', 'entity = "case" and tags is not empty', 'entity = "case" and isManual = true',
  'entity = "case" and isManual is false', 'entity = "case" and automation = "manual"', 'entity = "case" and isFlaky = false', 'entity = "case" and author = "Grace Hopper"',
  'entity = "case" and author = "GRACE@example.com"', 'entity = "run" and createdBy ~ "hopper"', 'entity = "case" and author != "Grace Hopper"', 'entity = "case" and author is empty',
  'entity = "case" and cf["Ticket"] = "jira-101"', 'entity = "case" and cf["ticket"] ~ "JIRA"', 'entity = "case" and cf["Area"] = "web"', 'entity = "case" and cf["Area"] in ["API", "Web"]',
  'entity = "case" and cf["Points"] > 8', 'entity = "case" and cf["Points"] >= 5 order by id', 'entity = "case" and cf["Reviewed"] = true', 'entity = "case" and cf["Reviewed"] is false',
  'entity = "case" and cf["Ticket"] is empty', 'entity = "case" and cf["Ticket"] != "JIRA-101"', 'entity = "run" and cf["Build"] >= 10', 'entity = "run" and cf["build"] is not empty',
  // numbers, empties, escaping, ordering with NULLs
  'entity = "case" and id is empty', 'entity = "case" and id is not empty', 'entity = "case" and suite_id is empty', 'entity = "case" and description is empty', 'entity = "case" and title ~ "_"',
  'entity = "case" and title ~ "%_o"', 'entity = "result" and duration > 1000', 'entity = "result" and duration is empty', 'entity = "result" and comment ~ "boom"', 'entity = "result" order by duration desc',
  'entity = "case" order by milestone', 'entity = "case" order by milestone desc', 'entity = "case" order by title desc', 'entity = "run" order by ended', 'entity = "defect" and isResolved = false',
  'entity = "plan" and title ~ "release"', 'entity = "plan" order by title', 'entity = "case" and title > "M"', 'entity = "case" and id != 2',
];

describe("QQL on PostgreSQL answers as on SQLite", () => {
  test("every query of the QQL tests, and empties, escaping, order with NULLs", async () => {
    let matched = 0;
    for (const query of QUERIES) if ((await same(query)).total > 0) matched++;
    expect(matched).toBeGreaterThan(QUERIES.length / 2);
  });

  test("currentUser() and a person by id", async () => {
    expect((await same('entity = "case" and author = currentUser()', s["grace@example.com"]!)).keys).toEqual([s.login]);
    expect((await same(`entity = "case" and author = ${s["grace@example.com"]}`)).keys).toEqual([s.login]);
  });

  test("case folding beyond ASCII: the e-mail through the userName's folded key (Unicode), other text ASCII only — on both engines", async () => {
    // the userName "ÉDITH@exemple.fr" is found by any casing, as the directory compares it
    expect((await same('entity = "case" and author = "édith@EXEMPLE.FR"')).keys).toEqual([s.umlaut]);
    expect((await same('entity = "case" and author ~ "édith@"')).keys).toEqual([s.umlaut]);
    // a display name, title, tag or custom field value folds ASCII letters only: Ä is not ä
    expect((await same('entity = "case" and author = "ÉDITH PIAF"')).keys).toEqual([s.umlaut]);
    expect((await same('entity = "case" and author = "édith piaf"')).keys).toEqual([]);
    expect((await same('entity = "case" and title ~ "ÜBER ÄBC"')).keys).toEqual([]);
    expect((await same('entity = "case" and title ~ "Über ä"')).keys).toEqual([s.umlaut]);
    expect((await same('entity = "case" and tags = "ÄBC"')).keys).toEqual([s.umlaut]);
    expect((await same('entity = "case" and tags = "äbc"')).keys).toEqual([]);
    expect((await same('entity = "case" and description = "ÄBC"')).keys).toEqual([s.old]);
    expect((await same('entity = "case" and cf["Ticket"] = "ÄBC-7"')).keys).toEqual([s.pay]);
    expect((await same('entity = "result" and comment ~ "Boom ÄBC"')).total).toBe(1);
  });

  test("a stored custom field value that is no number (the API refuses one; an old row) is no match on PostgreSQL, never a failed statement", async () => {
    expect((await same('entity = "case" and cf["Points"] < 100 order by id')).keys).toEqual([s.login, s.pay]);
    await pg.unsafe(`UPDATE tms_cases SET custom_fields = $1 WHERE id = $2`, [JSON.stringify([{ field_id: s.points, value: "many" }, { field_id: "x", value: "1" }]), s.old]);
    expect((await searchOn("postgres", 'entity = "case" and cf["Points"] < 100 order by id', null)).keys).toEqual([s.login, s.pay]);
    expect((await searchOn("postgres", 'entity = "case" and cf["Points"] is not empty order by id', null)).keys).toEqual([s.login, s.pay, s.old]);
  });
});
