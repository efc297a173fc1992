import { Elysia } from "elysia";
import type { AppContext } from "../context";

/** The admin console (filled in later). */
export function consoleRoutes(_ctx: AppContext) {
  return new Elysia({ name: "console" });
}
