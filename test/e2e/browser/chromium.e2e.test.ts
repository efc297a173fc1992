import { afterAll, beforeAll, expect, test } from "bun:test";
import { isLocalUrl, launchBrowser, type GuardedBrowser } from "./chromium";

let guarded: GuardedBrowser;
let server: ReturnType<typeof Bun.serve>;

beforeAll(async () => {
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () =>
      new Response(`<!doctype html><title>probe</title><p id="p">local</p><img src="https://example.com/x.png">`, {
        headers: { "content-type": "text/html" },
      }),
  });
  guarded = await launchBrowser();
});
afterAll(async () => {
  await guarded?.close();
  server?.stop(true);
});

test("isLocalUrl accepts loopback only", () => {
  for (const u of ["http://127.0.0.1:1/", "http://localhost/", "http://[::1]:8/", "http://a.localhost/", "data:text/plain,x"])
    expect(isLocalUrl(u)).toBe(true);
  for (const u of ["https://example.com/", "http://10.0.0.1/", "http://128.0.0.1/", "http://localhost.example.com/"])
    expect(isLocalUrl(u)).toBe(false);
});

test("a guarded page renders local content and aborts requests that would leave the machine", async () => {
  const page = await guarded.newPage();
  await page.goto(`http://127.0.0.1:${server.port}/`);
  expect(await page.textContent("#p")).toBe("local");
  await page.waitForLoadState("networkidle");
  expect(guarded.outsideRequests).toEqual(["https://example.com/x.png"]);
  await page.context().close();
}, 30_000);
