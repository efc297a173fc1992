import { Elysia } from "elysia";
import type { AppContext } from "../context";

/** Webhook subscriptions, delivery log and replay under /api/admin. */
export function webhookRoutes(_ctx: AppContext) {
  return new Elysia({ name: "webhooks" });
}
