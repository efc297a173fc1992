import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { tmsHarness, type Harness } from "../harness";

/**
 * @playwright/test + playwright-qase-reporter (real packages, run by node; no browser: the tests
 * ask for no page) against a listening Gatehouse at the root mount, read back through the API.
 */
let h: Harness;
let server: ReturnType<typeof Bun.serve>;
let linked: number;
beforeAll(async () => {
  h = await tmsHarness();
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.t.app.handle(req) });
  await h.api("POST", "/project", { title: "Playwright", code: "PW" });
  linked = (await h.api("POST", "/case/PW", { title: "Find a product" })).body.result.id;
  await h.api("POST", "/environment/PW", { title: "Preview", slug: "preview" });
});
afterAll(async () => {
  server.stop(true);
  await h.close();
});

const ok = async (path: string) => {
  const r = await h.api("GET", path);
  if (r.status !== 200) throw new Error(`${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};

test("a playwright run reports every result, nested steps and a stale case id included, and completes the run", async () => {
  const root = join(import.meta.dir, "../../..");
  const dir = join(import.meta.dir, "fixtures/playwright");
  const proc = Bun.spawn(["node", join(root, "node_modules/@playwright/test/cli.js"), "test", "--config", join(dir, "playwright.config.js")], {
    cwd: dir,
    env: {
      PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp",
      LINKED_CASE_ID: String(linked),
      QASE_MODE: "testops",
      // The root mount: the reporter appends /v1 and /v2 itself.
      QASE_TESTOPS_API_HOST: `http://127.0.0.1:${server.port}`,
      QASE_TESTOPS_API_TOKEN: h.token,
      QASE_TESTOPS_PROJECT: "PW",
      QASE_TESTOPS_RUN_TITLE: "playwright reporter",
      QASE_TESTOPS_RUN_COMPLETE: "true",
      QASE_ENVIRONMENT: "preview",
    },
    stdout: "pipe", stderr: "pipe",
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  expect(`${out}\n${err}`).toMatch(/1 failed[\s\S]*3 passed/);

  const runs = (await ok("/run/PW?limit=100")).entities;
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ title: "playwright reporter", status_text: "completed", environment: { slug: "preview" }, stats: { total: 4, passed: 3, failed: 1 } });

  const results = (await ok(`/result/PW?run=${runs[0].id}&limit=100`)).entities as any[];
  expect(results).toHaveLength(4);
  const linkedResult = results.find((r) => r.case_id === linked);
  expect(linkedResult.steps).toMatchObject([{ action: "Type a query", status: "passed", steps: [{ action: "Press enter", status: "passed" }] }]);
  const stale = results.find((r) => r.unlinked_reason);
  expect(stale.unlinked_reason).toContain("424242");
  expect((await ok(`/case/PW/${stale.case_id}`)).title).toBe("remembers the last query");
  // "shows suggestions" in two describe blocks: two cases.
  const suggestions = [];
  for (const r of results) if ((await ok(`/case/PW/${r.case_id}`)).title === "shows suggestions") suggestions.push(r);
  expect(new Set(suggestions.map((r) => r.case_id)).size).toBe(2);
  expect(suggestions.find((r) => r.status === "passed").param).toEqual({ Locale: "de" });
}, 120_000);
