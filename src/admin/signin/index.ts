import { writeTransaction } from "../../db/transaction";
import { NumericId } from "../../http/paging";
import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { adminAccess, cookieValue } from "../access";
import { adminResponses } from "../auth";
import { writeAudit } from "../../audit/service";
import { ApiError } from "../../http/errors";
import { constantTimeEqual } from "../../lib/tokens";
import { oidcRelyingParty, PENDING_TTL_MS, SignInError } from "./oidc";
import { PENDING_SIGNIN_KEY_PURPOSE, pendingSignInSealer } from "./pending-signin";
import { roleFromGroups } from "./roles-from-groups";
import { createSession, endSession, findSession, listSessions, sessionById, sessionCookieName } from "./sessions";
import { takeSignInState } from "./used-states";

/**
 * Sign-in to the console through the organization's IdP (OpenID Connect), under /auth:
 * `GET /auth/login` → the IdP → `GET /auth/callback` → a session cookie and /console, or the
 * "not an admin" page; `POST /auth/logout` ends the session here and, when the IdP offers
 * RP-initiated logout, there too. `GET /auth/status` tells the console which sign-ins exist.
 * The sign-in in progress lives in the browser's sealed login cookie and the callback is made
 * single-use in the database, so login and callback may reach different nodes of a cluster.
 */

/**
 * The pending sign-in, sealed, sent back only to the callback. `__Secure-` on HTTPS (the browser
 * then insists on Secure); not `__Host-`, which would need Path=/.
 */
const loginCookieName = (ctx: AppContext) => (ctx.config.baseUrl.startsWith("https:") ? "__Secure-gatehouse_login" : "gatehouse_login");
const PAGE_CSP = "default-src 'none'; style-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A small static page (no script) in the console's style. */
function page(status: number, title: string, paragraphs: string[], links: [string, string][]): Response {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark"><title>${escapeHtml(title)} · Gatehouse</title><link rel="stylesheet" href="/console/console.css"><link rel="icon" href="/console/favicon.svg" type="image/svg+xml"></head>
<body><main id="main"><div class="page narrow"><h1>${escapeHtml(title)}</h1>${paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("")}
<p>${links.map(([href, text]) => `<a href="${escapeHtml(href)}">${escapeHtml(text)}</a>`).join(" · ")}</p></div></main></body></html>`;
  return new Response(body, { status, headers: { "content-type": "text/html; charset=utf-8", "content-security-policy": PAGE_CSP, "cache-control": "no-store", "referrer-policy": "no-referrer", "x-content-type-options": "nosniff" } });
}

function cookie(ctx: AppContext, name: string, value: string, maxAgeSeconds: number, path = "/"): string {
  const secure = ctx.config.baseUrl.startsWith("https:") ? "; Secure" : "";
  return `${name}=${value}; Path=${path}; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`;
}

const AuthStatus = t.Object({
  oidc: t.Boolean({ description: "Sign-in through the organization's IdP is configured (GET /auth/login)" }),
  adminToken: t.Boolean({ description: "GATEHOUSE_ADMIN_TOKEN is accepted (break-glass)" }),
});

export function signInRoutes(ctx: AppContext) {
  const rp = oidcRelyingParty(ctx.config);
  // Sealed with a key derived from the secret key every node shares: any node opens it.
  const pendingCookie = rp ? pendingSignInSealer(ctx.secrets.derivedKeys(PENDING_SIGNIN_KEY_PURPOSE)) : null;
  const callbackPath = rp ? new URL(rp.redirectUri).pathname : "/";
  const hidden = { detail: { hide: true } };
  return new Elysia({ name: "signin", prefix: "/auth" })
    .get("/status", () => ({ oidc: rp !== null, adminToken: ctx.config.adminToken !== null && (rp === null || ctx.config.adminTokenWithOidc) }), {
      response: { 200: AuthStatus },
      detail: { tags: ["Admin: access"], summary: "Which console sign-ins this instance offers (no credential needed)", security: [] },
    })
    .get("/login", async () => {
      if (!rp || !pendingCookie) return page(404, "Single sign-on is not configured", ["This Gatehouse has no OpenID Connect sign-in (GATEHOUSE_OIDC_ISSUER)."], [["/console", "Back to the console"]]);
      try {
        const { url, pending } = await rp.start();
        const sealed = pendingCookie.seal(pending);
        return new Response(null, { status: 302, headers: { location: url, "set-cookie": cookie(ctx, loginCookieName(ctx), sealed, PENDING_TTL_MS / 1000, callbackPath), "cache-control": "no-store" } });
      } catch (e) {
        return page(502, "The identity provider cannot be reached", [(e as Error).message, "Try again in a moment. An owner can still use the break-glass admin token if it is enabled."], [["/console", "Back to the console"]]);
      }
    }, hidden)
    .get("/callback", async ({ request }) => {
      if (!rp || !pendingCookie) return page(404, "Single sign-on is not configured", [], [["/console", "Back to the console"]]);
      const clearLogin = cookie(ctx, loginCookieName(ctx), "", 0, callbackPath);
      const anonymous = { kind: "anonymous" as const, name: "(not signed in)", role: null };
      let claims;
      try {
        const sealed = cookieValue(request, loginCookieName(ctx));
        const pending = sealed ? pendingCookie.open(sealed) : null;
        claims = await rp.finish(new URL(request.url.replace(/^[^/]*\/\/[^/]+/, ctx.config.baseUrl)), pending, (p) => takeSignInState(ctx.db, p.state, p.expires), ctx.config.oidcGroupsClaim);
      } catch (e) {
        const message = e instanceof SignInError ? e.message : "The sign-in failed";
        await writeTransaction(ctx.db, () => writeAudit(ctx.db, anonymous, request, { action: "session.sign_in", outcome: "failure", detail: message }));
        const r = page(400, "Sign-in failed", [message], [["/auth/login", "Sign in again"], ["/console", "Back to the console"]]);
        r.headers.append("set-cookie", clearLogin);
        return r;
      }
      const role = roleFromGroups(claims.groups, ctx.config);
      if (!role) {
        await writeTransaction(ctx.db, () => writeAudit(ctx.db, { kind: "person", name: claims.name, role: null }, request, { action: "session.sign_in", outcome: "denied", detail: "not in an admin group", summary: { after: { subject: claims.subject, groups: claims.groups ?? null } } }));
        const r = new Response(null, { status: 303, headers: { location: "/auth/not-admin", "cache-control": "no-store" } });
        r.headers.append("set-cookie", clearLogin);
        return r;
      }
      const { cookieValue: value } = await createSession(ctx, { subject: claims.subject, issuer: claims.issuer, name: claims.name, role, idToken: claims.idToken }, request);
      const r = new Response(null, { status: 303, headers: { location: "/console", "cache-control": "no-store" } });
      r.headers.append("set-cookie", clearLogin);
      r.headers.append("set-cookie", cookie(ctx, sessionCookieName(ctx), value, Math.floor(ctx.config.sessionAbsoluteTimeoutMs / 1000)));
      return r;
    }, hidden)
    .get("/not-admin", () =>
      page(403, "You are not a Gatehouse admin", [
        "You signed in with your organization's account, but it is not in a group that may administer Gatehouse.",
        "Ask an owner to add you to one of the admin groups at your identity provider, then sign in again.",
      ], [["/auth/login", "Sign in with another account"]]), hidden)
    .post("/logout", async ({ request }) => {
      const value = cookieValue(request, sessionCookieName(ctx));
      const session = value ? await findSession(ctx, value) : null;
      const clear = cookie(ctx, sessionCookieName(ctx), "", 0);
      if (!session) return new Response(JSON.stringify({ redirect: "/console" }), { headers: { "content-type": "application/json", "set-cookie": clear } });
      const sent = request.headers.get("x-csrf-token");
      if (!sent || !constantTimeEqual(sent, session.csrfToken)) throw new ApiError(403, "csrf", "Signing out needs the console's CSRF token (x-csrf-token)");
      await endSession(ctx, session, request, "session.sign_out");
      const redirect = (rp && (await rp.endSessionUrl(session.idToken, `${ctx.config.baseUrl}/console`))) ?? "/console";
      return new Response(JSON.stringify({ redirect }), { headers: { "content-type": "application/json", "set-cookie": clear, "cache-control": "no-store" } });
    }, hidden);
}

const SessionView = t.Object({
  id: t.Integer(),
  name: t.String(),
  role: t.String(),
  subject: t.String(),
  sourceIp: t.Union([t.String(), t.Null()]),
  userAgent: t.Union([t.String(), t.Null()]),
  createdAt: t.String({ format: "date-time" }),
  lastSeenAt: t.String({ format: "date-time", description: "To the minute" }),
  expiresAt: t.String({ format: "date-time", description: "The absolute limit; the idle limit may end it sooner" }),
});

/** GET /api/admin/sessions, DELETE /api/admin/sessions/{id}: who is signed in; ending a session (owner). */
export function sessionAdminRoutes(ctx: AppContext) {
  return new Elysia({ name: "admin-sessions" })
    .use(adminAccess(ctx))
    .get("/sessions", async () => ({ items: await listSessions(ctx) }), {
      role: "owner",
      response: adminResponses({ 200: t.Object({ items: t.Array(SessionView) }) }),
      detail: { tags: ["Admin: access"], summary: "Console sessions of people signed in through the IdP" },
    })
    .delete("/sessions/:id", async ({ params, admin, request }) => {
      const row = await sessionById(ctx, params.id);
      await endSession(ctx, row, request, "session.revoke", { kind: admin.kind, name: admin.name, role: admin.role });
      return new Response(null, { status: 204 });
    }, {
      role: "owner",
      params: t.Object({ id: NumericId }),
      response: adminResponses({ 204: t.Void({ description: "No content" }) }, [400, 404]),
      detail: { tags: ["Admin: access"], summary: "End a session at once (the person must sign in again)" },
    });
}
