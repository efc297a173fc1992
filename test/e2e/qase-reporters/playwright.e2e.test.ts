import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { binaryReporterHarness, ROOT } from "./run-reporter";

/**
 * @playwright/test + playwright-qase-reporter (real packages, run by node; no browser: the tests
 * ask for no page) against the compiled binary at the root mount (on the run's engine), read back
 * through the API.
 */
let r: Awaited<ReturnType<typeof binaryReporterHarness>>;
let linked: number;
beforeAll(async () => {
  r = await binaryReporterHarness();
  await r.api("POST", "/project", { title: "Playwright", code: "PW" });
  linked = (await r.api("POST", "/case/PW", { title: "Find a product" })).body.result.id;
  await r.api("POST", "/environment/PW", { title: "Preview", slug: "preview" });
}, 120_000);
afterAll(() => r.close());

test("a playwright run reports every result, nested steps and a stale case id included, and completes the run", async () => {
  const { ok } = r;
  const dir = join(import.meta.dir, "fixtures/playwright");
  const log = await r.runNode([join(ROOT, "node_modules/@playwright/test/cli.js"), "test", "--config", join(dir, "playwright.config.js"), "search.pw"], dir, {
    LINKED_CASE_ID: String(linked),
    QASE_MODE: "testops",
    // The root mount: the reporter appends /v1 and /v2 itself.
    QASE_TESTOPS_API_HOST: r.base,
    QASE_TESTOPS_API_TOKEN: r.token,
    QASE_TESTOPS_PROJECT: "PW",
    QASE_TESTOPS_RUN_TITLE: "playwright reporter",
    QASE_TESTOPS_RUN_COMPLETE: "true",
    QASE_ENVIRONMENT: "preview",
  });
  expect(log).toMatch(/1 failed[\s\S]*3 passed/);

  const runs = (await ok("/run/PW?limit=100")).entities;
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ title: "playwright reporter", status_text: "failed", environment: { slug: "preview" }, stats: { total: 4, passed: 3, failed: 1 } });

  const results = (await ok(`/result/PW?run=${runs[0].id}&limit=100`)).entities as any[];
  expect(results).toHaveLength(4);
  const linkedResult = results.find((r) => r.case_id === linked);
  expect(linkedResult.steps).toMatchObject([{ action: "Type a query", status: 1, steps: [{ action: "Press enter", status: 1 }] }]); // 1 = passed
  const stale = results.find((r) => r.unlinked_reason);
  expect(stale.unlinked_reason).toContain("424242");
  expect((await ok(`/case/PW/${stale.case_id}`)).title).toBe("remembers the last query");
  // "shows suggestions" in two describe blocks: two cases.
  const suggestions = [];
  for (const r of results) if ((await ok(`/case/PW/${r.case_id}`)).title === "shows suggestions") suggestions.push(r);
  expect(new Set(suggestions.map((r) => r.case_id)).size).toBe(2);
  expect(suggestions.find((r) => r.status === "passed").param).toEqual({ Locale: "de" });
}, 120_000);

test("a second shard reports into the run the first completed (QASE_TESTOPS_RUN_ID); qase.suite with tabs is a suite path", async () => {
  const { ok } = r;
  const dir = join(import.meta.dir, "fixtures/playwright");
  const [run] = (await ok("/run/PW?limit=100")).entities;
  expect(run.status).toBe(1);
  const catalog = (await r.api("POST", "/suite/PW", { title: "Catalog" })).body.result.id;
  const log = await r.runNode([join(ROOT, "node_modules/@playwright/test/cli.js"), "test", "--config", join(dir, "playwright.config.js"), "shard.pw"], dir, {
    QASE_MODE: "testops",
    QASE_TESTOPS_API_HOST: r.base,
    QASE_TESTOPS_API_TOKEN: r.token,
    QASE_TESTOPS_PROJECT: "PW",
    QASE_TESTOPS_RUN_ID: String(run.id),
    QASE_TESTOPS_RUN_COMPLETE: "true",
  });
  expect(log).toMatch(/1 passed/);
  // A 409 as a word: the run link's port once read 127.0.0.1:40929.
  expect(log).not.toMatch(/\b409\b|Error on completing run|Unable to send/);
  const [after] = (await ok("/run/PW?limit=100")).entities;
  expect(after).toMatchObject({ id: run.id, status: 1, stats: { total: 5, passed: 4, failed: 1 } });
  const suites = (await ok("/suite/PW?limit=100")).entities as any[];
  const filters = suites.filter((s) => s.title === "Filters");
  expect(filters.map((s) => s.parent_id)).toEqual([catalog]);
  expect(suites.filter((s) => s.title === "Catalog")).toHaveLength(1);
  const [c] = (await ok("/case/PW?search=filters%20by%20brand")).entities;
  expect(c.suite_id).toBe(filters[0].id);
}, 120_000);
