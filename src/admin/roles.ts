/**
 * Admin roles and the route-role table: pure, no I/O.
 *
 * - `owner`: everything, including SCIM on/off, workspaces, admin tokens, sessions and settings.
 * - `operator`: webhooks, deliveries, SCIM and API tokens; not SCIM on/off or admin settings.
 * - `viewer`: reads only (no answer a viewer can get holds a secret).
 *
 * Each admin route declares the role it needs (`{ role: "operator" }`, see ./access.ts); the
 * declaration is kept in the route's OpenAPI `detail` under ROLE_KEY, so the guard, the route-role
 * test and the published document all read the same value.
 */
export const ROLES = ["viewer", "operator", "owner"] as const;
export type Role = (typeof ROLES)[number];

/** The OpenAPI extension that carries a route's role. */
export const ROLE_KEY = "x-gatehouse-role";

export const isRole = (value: unknown): value is Role => typeof value === "string" && (ROLES as readonly string[]).includes(value);

/** Roles are ordered: a role may do what every lower one may. */
export const roleAllows = (have: Role, need: Role): boolean => ROLES.indexOf(have) >= ROLES.indexOf(need);

type Declared = { method: string; path: string; role: Role | undefined };
type Compiled = { method: string; segments: string[]; role: Role | undefined; statics: number };

/**
 * Finds the role a request needs from the routes' declarations, before routing (the guard runs in
 * onRequest, before any body is read). Templates are Elysia paths: static segments and `:param`.
 * When several templates match, the one with more static segments wins (as Elysia's router picks
 * `/webhooks/events` over `/webhooks/:id`). Returns `null` for no matching route (the request ends
 * in 404), and `"owner"` for a matching route that declared no role: undeclared means closed.
 */
export function routeRoleTable(routes: Declared[]): (method: string, path: string) => Role | null {
  const compiled: Compiled[] = routes.map((r) => {
    const segments = r.path.split("/").filter(Boolean);
    return { method: r.method, segments, role: r.role, statics: segments.filter((s) => !s.startsWith(":")).length };
  });
  const find = (method: string, parts: string[]): Role | null => {
    let best: Compiled | null = null;
    for (const c of compiled) {
      if (c.method !== method || c.segments.length !== parts.length) continue;
      if (!c.segments.every((s, i) => s.startsWith(":") ? parts[i] !== "" : s === parts[i])) continue;
      if (!best || c.statics > best.statics) best = c;
    }
    return best ? (best.role ?? "owner") : null;
  };
  return (method, path) => {
    const wanted = method === "HEAD" ? "GET" : method;
    const raw = path.split("/").filter(Boolean);
    let decoded = raw;
    try {
      decoded = raw.map(decodeURIComponent);
    } catch {
      // a malformed escape: the router will not match it either
    }
    // Whether the router compares a segment raw or decoded, the stricter of the two is asked.
    const a = find(wanted, raw);
    const b = decoded === raw ? a : find(wanted, decoded);
    if (a === null) return b;
    if (b === null) return a;
    return roleAllows(a, b) ? a : b;
  };
}
