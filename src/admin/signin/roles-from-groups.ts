import type { Config } from "../../config";
import type { Role } from "../roles";

/**
 * The role a person's IdP groups give: the highest of the groups' roles, or null (not an admin).
 * Groups are compared exactly (IdPs send ids — Entra — or names — Okta, Keycloak — as configured).
 * A claim that is a single string counts as one group; anything else is no group.
 */
export function roleFromGroups(claim: unknown, config: Pick<Config, "oidcOwnerGroups" | "oidcOperatorGroups" | "oidcViewerGroups">): Role | null {
  const groups = new Set(typeof claim === "string" ? [claim] : Array.isArray(claim) ? claim.filter((g): g is string => typeof g === "string") : []);
  // Keycloak's group mapper sends full paths ("/gatehouse-owners") unless told not to: both match.
  const member = (names: string[]) => names.some((n) => groups.has(n) || groups.has("/" + n) || (n.startsWith("/") && groups.has(n.slice(1))));
  if (member(config.oidcOwnerGroups)) return "owner";
  if (member(config.oidcOperatorGroups)) return "operator";
  if (member(config.oidcViewerGroups)) return "viewer";
  return null;
}
