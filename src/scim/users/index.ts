import { Elysia } from "elysia";
import type { AppContext } from "../../context";

/** /Users: list, get, create, replace, patch, deactivate. */
export function usersRoutes(_ctx: AppContext) {
  return new Elysia({ name: "scim-users" });
}
