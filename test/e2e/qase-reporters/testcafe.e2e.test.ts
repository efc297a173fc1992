import { afterAll, beforeAll, expect, test } from "bun:test";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { CHROMIUM_PATH } from "../browser/chromium";
import { binaryReporterHarness, ROOT } from "./run-reporter";

/**
 * testcafe + testcafe-reporter-qase (real packages, run by node as a team would) driving
 * Debian's headless `chromium` against a page this test serves on 127.0.0.1, reporting to the
 * compiled binary; every value read back through the API.
 */
let r: Awaited<ReturnType<typeof binaryReporterHarness>>;
let shop: ReturnType<typeof Bun.serve>;
let linked: number;
let shopHits = 0;
// Chromium sends everything not on loopback to this "proxy", which records its request line and refuses it.
let guard: Server;
const outside: string[] = [];

// The page under test: a counter and a total, nothing loaded from elsewhere.
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Shop</title></head><body>
<h1>Shop</h1><button id="add">Add</button> <span id="count">0</span> <span id="total">0 EUR</span>
<script>let n = 0; document.getElementById("add").onclick = () => { n++; document.getElementById("count").textContent = String(n); document.getElementById("total").textContent = n * 10 + " EUR"; };</script>
</body></html>`;

beforeAll(async () => {
  r = await binaryReporterHarness();
  shop = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: () => {
      shopHits++;
      return new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  guard = createServer((socket) => {
    socket.once("data", (chunk) => {
      outside.push(chunk.toString("latin1").split("\r\n")[0]!);
      socket.end("HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n");
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((done) => guard.listen(0, "127.0.0.1", done));
  await r.api("POST", "/project", { title: "TestCafe", code: "TC" });
  linked = (await r.api("POST", "/case/TC", { title: "Add a product" })).body.result.id;
}, 180_000);
afterAll(async () => {
  shop?.stop(true);
  guard?.close();
  await r?.close();
});

test("a testcafe run in headless chromium reports every result with steps, attachment, fields, suite and parameters, and completes the run", async () => {
  const { ok } = r;
  const dir = join(import.meta.dir, "fixtures/testcafe");
  // Loopback bypasses the proxy (Chromium's implicit rule); anything else meets the guard. The other
  // flags keep the browser itself quiet: no first-run, sync, component or background fetches.
  const { port } = guard.address() as { port: number };
  const browser = `chromium:${CHROMIUM_PATH}:headless --no-sandbox --disable-dev-shm-usage --proxy-server=http://127.0.0.1:${port} --disable-component-update --disable-domain-reliability --disable-client-side-phishing-detection --no-pings --homepage=about:blank`;
  const log = await r.runNode(
    [join(ROOT, "node_modules/testcafe/bin/testcafe.js"), browser, "shop.testcafe.js", "--hostname", "127.0.0.1", "-r", "spec,qase", "--disable-screenshots"],
    dir,
    {
      SHOP_URL: `http://127.0.0.1:${shop.port}/`,
      LINKED_CASE_ID: String(linked),
      QASE_MODE: "testops",
      QASE_TESTOPS_API_HOST: r.base,
      QASE_TESTOPS_API_TOKEN: r.token,
      QASE_TESTOPS_PROJECT: "TC",
      QASE_TESTOPS_RUN_TITLE: "testcafe reporter",
      QASE_TESTOPS_RUN_COMPLETE: "true",
    },
  );
  expect(log).toContain("1/4 failed");
  expect(log).toContain("Run 1 completed");
  expect(log).not.toMatch(/Unable to send|Error on|status code [45]\d\d/i);

  // The page came from loopback; nothing else the run asked for left it. Debian's chromium still
  // makes its own calls (component updater, network time, its start page's search engine) that
  // testcafe's --disable-background-networking does not stop: the guard refused every one, and
  // any destination other than those vendors' fails here.
  expect(shopHits).toBeGreaterThan(0);
  const hosts = outside.map((line) => /^[A-Z]+ (?:https?:\/\/)?([^/: ]+)/.exec(line)?.[1] ?? line);
  expect(hosts.filter((h) => !/(^|\.)(google\.com|googleapis\.com|gstatic\.com|duckduckgo\.com)$/.test(h))).toEqual([]);

  const runs = (await ok("/run/TC?limit=100")).entities;
  expect(runs).toHaveLength(1);
  const [run] = runs;
  expect(run).toMatchObject({ title: "testcafe reporter", status: 1, status_text: "failed", is_autotest: true, stats: { total: 3, passed: 2, failed: 1 } });

  const results = (await ok(`/result/TC?run=${run.id}&limit=100`)).entities as any[];
  expect(results).toHaveLength(3); // qase.ignore()'s test ran and was not sent
  const cases = new Map<number, any>();
  for (const c of (await ok("/case/TC?limit=100")).entities) cases.set(c.id, c);
  const resultOf = (title: string) => results.find((x) => cases.get(x.case_id)?.title === title);
  const suites = (await ok("/suite/TC?limit=100")).entities as any[];

  // qase.id: the existing case, nested qase.step steps, the attachment's bytes.
  const add = resultOf("Add a product");
  expect(add.case_id).toBe(linked);
  expect(add.status).toBe("passed");
  expect(add.steps).toMatchObject([{ action: "Open the product", status: 1, steps: [{ action: "Press add", status: 1 }] }]); // 1 = passed
  expect(add.attachments).toHaveLength(1);
  expect(await r.download(add.attachments[0])).toBe("one item");

  // qase.title, a tab-nested qase.suite, fields and parameters on a case the reporter creates.
  const total = resultOf("Checkout shows the total");
  expect(total.param).toEqual({ Currency: "EUR" });
  const created = cases.get(total.case_id);
  expect(created).toMatchObject({ priority: 1, layer: 1, description: "The total in the chosen currency", is_automated: true, params: { Currency: ["EUR"] } }); // high, e2e
  const shopSuite = suites.find((s) => s.title === "Shop" && s.parent_id === null);
  const checkout = suites.find((s) => s.title === "Checkout");
  expect(checkout.parent_id).toBe(shopSuite.id);
  expect(created.suite_id).toBe(checkout.id);
  expect(suites.filter((s) => s.title === "Shop")).toHaveLength(1); // the fixture's suite is reused, not duplicated

  // A stale qase.id: the result is kept on a case made from its signature, with the reason and the assertion.
  const stale = resultOf("has a stale annotation");
  expect(stale).toMatchObject({ status: "failed", unlinked_reason: expect.stringContaining("424242") });
  expect(stale.comment).toContain("expected '0' to deeply equal '2'");
  expect(cases.get(stale.case_id).suite_id).toBe(shopSuite.id);
}, 240_000);
