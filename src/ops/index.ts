import { Elysia } from "elysia";
import type { AppContext } from "../context";

/** Health, readiness, metrics, OpenAPI docs and the admin console. */
export function opsRoutes(ctx: AppContext) {
  return new Elysia({ name: "ops" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { tags: ["Operations"], summary: "Process is up" } })
    .get("/readyz", ({ set }) => {
      try {
        ctx.sqlite.query("SELECT 1").get();
        return { status: "ready" };
      } catch {
        set.status = 503;
        return { status: "unavailable" };
      }
    }, { detail: { tags: ["Operations"], summary: "Database answers" } });
}
