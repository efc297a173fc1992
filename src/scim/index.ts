import { Elysia } from "elysia";
import type { AppContext } from "../context";
import { usersRoutes } from "./users";
import { groupsRoutes } from "./groups";
import { discoveryRoutes } from "./discovery";

/**
 * SCIM 2.0 service provider under /scim/v2. This plugin owns what every SCIM route shares
 * (media types, body limit, bearer auth, enabled switch, rate limit); the resource folders
 * own their routes.
 */
export function scimRoutes(ctx: AppContext) {
  return new Elysia({ name: "scim", prefix: "/scim/v2" })
    .use(usersRoutes(ctx))
    .use(groupsRoutes(ctx))
    .use(discoveryRoutes(ctx));
}
