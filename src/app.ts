import { Elysia } from "elysia";
import { adminRoutes } from "./admin";
import type { AppContext } from "./context";
import { mapError } from "./http/error-mapping";
import { opsRoutes } from "./ops";
import { noteRoute, requestIdOf } from "./ops/observe";
import { scimRoutes } from "./scim";
import { tmsRoutes } from "./tms";

/**
 * Builds the whole HTTP surface from feature plugins. `serve` listens with it; tests call
 * `createApp(ctx).handle(new Request(...))` and so see exactly what clients see.
 * The error handler is registered before every route so it covers them all.
 * The request hooks give every response an `x-request-id` and note the matched route
 * template for logs and metrics (see src/ops/observe.ts).
 */
export function createApp(ctx: AppContext) {
  return new Elysia({ name: "gatehouse" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
    })
    .onTransform(({ request, route }) => {
      noteRoute(request, route);
    })
    .onError(({ code, error, request, route }) => {
      // A body that fails to parse never reaches onTransform; note the route here instead.
      // (No onParse hook: a function parse hook makes @elysiajs/openapi drop request bodies.)
      noteRoute(request, route);
      return mapError({ code, error, request, requestId: requestIdOf(request), log: ctx.log });
    })
    .use(opsRoutes(ctx))
    .use(scimRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(tmsRoutes(ctx));
}

export type App = ReturnType<typeof createApp>;
