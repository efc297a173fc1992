/**
 * The admin console at /console: one static page (HTML + a script + a stylesheet, embedded in the
 * executable as text) that works with no internet. The admin pastes GATEHOUSE_ADMIN_TOKEN; the
 * page calls the admin API with it (SCIM switch, seats and tokens; webhook subscriptions, failed
 * deliveries, redelivery). Nothing here is privileged: the page is public, the data is behind
 * the admin API's bearer check.
 */
import { Elysia } from "elysia";
import type { AppContext } from "../context";
import pageTemplate from "./console/console.html" with { type: "text" };
import css from "./console/console.css" with { type: "text" };
import script from "./console/console.js" with { type: "text" };

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

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

export function consoleRoutes(ctx: AppContext) {
  // bun-types types every .html import as an HTML bundle; with { type: "text" } it is a string.
  const html = pageTemplate as unknown as string;
  const page = html.replace('<span id="version" class="muted"></span>', `<span id="version" class="muted">${escapeHtml(ctx.version)}</span>`);
  const headers = (type: string) => ({
    "content-type": `${type}; charset=utf-8`,
    "content-security-policy": CSP,
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
    "cache-control": "no-cache",
  });
  return new Elysia({ name: "console" })
    .get("/console", () => new Response(page, { headers: headers("text/html") }), { detail: { hide: true } })
    .get("/console/console.js", () => new Response(script, { headers: headers("text/javascript") }), { detail: { hide: true } })
    .get("/console/console.css", () => new Response(css, { headers: headers("text/css") }), { detail: { hide: true } });
}
