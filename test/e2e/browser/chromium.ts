/**
 * The one way tests drive a real browser: playwright-core over Debian's `chromium` package
 * (installed by .ci/run when missing; `GATEHOUSE_TEST_CHROMIUM` points elsewhere). Every page
 * opened here runs with a network guard: a request to anything but a loopback address is
 * aborted before it leaves the machine and recorded in `outsideRequests`, so a test can assert
 * that the page works offline. Screenshots go to `test-artifacts/<suite>/` (kept by CI, ignored
 * by git).
 */
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from "playwright-core";

export const CHROMIUM_PATH = process.env.GATEHOUSE_TEST_CHROMIUM ?? "/usr/bin/chromium";
export const ARTIFACTS_DIR = join(import.meta.dir, "../../../test-artifacts");

/** True for URLs that stay on this machine (loopback hosts, data:, blob:, about:). */
export function isLocalUrl(raw: string): boolean {
  const url = new URL(raw);
  if (url.protocol === "data:" || url.protocol === "blob:" || url.protocol === "about:") return true;
  const host = url.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  return host === "localhost" || host.endsWith(".localhost") || host === "::1" || /^127(\.\d{1,3}){3}$/.test(host);
}

export type GuardedBrowser = {
  browser: Browser;
  /** URLs the pages tried to reach outside loopback (all were aborted). */
  outsideRequests: string[];
  /** A fresh context (own storage) with the network guard; options as Playwright's. */
  newContext(options?: BrowserContextOptions): Promise<BrowserContext>;
  /** A page in a fresh guarded context. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** Writes `test-artifacts/<suite>/<name>.png` and returns its path. */
  screenshot(page: Page, suite: string, name: string, fullPage?: boolean): Promise<string>;
  close(): Promise<void>;
};

export async function launchBrowser(): Promise<GuardedBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    // Containers run as root without a user namespace sandbox; /dev/shm is often tiny.
    args: ["--no-sandbox", "--disable-dev-shm-usage", "--no-first-run", "--disable-background-networking"],
  });
  const outsideRequests: string[] = [];
  const newContext = async (options?: BrowserContextOptions) => {
    const context = await browser.newContext(options);
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (isLocalUrl(url)) return route.continue();
      outsideRequests.push(url);
      return route.abort("blockedbyclient");
    });
    return context;
  };
  return {
    browser,
    outsideRequests,
    newContext,
    async newPage(options) {
      return (await newContext(options)).newPage();
    },
    async screenshot(page, suite, name, fullPage = true) {
      const dir = join(ARTIFACTS_DIR, suite);
      mkdirSync(dir, { recursive: true });
      const path = join(dir, `${name}.png`);
      await page.screenshot({ path, fullPage });
      return path;
    },
    close: () => browser.close(),
  };
}
