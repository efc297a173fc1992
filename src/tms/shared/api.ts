import { Elysia } from "elysia";
import type { AppContext } from "../../context";
import { callerOf } from "./auth";

/**
 * The base of every entity controller: prefix `/v1` (or `/v2`) and the `Token` header check,
 * resolving `caller` for the handlers. Each controller builds its own instance, so the guard is
 * local to those routes and never leaks onto other features' routes. `tmsRoutes` mounts the
 * controllers twice: under `/api` and at the root (where @qase/mcp-server looks).
 */
export function tmsApi(ctx: AppContext, prefix: "/v1" | "/v2" = "/v1") {
  // A route with a body authenticated in tmsRoutes' parser already (before reading the body);
  // callerOf answers from that. derive runs before validation, so a GET is a 401 first too.
  return new Elysia({ prefix }).derive(({ request }) => ({ caller: callerOf(ctx, request) }));
}
