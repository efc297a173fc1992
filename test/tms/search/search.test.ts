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
  // Each entity is its API view: Qase's numbers (2 = critical), as qase-api-client's QqlTestCase declares.
  expect(r.body.result.entities.map((c: any) => [c.entity, c.title, c.severity])).toEqual([["case", "Pay by card", 2], ["case", "Login works", 2]]);
  const logins = await search('entity = "case" and title ~ "log"', "&limit=1&offset=1");
  expect([logins.body.result.total, logins.body.result.count]).toEqual([3, 1]);
});

test("enum values by number, by Qase's label or alias, and a value outside the enum is a 400", async () => {
  const names = async (query: string) => (await search(query)).body.result.entities.map((c: any) => c.title);
  expect(await names('entity = "case" and project = "SRCH" and severity = 5')).toEqual(["Logout works"]);
  expect(await names('entity = "case" and project = "SRCH" and severity in (2, "minor") order by id')).toEqual(["Login works", "Logout works", "Pay by card"]);
  await h.api("POST", "/case/SRCH", { title: "Blocks release", severity: 1 });
  expect(await names('entity = "case" and severity = "blocker"')).toEqual(["Blocks release"]); // stored as §6.3's "blocked"
  expect((await search('entity = "result" and status = 2')).body.result.entities.map((r: any) => r.case_id)).toEqual([ids[0]]);
  const bad = await search('entity = "case" and severity = "huge"');
  expect([bad.status, bad.body.error.field]).toEqual([400, "query"]);
  expect(bad.body.error.message).toContain("2 = critical");
});

test("runs, results and defects; or / not", async () => {
  expect((await search('entity = "run" and title ~ "night"')).body.result.entities[0]).toMatchObject({ title: "Nightly", status_text: "in_progress" });
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
