import { Elysia } from "elysia";
import { adminRoutes } from "./admin";
import { consoleRoutes } from "./admin/console";
import type { AppContext } from "./context";
import { mapError } from "./http/error-mapping";
import { noteWriteFailure } from "./db/readiness";
import { opsRoutes } from "./ops";
import { noteRoute, requestIdOf } from "./http/request-info";
import { scimRoutes } from "./scim";
import { signInRoutes } from "./admin/signin";
import { renderScimError } from "./scim/errors";
import { tmsRoutes } from "./tms";

/**
 * Builds the whole HTTP surface from feature plugins. `serve` listens with it; tests call
 * `createApp(ctx).handle(new Request(...))` and so see exactly what clients see.
 * The error handler is registered before every route so it covers them all.
 * The request hooks give every response an `x-request-id` and note the matched route
 * template for logs and metrics (see src/ops/observe.ts).
 * Durable writes: a write request's answer waits until the WAL sync covering its commit has
 * finished (src/db/group-commit.ts), so no route ever answers 2xx before its write is on disk —
 * routes just commit. A failed sync becomes a 503 through the error handler. Before the handler,
 * a write may wait while the delivery loop catches up (`admitWrite`: one writer, shared fairly).
 */
/** Methods that never write on a client's behalf; every other method's answer waits for durability. */
const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

export function createApp(ctx: AppContext) {
  return new Elysia({ name: "gatehouse" })
    .onRequest(({ request, set }) => {
      set.headers["x-request-id"] = requestIdOf(request);
    })
    .onTransform(({ request, route }) => {
      noteRoute(request, route);
    })
    .onBeforeHandle(({ request }) => (READ_METHODS.has(request.method) ? undefined : ctx.groupCommit.admitWrite()))
    .onAfterHandle(({ request }) => (READ_METHODS.has(request.method) ? undefined : ctx.groupCommit.durable()))
    .onError(({ code, error, request, route }) => {
      // A body that fails to parse never reaches onTransform; note the route here instead.
      // (No onParse hook: a function parse hook makes @elysiajs/openapi drop request bodies.)
      noteRoute(request, route);
      noteWriteFailure(ctx.db, error);
      return mapError({ code, error, request, requestId: requestIdOf(request), log: ctx.log, renderScim: renderScimError });
    })
    .use(opsRoutes(ctx))
    .use(scimRoutes(ctx))
    .use(adminRoutes(ctx))
    .use(consoleRoutes(ctx))
    .use(signInRoutes(ctx))
    .use(tmsRoutes(ctx));
}

export type App = ReturnType<typeof createApp>;
