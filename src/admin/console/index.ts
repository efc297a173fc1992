/**
 * The admin console at /console: one static page and a few ES modules (plain browser JavaScript,
 * no framework, no build step), embedded in the executable as text, working with no internet.
 * The admin signs in with GATEHOUSE_ADMIN_TOKEN; the page calls the admin API with it. Nothing
 * here is privileged: the page is public, the data is behind the admin API's bearer check.
 * docs/console.md describes the pages; README says why plain modules.
 */
import { gzipSync } from "node:zlib";
import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import pageTemplate from "./console.html" with { type: "text" };
import css from "./console.css" with { type: "text" };
import favicon from "./favicon.svg" with { type: "text" };
import app from "./app.mjs" with { type: "text" };
import apiModule from "./api.mjs" with { type: "text" };
import dom from "./dom.mjs" with { type: "text" };
import scim from "./scim.mjs" with { type: "text" };
import provisioning from "./provisioning.mjs" with { type: "text" };
import directory from "./directory.mjs" with { type: "text" };
import apiTokens from "./api-tokens.mjs" with { type: "text" };
import webhooks from "./webhooks.mjs" with { type: "text" };
import deliveries from "./deliveries.mjs" with { type: "text" };
import instance from "./instance.mjs" with { type: "text" };
import workspaces from "./workspaces.mjs" with { type: "text" };
import audit from "./audit.mjs" with { type: "text" };
import adminTokens from "./admin-tokens.mjs" with { type: "text" };

// The page may load and call nothing but this origin; no inline script or style at all.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join("; ");

/** Every file the page loads, by its path under /console/. */
const MODULES: Record<string, string> = {
  "app.mjs": app,
  "api.mjs": apiModule,
  "dom.mjs": dom,
  "scim.mjs": scim,
  "provisioning.mjs": provisioning,
  "directory.mjs": directory,
  "api-tokens.mjs": apiTokens,
  "webhooks.mjs": webhooks,
  "deliveries.mjs": deliveries,
  "instance.mjs": instance,
  "workspaces.mjs": workspaces,
  "audit.mjs": audit,
  "admin-tokens.mjs": adminTokens,
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function consoleRoutes(ctx: AppContext) {
  // bun-types types every .html import as an HTML bundle; with { type: "text" } it is a string.
  const html = pageTemplate as unknown as string;
  const page = html.replace('<span id="version" class="muted"></span>', `<span id="version" class="muted">${escapeHtml(ctx.version)}</span>`);
  const headers = (type: string, gzipped = false) => ({
    "content-type": `${type}; charset=utf-8`,
    ...(gzipped ? { "content-encoding": "gzip" } : {}),
    vary: "accept-encoding",
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
  });
  const files = new Map<string, [string, string]>([
    ["console.css", [css, "text/css"]],
    ["favicon.svg", [favicon, "image/svg+xml"]],
    ...Object.entries(MODULES).map(([name, text]): [string, [string, string]] => [name, [text, "text/javascript"]]),
  ]);
  // Compressed once at start: the whole console is ~75 KB as text, ~20 KB gzipped.
  const serve = (body: string, type: string) => {
    const gzipped = gzipSync(body, { level: 9 });
    return ({ request }: { request: Request }) =>
      /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "") ? new Response(gzipped, { headers: headers(type, true) }) : new Response(body, { headers: headers(type) });
  };
  const app = new Elysia({ name: "console" }).get("/console", serve(page, "text/html"), { detail: { hide: true } });
  for (const [name, [body, type]] of files) app.get(`/console/${name}`, serve(body, type), { detail: { hide: true } });
  return app;
}
