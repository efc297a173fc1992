import { Elysia } from "elysia";
import type { AppContext } from "../context";

/** SCIM 2.0 service provider under /scim/v2 (Users, Groups, discovery) and its admin routes. */
export function scimRoutes(_ctx: AppContext) {
  return new Elysia({ name: "scim" });
}
