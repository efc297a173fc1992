import { Elysia } from "elysia";
import type { AppContext } from "../../context";

/** /ServiceProviderConfig, /ResourceTypes, /Schemas (RFC 7643 §5–7). */
export function discoveryRoutes(_ctx: AppContext) {
  return new Elysia({ name: "scim-discovery" });
}
