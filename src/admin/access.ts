import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { ApiError } from "../http/errors";
import { bearerToken } from "../lib/tokens";
import { assertAdmin } from "./auth";
import { audited, writeAudit, type AuditActor, type AuditedAction } from "../audit/service";
import { ROLE_KEY, roleAllows, type Role } from "./roles";
import { ADMIN_TOKEN_PREFIX, authenticateAdminToken } from "./tokens/service";

/**
 * Who is calling the admin API, and whether their role may call this route.
 *
 * - `env-token`: GATEHOUSE_ADMIN_TOKEN, for automation and break-glass; always `owner`.
 * - `admin-token`: a named admin API token (gadm_…) with its own role and expiry.
 * Every audit entry names the principal, so the shared token's use shows as such.
 */
export type AdminPrincipal = {
  kind: "env-token" | "admin-token";
  /** The person or token name the audit log shows. */
  name: string;
  role: Role;
  /** The admin token's id (admin-token), else null. */
  id: string | null;
};

const unauthorized = (message = "A valid admin bearer token is required") =>
  new ApiError(401, "unauthorized", message, undefined, { "www-authenticate": "Bearer" });

/** Authenticates an admin request from its headers alone (no body is read). */
export function authenticateAdmin(ctx: AppContext, request: Request): AdminPrincipal {
  const given = bearerToken(request.headers.get("authorization"));
  if (given?.startsWith(ADMIN_TOKEN_PREFIX + "_")) {
    const holder = authenticateAdminToken(ctx, given);
    if (!holder) throw unauthorized("This admin token is unknown, revoked or expired");
    return { kind: "admin-token", name: holder.name, role: holder.role, id: String(holder.id) };
  }
  assertAdmin(ctx, request);
  return { kind: "env-token", name: "GATEHOUSE_ADMIN_TOKEN", role: "owner", id: null };
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
export function guardAdminRequest(ctx: AppContext, request: Request, roleOf: (method: string, path: string) => Role | null): AdminPrincipal {
  const principal = authenticateAdmin(ctx, request);
  const url = request.url;
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  const end = url.slice(pathStart).search(/[?#]/);
  const path = end < 0 ? url.slice(pathStart) : url.slice(pathStart, pathStart + end);
  const need = roleOf(request.method, path);
  if (need !== null && !roleAllows(principal.role, need)) {
    // A refused attempt is worth knowing about (a script with too small a role, or probing).
    ctx.db.transaction(() => writeAudit(ctx.db, actorOf(principal), request, { action: "access.denied", resource: { type: "route", id: `${request.method} ${path}` }, outcome: "denied", detail: `needs ${need}` }), { behavior: "immediate" });
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
      return { admin, audit: <T>(spec: AuditedAction<T>, run: () => T): T => audited(ctx, actorOf(admin), request, spec, run) };
    });

