import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { ApiError } from "../http/errors";
import { bearerToken, constantTimeEqual } from "../lib/tokens";
import { findSession, sessionCookieName } from "./signin/sessions";
import { assertAdmin } from "./auth";
import { audited, writeAudit, type AuditActor, type AuditedAction } from "../audit/service";
import { ROLE_KEY, roleAllows, type Role } from "./roles";
import { ADMIN_TOKEN_PREFIX, authenticateAdminToken } from "./tokens/service";
import { writeTransaction } from "../db/transaction";

/**
 * Who is calling the admin API, and whether their role may call this route.
 *
 * - `env-token`: GATEHOUSE_ADMIN_TOKEN, for automation and break-glass; always `owner`.
 * - `admin-token`: a named admin API token (gadm_…) with its own role and expiry.
 * - `person`: signed in to the console through the IdP (src/admin/signin/): a session cookie.
 * Every audit entry names the principal, so the shared token's use shows as such.
 */
export type AdminPrincipal = {
  kind: "person" | "env-token" | "admin-token";
  /** The person or token name the audit log shows. */
  name: string;
  role: Role;
  /** The admin token's or the session's id, else null. */
  id: string | null;
  /** A person's session: the CSRF token every state change must carry. */
  csrfToken?: string;
};

const unauthorized = (message = "A valid admin bearer token is required") =>
  new ApiError(401, "unauthorized", message, undefined, { "www-authenticate": "Bearer" });

/** Methods that change nothing: the only ones a session may send without its CSRF token. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A cookie's value from the Cookie header, or null. */
export function cookieValue(request: Request, name: string): string | null {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * Authenticates an admin request from its headers alone (no body is read): a bearer token (an
 * admin API token, or GATEHOUSE_ADMIN_TOKEN), else the console's session cookie. A session's state
 * changes must carry its CSRF token in `x-csrf-token` (a cross-site page can make the browser send
 * the cookie, never read the token).
 */
export async function authenticateAdmin(ctx: AppContext, request: Request): Promise<AdminPrincipal> {
  const given = bearerToken(request.headers.get("authorization"));
  if (given?.startsWith(ADMIN_TOKEN_PREFIX + "_")) {
    const holder = await authenticateAdminToken(ctx, given);
    if (!holder) throw unauthorized("This admin token is unknown, revoked or expired");
    return { kind: "admin-token", name: holder.name, role: holder.role, id: String(holder.id) };
  }
  if (!given && ctx.config.oidcIssuer) {
    const cookie = cookieValue(request, sessionCookieName(ctx));
    if (cookie) {
      const session = await findSession(ctx, cookie);
      if (!session) throw unauthorized("Your session has ended (signed out, idle too long or past its time limit); sign in again");
      const principal: AdminPrincipal = { kind: "person", name: session.name, role: session.role, id: String(session.id), csrfToken: session.csrfToken };
      if (!SAFE_METHODS.has(request.method)) {
        const sent = request.headers.get("x-csrf-token");
        if (!sent || !constantTimeEqual(sent, session.csrfToken)) {
          await writeTransaction(ctx.db, () => writeAudit(ctx.db, actorOf(principal), request, { action: "access.csrf_refused", resource: { type: "route", id: `${request.method} ${pathOf(request.url)}` }, outcome: "denied", detail: "missing or wrong x-csrf-token" }));
          throw new ApiError(403, "csrf", "This change needs the console's CSRF token (x-csrf-token); reload the console");
        }
      }
      return principal;
    }
  }
  // With OIDC sign-in configured the shared token is off unless the env file keeps it.
  if (ctx.config.oidcIssuer && !ctx.config.adminTokenWithOidc) {
    if (!given) throw unauthorized("Sign in through your organization at /console, or send an admin API token");
    throw unauthorized("GATEHOUSE_ADMIN_TOKEN is off while OIDC sign-in is configured (GATEHOUSE_ADMIN_TOKEN_WITH_OIDC=true keeps it)");
  }
  assertAdmin(ctx, request);
  if (ctx.config.oidcIssuer) ctx.log.warn("admin API used with GATEHOUSE_ADMIN_TOKEN (break-glass)", { method: request.method, path: pathOf(request.url) });
  return { kind: "env-token", name: "GATEHOUSE_ADMIN_TOKEN", role: "owner", id: null };
}

/** The path of an absolute request URL, without query or fragment. */
function pathOf(url: string): string {
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.slice(pathStart).search(/[?#]/);
  return end < 0 ? url.slice(pathStart) : url.slice(pathStart, pathStart + end);
}

const principals = new WeakMap<Request, AdminPrincipal>();

/** The principal the guard admitted for this request (every admin route runs behind it). */
export function principalOf(request: Request): AdminPrincipal {
  const p = principals.get(request);
  if (!p) throw new ApiError(401, "unauthorized", "Not authenticated");
  return p;
}

/** The principal as the audit log names it. */
export const actorOf = (p: AdminPrincipal): AuditActor => ({ kind: p.kind, name: p.name, role: p.role });

const forbidden = (need: Role, have: Role) =>
  new ApiError(403, "forbidden", `This needs the ${need} role; you have ${have}`);

/**
 * The admin guard, run in onRequest for every /api/admin request: authenticate from headers, then
 * compare the caller's role with the role the matched route declared (`roleOf`, built from the
 * route table). Runs before routing, parsing or validation, so a caller without the role gets
 * 403 and not one byte of its body is read. An unknown admin path passes on to the 404.
 */
export async function guardAdminRequest(ctx: AppContext, request: Request, roleOf: (method: string, path: string) => Role | null): Promise<AdminPrincipal> {
  const principal = await authenticateAdmin(ctx, request);
  const path = pathOf(request.url);
  const need = roleOf(request.method, path);
  if (need !== null && !roleAllows(principal.role, need)) {
    // A refused attempt is worth knowing about (a script with too small a role, or probing).
    await writeTransaction(ctx.db, () => writeAudit(ctx.db, actorOf(principal), request, { action: "access.denied", resource: { type: "route", id: `${request.method} ${path}` }, outcome: "denied", detail: `needs ${need}` }));
    throw forbidden(need, principal.role);
  }
  principals.set(request, principal);
  return principal;
}

/**
 * What each admin router uses: the `role` route option (recorded in the route's `detail` under
 * ROLE_KEY, where the guard's table and the OpenAPI document read it); `admin`, the principal; and
 * `audit(spec, run)`, which runs an action and records it, by this principal, in one transaction
 * (src/audit/service.ts `audited`). Not a named plugin: each router needs its own copy of the hooks.
 */
export const adminAccess = (ctx: Pick<AppContext, "db">) =>
  new Elysia()
    .macro({ role: (role: Role) => ({ detail: { [ROLE_KEY]: role } as {} }) })
    .derive({ as: "scoped" }, ({ request }) => {
      const admin = principalOf(request);
      return { admin, audit: <T>(spec: AuditedAction<T>, run: () => Promise<T>): Promise<T> => audited(ctx, actorOf(admin), request, spec, run) };
    });

