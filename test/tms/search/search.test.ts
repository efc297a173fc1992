import { afterAll, beforeAll, expect, test } from "bun:test";
import { tmsHarness, type Harness } from "../harness";

let h: Harness;
let ids: number[] = [];
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Search", code: "SRCH" });
  await h.api("POST", "/project", { title: "Other", code: "OTH" });
  for (const [title, severity] of [["Login works", "critical"], ["Logout works", "minor"], ["Pay by card", "critical"]] as const)
    ids.push((await h.api("POST", "/case/SRCH", { title, severity })).body.result.id);
  await h.api("POST", "/case/OTH", { title: "Login elsewhere", severity: "critical" });
  const run = (await h.api("POST", "/run/SRCH", { title: "Nightly", cases: ids })).body.result.id;
  await h.api("POST", `/result/SRCH/${run}/bulk`, { results: [{ case_id: ids[0], status: "failed" }, { case_id: ids[1], status: "passed" }] });
});
afterAll(() => h.close());

const search = async (query: string, extra = "") => h.api("GET", `/search?query=${encodeURIComponent(query)}${extra}`);

test("cases by project, enum and substring, ordered, paged; each in its API view", async () => {
  const r = await search('entity = "case" and project = "SRCH" and severity = "Critical" order by id desc');
  expect(r.status).toBe(200);
  expect(r.body.result.total).toBe(2);
  expect(r.body.result.entities.map((c: any) => [c.entity, c.title, c.severity])).toEqual([["case", "Pay by card", "critical"], ["case", "Login works", "critical"]]);
  const logins = await search('entity = "case" and title ~ "log"', "&limit=1&offset=1");
  expect([logins.body.result.total, logins.body.result.count]).toEqual([3, 1]);
});

test("runs, results and defects; or / not", async () => {
  expect((await search('entity = "run" and title ~ "night"')).body.result.entities[0]).toMatchObject({ title: "Nightly", status_text: "active" });
  const failed = (await search('entity = "result" and project = "SRCH" and (status = "failed" or status = "blocked")')).body.result;
  expect(failed.entities.map((r: any) => r.case_id)).toEqual([ids[0]]);
  expect((await search('entity = "result" and not status = "failed"')).body.result.entities.map((r: any) => r.case_id)).toEqual([ids[1]]);
  expect((await search('entity = "defect"')).body.result.total).toBe(0);
});

test("a bad query is a 400 naming `query`", async () => {
  const r = await search('entity = "case" and colour = "red"');
  expect([r.status, r.body.error.field]).toEqual([400, "query"]);
  expect(r.body.error.message).toContain('Unknown field "colour"');
});
