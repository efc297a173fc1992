import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { binaryReporterHarness, ROOT } from "./run-reporter";

/**
 * @cucumber/cucumber + cucumberjs-qase-reporter (real packages, run by node as a team would)
 * against the compiled binary: QaseID, QaseTitle, QaseFields, QaseSuite, QaseIgnore, a stale
 * id, Scenario Outline examples as parameters and a step attachment, every value read back
 * through the API; then a second shard into the run the first completed.
 */
let r: Awaited<ReturnType<typeof binaryReporterHarness>>;
let linked: number;
const dir = join(import.meta.dir, "fixtures/cucumber");
const cucumber = (...args: string[]) => [join(ROOT, "node_modules/@cucumber/cucumber/bin/cucumber-js"), "checkout.feature", "--require", "steps.js", "--format", "cucumberjs-qase-reporter", ...args];

beforeAll(async () => {
  r = await binaryReporterHarness();
  // Another project's case 1 comes first: @QaseID=1 must still mean case 1 of the reporter's project.
  await r.api("POST", "/project", { title: "Other", code: "CO" });
  await r.api("POST", "/case/CO", { title: "Other project's case 1" });
  await r.api("POST", "/project", { title: "Cucumber", code: "CU" });
  linked = (await r.api("POST", "/case/CU", { title: "Pay with a card" })).body.result.id;
  expect(linked).toBe(1); // the feature file's @QaseID=1
}, 180_000);
afterAll(() => r?.close());

test("a cucumber run reports every scenario with its tags, outline parameters, steps and attachment, and completes the run", async () => {
  const { ok } = r;
  const log = await r.runNode(cucumber(), dir, {
    QASE_MODE: "testops",
    QASE_TESTOPS_API_HOST: r.base,
    QASE_TESTOPS_API_TOKEN: r.token,
    QASE_TESTOPS_PROJECT: "CU",
    QASE_TESTOPS_RUN_TITLE: "cucumber reporter",
    QASE_TESTOPS_RUN_COMPLETE: "true",
  });
  expect(log).toContain("Run 1 completed");
  expect(log).not.toMatch(/Unable to send|Error on|status code [45]\d\d/i);

  const runs = (await ok("/run/CU?limit=100")).entities;
  expect(runs).toHaveLength(1);
  const [run] = runs;
  expect(run).toMatchObject({ title: "cucumber reporter", status: 1, status_text: "failed", is_autotest: true, stats: { total: 5, passed: 4, failed: 1 } });

  const results = (await ok(`/result/CU?run=${run.id}&limit=100`)).entities as any[];
  expect(results).toHaveLength(5); // @QaseIgnore's scenario ran and was not sent
  expect((await ok("/result/CO")).total).toBe(0);
  const cases = new Map<number, any>();
  for (const c of (await ok("/case/CU?limit=100")).entities) cases.set(c.id, c);
  expect([...cases.values()].map((c) => c.title).sort()).toEqual(["Declined card", "Pay in EUR", "Pay in USD", "Pay with a card", "Refund_to_the_card"]);
  const resultOf = (title: string) => results.find((x) => cases.get(x.case_id)?.title === title);
  const suites = (await ok("/suite/CU?limit=100")).entities as any[];
  const suiteTitle = (id: number | null) => suites.find((s) => s.id === id)?.title ?? null;

  // @QaseID=1: the existing case, its Gherkin steps as result steps, the step's attachment stored.
  const pay = resultOf("Pay with a card");
  expect(pay.case_id).toBe(linked);
  expect(pay.status).toBe("passed");
  expect(pay.steps.map((s: any) => [s.action, s.status])).toEqual([["a cart with 2 items", 1], ["I pay with a card", 1], ["the order is confirmed", 1]]); // 1 = passed
  expect(pay.steps[1].attachments).toHaveLength(1);
  expect(await r.download(pay.steps[1].attachments[0])).toBe("paid for 2 items");
  // The reporter also sends the step's attachment at the result level (cucumber's message names both).
  expect(pay.attachments).toHaveLength(1);
  expect(await r.download(pay.attachments[0])).toBe("paid for 2 items");

  // @QaseTitle, @QaseSuite and @QaseFields on a case the reporter creates.
  const refund = cases.get(resultOf("Refund_to_the_card").case_id);
  expect(refund).toMatchObject({ severity: 2, priority: 1, layer: 1, description: "Money_back", is_automated: true }); // critical, high, e2e
  expect(suiteTitle(refund.suite_id)).toBe("Payments");

  // Scenario Outline: one case per example row, the row's values as the result's parameters.
  expect(resultOf("Pay in EUR").param).toEqual({ currency: "EUR", items: "1" });
  expect(resultOf("Pay in USD").param).toEqual({ currency: "USD", items: "3" });
  expect(cases.get(resultOf("Pay in USD").case_id).params).toEqual({ currency: ["USD"], items: ["3"] });
  expect(suiteTitle(cases.get(resultOf("Pay in EUR").case_id).suite_id)).toBe("Payments");
  expect(suites.filter((s) => s.title === "Payments")).toHaveLength(1);

  // A stale @QaseID: the result is kept on a case made from its signature, with the reason.
  const declined = resultOf("Declined card");
  expect(declined).toMatchObject({ status: "failed", unlinked_reason: expect.stringContaining("987654") });
  expect(declined.comment).toContain("the card was declined");
  expect(declined.steps.map((s: any) => s.status)).toEqual([1, 1, 2]); // the Then step failed
  // Gherkin forbids whitespace in a tag: the documented `@QaseSuite=Payments\tCards` arrives as one title.
  expect(suiteTitle(cases.get(declined.case_id).suite_id)).toBe("Payments\\tCards");
}, 120_000);

test("a second cucumber shard reports into the run the first completed (QASE_TESTOPS_RUN_ID)", async () => {
  const { ok } = r;
  const [run] = (await ok("/run/CU?limit=100")).entities;
  const log = await r.runNode(cucumber("--name", "^Pay with a card$"), dir, {
    QASE_MODE: "testops",
    QASE_TESTOPS_API_HOST: r.base,
    QASE_TESTOPS_API_TOKEN: r.token,
    QASE_TESTOPS_PROJECT: "CU",
    QASE_TESTOPS_RUN_ID: String(run.id),
    QASE_TESTOPS_RUN_COMPLETE: "true",
  });
  // A 409 as a word: the run link's port once read 127.0.0.1:40929.
  expect(log).not.toMatch(/\b409\b|Error on completing run|Unable to send/);
  const after = (await ok("/run/CU?limit=100")).entities;
  expect(after).toHaveLength(1);
  // Stats count each case's latest result: the rerun case stays one passed case of five.
  expect(after[0]).toMatchObject({ id: run.id, status: 1, end_time: run.end_time, stats: { total: 5, passed: 4, failed: 1 } });
  const linkedResults = (await ok(`/result/CU?run=${run.id}&limit=100`)).entities.filter((x: any) => x.case_id === linked);
  expect(linkedResults.map((x: any) => x.status)).toEqual(["passed", "passed"]);
}, 120_000);
