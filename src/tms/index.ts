import { Elysia } from "elysia";
import type { AppContext } from "../context";

/** Test-management entities behind a Qase-v1-shaped API under /api/v1. */
export function tmsRoutes(_ctx: AppContext) {
  return new Elysia({ name: "tms" });
}
