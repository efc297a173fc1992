import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { reporterHarness, ROOT } from "./run-reporter";

/**
 * jest + jest-qase-reporter (real packages, run by node as a team would) against a listening
 * Gatehouse, with the options that used to break a run: an environment, configurations, an
 * external link, fields, parameters, nested steps, the same title in two describe blocks and a
 * case id that does not exist — in a project whose case numbers another project also uses.
 * Everything is read back through the API.
 */
let r: Awaited<ReturnType<typeof reporterHarness>>;
let linked: number;
beforeAll(async () => {
  r = await reporterHarness();
  const { h } = r;
  // Another project's cases come first: qase.id(1) must still mean case 1 of the reporter's project.
  await h.api("POST", "/project", { title: "Other", code: "JO" });
  for (const title of ["Other project's case 1", "Other project's case 2"]) await h.api("POST", "/case/JO", { title });
  await h.api("POST", "/project", { title: "Jest", code: "JR" });
  linked = (await h.api("POST", "/case/JR", { title: "Pay with a card" })).body.result.id;
  expect(linked).toBe(1);
  await h.api("POST", "/environment/JR", { title: "Staging", slug: "staging" });
}, 60_000); // a fresh database of its own on the PostgreSQL run: seconds on a loaded machine
afterAll(() => r.close());

const jest = [join(ROOT, "node_modules/jest/bin/jest.js"), "--config", join(import.meta.dir, "fixtures/jest/jest.config.js"), "--ci", "--no-watchman", "--cache=false"];

test("a jest run reports every result with its environment, configurations, link, steps, fields and parameters", async () => {
  const { h, ok } = r;
  const log = await r.runNode([...jest, "checkout"], join(import.meta.dir, "fixtures/jest"), {
    LINKED_CASE_ID: String(linked),
    QASE_MODE: "testops",
    QASE_TESTOPS_API_HOST: `${r.base}/api`,
    QASE_TESTOPS_API_TOKEN: h.token,
    QASE_TESTOPS_PROJECT: "JR",
    QASE_TESTOPS_RUN_TITLE: "jest reporter",
    QASE_TESTOPS_RUN_COMPLETE: "true",
    QASE_ENVIRONMENT: "staging",
    QASE_TESTOPS_RUN_EXTERNAL_LINK: JSON.stringify({ type: "jiraCloud", link: "https://acme.atlassian.net/browse/QA-7" }),
    QASE_TESTOPS_CONFIGURATIONS_VALUES: "Browser=Chrome,OS=Linux",
    QASE_TESTOPS_CONFIGURATIONS_CREATE_IF_NOT_EXISTS: "true",
  });
  expect(log).toContain("Tests:       1 failed, 4 passed, 5 total");

  const runs = (await ok("/run/JR?limit=100")).entities;
  expect(runs).toHaveLength(1);
  const run = runs[0];
  expect(run).toMatchObject({ title: "jest reporter", status_text: "failed", environment: { slug: "staging", title: "Staging" } });
  expect(run.external_issue).toMatchObject({ type: "jira-cloud", link: "https://acme.atlassian.net/browse/QA-7" });
  const groups = (await ok("/configuration/JR")).entities;
  expect(groups.map((g: any) => `${g.title}=${g.configurations.map((c: any) => c.title).join("|")}`).sort()).toEqual(["Browser=Chrome", "OS=Linux"]);
  expect(run.configurations.sort()).toEqual(groups.flatMap((g: any) => g.configurations.map((c: any) => c.id)).sort());

  const results = (await ok(`/result/JR?run=${run.id}&limit=100`)).entities as any[];
  expect(results).toHaveLength(5);
  const caseOf = async (r: any) => ok(`/case/JR/${r.case_id}`);
  const titles = await Promise.all(results.map(async (r) => [(await caseOf(r)).title, r] as const));
  const byTitle = (t: string) => titles.filter(([title]) => title === t).map(([, r]) => r);

  const [pay] = byTitle("Pay with a card");
  expect(pay.status).toBe("passed");
  expect(pay.steps).toMatchObject([{ action: "Open the checkout", expected_result: "The form is shown", data: "/checkout", status: 1, steps: [{ action: "Type the card number", status: 1 }] }]); // 1 = passed
  // Attachments were uploaded and are referenced by the result and its step.
  const download = async (id: number) => (await h.t.request("GET", `/api/v1/attachment/${id}/file`, { headers: { token: h.token } })).text();
  expect(pay.attachments).toHaveLength(1);
  expect(await download(pay.attachments[0])).toBe("paid 10 EUR");
  expect(pay.steps[0].attachments).toHaveLength(1);
  expect(await download(pay.steps[0].attachments[0])).toBe("<form></form>");

  // The same title in two describe blocks is two cases (the reporter's signature), each linked to a suite.
  const logins = byTitle("logs in");
  expect(logins).toHaveLength(2);
  expect(new Set(logins.map((r) => r.case_id)).size).toBe(2);

  // The other project's case 1 got nothing.
  expect((await ok("/result/JO")).total).toBe(0);

  const [stale] = byTitle("has a stale annotation");
  expect(stale.status).toBe("failed");
  expect(stale.unlinked_reason).toContain("987654");

  const [euros] = byTitle("pays in euros");
  expect(euros.param).toEqual({ Currency: "EUR" });
  expect(await caseOf(euros)).toMatchObject({ priority: 1, description: "Checkout in another currency", layer: 1, is_automated: true, params: { Currency: ["EUR"] } });
}, 120_000);

test("a second shard reports into the run the first completed (QASE_TESTOPS_RUN_ID); qase.suite with tabs is a suite path", async () => {
  const { h, ok } = r;
  const [run] = (await ok("/run/JR?limit=100")).entities;
  expect(run.status).toBe(1); // completed by the first test's jest run
  const billing = (await h.api("POST", "/suite/JR", { title: "Billing" })).body.result.id;
  await h.clear();
  const log = await r.runNode([...jest, "shard"], join(import.meta.dir, "fixtures/jest"), {
    QASE_MODE: "testops",
    QASE_TESTOPS_API_HOST: `${r.base}/api`,
    QASE_TESTOPS_API_TOKEN: h.token,
    QASE_TESTOPS_PROJECT: "JR",
    QASE_TESTOPS_RUN_ID: String(run.id),
    QASE_TESTOPS_RUN_COMPLETE: "true",
  });
  expect(log).toContain("Tests:       1 failed, 1 passed, 2 total");
  // A 409 as a word: the run link's port once read 127.0.0.1:40929.
  expect(log).not.toMatch(/\b409\b|Error on completing run|Unable to send/);

  const after = (await ok("/run/JR?limit=100")).entities;
  expect(after).toHaveLength(1);
  expect(after[0]).toMatchObject({ id: run.id, status: 1, end_time: run.end_time, stats: { total: run.stats.total + 2, passed: run.stats.passed + 1, failed: run.stats.failed + 1 } });
  const results = (await ok(`/result/JR?run=${run.id}&limit=100`)).entities as any[];
  expect(results).toHaveLength(7);

  // Suites: the existing root "Billing" is reused; each tab-separated title is a level under it.
  const suites = (await ok("/suite/JR?limit=100")).entities as any[];
  const child = (parent: number | null, title: string) => suites.filter((s) => s.parent_id === parent && s.title === title);
  expect(child(null, "Billing").map((s) => s.id)).toEqual([billing]);
  const [renewals] = child(billing, "Renewals");
  const [cancellations] = child(billing, "Cancellations");
  const [refunds] = child(cancellations.id, "Refunds");
  expect(suites.some((s) => s.title.includes("\t"))).toBe(false);
  const caseIn = async (title: string) => (await ok(`/case/JR?search=${encodeURIComponent(title)}`)).entities[0];
  expect((await caseIn("renews a subscription")).suite_id).toBe(renewals.id);
  expect((await caseIn("cancels a subscription")).suite_id).toBe(refunds.id);
  const events = (await h.inbox()).map((e) => e.event);
  expect(events.filter((e) => e === "suite.created")).toHaveLength(3);
  expect(events.filter((e) => e.startsWith("run."))).toEqual([]);
}, 120_000);
