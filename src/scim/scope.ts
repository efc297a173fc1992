/**
 * Which workspace a SCIM request acts for, decided by its bearer token at the gate
 * (src/scim/index.ts) and read by the resource routes. An organization token sees every
 * workspace; a workspace token only its own.
 */
import type { Scope } from "../directory/workspaces";
import { ScimError } from "./errors";

const scopes = new WeakMap<Request, Scope>();

export function setScope(request: Request, scope: Scope): void {
  scopes.set(request, scope);
}

/** The request's scope; a request the gate did not admit has none (fails closed: 401). */
export function scopeOf(request: Request): Scope {
  const scope = scopes.get(request);
  if (!scope) throw new ScimError(401, "A bearer token is required (Authorization: Bearer <token>)", undefined, { "www-authenticate": 'Bearer realm="scim"' });
  return scope;
}
