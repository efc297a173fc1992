import { Elysia } from "elysia";
import type { AppContext } from "../../context";

/** /Groups: workspace teams and their membership. */
export function groupsRoutes(_ctx: AppContext) {
  return new Elysia({ name: "scim-groups" });
}
