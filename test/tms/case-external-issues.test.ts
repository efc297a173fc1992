import { afterAll, expect, test } from "bun:test";
import { CasesApi, ProjectsApi, TestCaseExternalIssuesTypeEnum } from "qase-api-client";
import { qaseClientHarness } from "./harness";

/** Case external issues through qase-api-client's CasesApi: attach, detach, include, the list filters. */
const { h, v1, close } = await qaseClientHarness();
afterAll(close);
const cases = new CasesApi(v1);
await new ProjectsApi(v1).createProject({ title: "Issues", code: "XI" });
const c1 = (await cases.createCase("XI", { title: "One" })).data.result!.id!;
const c2 = (await cases.createCase("XI", { title: "Two" })).data.result!.id!;
const c3 = (await cases.createCase("XI", { title: "Three" })).data.result!.id!;
const JIRA = TestCaseExternalIssuesTypeEnum.JIRA_CLOUD;
const listed = async (type?: string, ids?: string[]) =>
  (await cases.getCases("XI", undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, undefined, type as never, ids, "external_issues")).data.result!.entities!;

test("attach links issues to cases (each once); include=external_issues shows them, grouped by tracker, and only then", async () => {
  await h.clear();
  expect((await cases.caseAttachExternalIssue("XI", { type: JIRA, links: [{ case_id: c1, external_issues: ["SHOP-1", " SHOP-2 ", "SHOP-1"] }, { case_id: c2, external_issues: ["SHOP-2"] }] })).data).toEqual({ status: true });
  await cases.caseAttachExternalIssue("XI", { type: JIRA, links: [{ case_id: c1, external_issues: ["SHOP-2"] }] }); // already linked: kept once
  await cases.caseAttachExternalIssue("XI", { type: TestCaseExternalIssuesTypeEnum.JIRA_SERVER, links: [{ case_id: c1, external_issues: ["https://jira.example/browse/OPS-9"] }] });
  expect((await cases.getCase("XI", c1, "external_issues")).data.result!.external_issues).toEqual([
    { type: "jira-cloud", issues: [{ id: "SHOP-1" }, { id: "SHOP-2" }] },
    { type: "jira-server", issues: [{ id: "https://jira.example/browse/OPS-9", link: "https://jira.example/browse/OPS-9" }] },
  ]);
  expect((await cases.getCase("XI", c1)).data.result!.external_issues).toBeUndefined();
  expect((await listed()).map((c) => [c.id, c.external_issues!.flatMap((g) => g.issues!.map((i) => i.id))])).toEqual([[c1, ["SHOP-1", "SHOP-2", "https://jira.example/browse/OPS-9"]], [c2, ["SHOP-2"]], [c3, []]]);
  expect(await h.inbox()).toEqual([]); // no event: the catalog has none
});

test("the case list filters by tracker and by issue ids (repeated or comma-separated)", async () => {
  expect((await listed("jira-cloud")).map((c) => c.id)).toEqual([c1, c2]);
  expect((await listed("jira-server")).map((c) => c.id)).toEqual([c1]);
  expect((await listed("github-app")).map((c) => c.id)).toEqual([]);
  expect((await listed(undefined, ["SHOP-2"])).map((c) => c.id)).toEqual([c1, c2]);
  expect((await listed("jira-cloud", ["SHOP-1", "NOPE"])).map((c) => c.id)).toEqual([c1]);
  const csv = await h.api("GET", `/case/XI?${encodeURIComponent("external_issues[ids][]")}=SHOP-1,SHOP-2`);
  expect(csv.body.result.entities.map((c: any) => c.id)).toEqual([c1, c2]);
  const bad = await h.api("GET", `/case/XI?${encodeURIComponent("external_issues[type]")}=bugzilla`);
  expect([bad.status, bad.body.error.field]).toEqual([400, "external_issues[type]"]);
});

test("detach unlinks the named issues, or every issue of the type when none is named", async () => {
  await cases.caseDetachExternalIssue("XI", { type: JIRA, links: [{ case_id: c1, external_issues: ["SHOP-1", "NEVER-LINKED"] }] });
  expect((await cases.getCase("XI", c1, "external_issues")).data.result!.external_issues!.map((g) => [g.type, g.issues!.map((i) => i.id)])).toEqual([["jira-cloud", ["SHOP-2"]], ["jira-server", ["https://jira.example/browse/OPS-9"]]]);
  await cases.caseDetachExternalIssue("XI", { type: JIRA, links: [{ case_id: c1, external_issues: [] }, { case_id: c2, external_issues: [] }] });
  expect((await listed("jira-cloud")).map((c) => c.id)).toEqual([]);
  expect((await listed("jira-server")).map((c) => c.id)).toEqual([c1]);
});

test("bad requests are 400s naming the field and change nothing; a deleted case is not linked; an unknown project is a 404", async () => {
  const refused = async (body: unknown, code = "XI") => {
    const r = await h.api("POST", `/case/${code}/external-issue/attach`, body);
    return [r.status, r.body.error?.field];
  };
  expect(await refused({ type: "jira-cloud", links: [{ case_id: c2, external_issues: ["A-1"] }, { case_id: 999, external_issues: ["A-1"] }] })).toEqual([400, "links.1.case_id"]);
  expect(await refused({ type: "jira-cloud", links: [{ case_id: c2, external_issues: ["   "] }] })).toEqual([400, "links.0.external_issues.0"]);
  expect((await refused({ type: "github", links: [{ case_id: c2, external_issues: ["A-1"] }] }))[0]).toBe(400);
  expect((await refused({ type: "jira-cloud", links: [] }))[0]).toBe(400);
  expect((await listed("jira-cloud")).map((c) => c.id)).toEqual([]); // the first link of the refused request was not kept
  await h.api("DELETE", `/case/XI/${c3}`);
  expect(await refused({ type: "jira-cloud", links: [{ case_id: c3, external_issues: ["A-1"] }] })).toEqual([400, "links.0.case_id"]); // deleted
  expect((await h.api("POST", "/case/NOPE/external-issue/detach", { type: "jira-cloud", links: [{ case_id: 1, external_issues: [] }] })).status).toBe(404);
});
