import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { ScimError } from "../errors";
import { queryOf } from "../query";
import { discoveryDocuments, listResponse } from "./service";

const tags = ["SCIM Discovery"];

/**
 * /ServiceProviderConfig, /ResourceTypes, /Schemas (RFC 7643 §5–7, RFC 7644 §4). GET only;
 * other methods are answered 405 by the SCIM plugin. Query parameters are ignored as RFC 7644 §4
 * says — except `filter`, which gets 403 so a client cannot believe a filter was applied.
 */
export function discoveryRoutes(ctx: AppContext) {
  const docs = discoveryDocuments(ctx.config.baseUrl);
  const query = t.Object({ filter: t.Optional(t.String()) }, { additionalProperties: true });
  // Reads the query itself rather than destructuring Elysia's `query`: a hook that names `query`
  // makes Elysia parse the query string of EVERY route in the app (hook inference is merged
  // app-wide), which cost the hot /Users lookup measurable time. The `query` schema stays for
  // the OpenAPI document.
  const refuseFilter = ({ request }: { request: Request }) => {
    if (queryOf(request).filter !== undefined) throw new ScimError(403, "Discovery endpoints do not support filtering (RFC 7644 §4)");
  };
  return new Elysia({ name: "scim-discovery" })
    .guard({ query, beforeHandle: refuseFilter })
    .get("/ServiceProviderConfig", () => docs.serviceProviderConfig, { detail: { tags, summary: "What this SCIM server supports" } })
    .get("/ResourceTypes", () => listResponse(docs.resourceTypes), { detail: { tags, summary: "Resource types: User and Group" } })
    .get(
      "/ResourceTypes/:id",
      ({ params }) => {
        const found = docs.resourceType(params.id);
        if (!found) throw new ScimError(404, `Resource type ${JSON.stringify(params.id)} not found (User, Group)`);
        return found;
      },
      { detail: { tags, summary: "One resource type" } },
    )
    .get("/Schemas", () => listResponse(docs.schemas), { detail: { tags, summary: "User and Group schemas" } })
    .get(
      "/Schemas/:id",
      ({ params }) => {
        const found = docs.schema(params.id);
        if (!found) throw new ScimError(404, `Schema ${JSON.stringify(params.id)} not found`);
        return found;
      },
      { detail: { tags, summary: "One schema by URN" } },
    );
}
