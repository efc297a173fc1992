/**
 * Which workspace a SCIM request acts for, decided by its bearer token at the gate
 * (src/scim/index.ts) and read by the resource routes. An organization token sees every
 * workspace; a workspace token only its own. A request has a scope only once the gate admitted it.
 */
import type { Scope } from "../directory/workspaces";
import { ScimError } from "./errors";

// Kept on the Request under a module-private symbol (as src/http/request-info.ts does): every
// SCIM request sets it once and reads it two or three times, and a WeakMap keyed by a fresh object
// per request costs more than a property.
const SCOPE = Symbol("gatehouse.scimScope");
type WithScope = Request & { [SCOPE]?: Scope };

export function setScope(request: Request, scope: Scope): void {
  (request as WithScope)[SCOPE] = scope;
}

/** Whether the gate has admitted this request (it sets the scope last, after every check passed). */
export function isAdmitted(request: Request): boolean {
  return (request as WithScope)[SCOPE] !== undefined;
}

/** The request's scope; a request the gate did not admit has none (fails closed: 401). */
export function scopeOf(request: Request): Scope {
  const scope = (request as WithScope)[SCOPE];
  if (!scope) throw new ScimError(401, "A bearer token is required (Authorization: Bearer <token>)", undefined, { "www-authenticate": 'Bearer realm="scim"' });
  return scope;
}
