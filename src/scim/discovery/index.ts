import { Elysia, t } from "elysia";
import type { AppContext } from "../../context";
import { ScimError } from "../errors";
import { queryOf } from "../query";
import { queryParameters } from "../../http/responses";
import { scimResponses } from "../responses";
import { DiscoveryQuery, ResourceType, ResourceTypeList, SchemaDocument, SchemaList, ServiceProviderConfig } from "./model";
import { discoveryDocuments, listResponse } from "./service";

const tags = ["SCIM Discovery"];
const parameters = queryParameters(DiscoveryQuery);
const ok = (description: string, schema: Parameters<typeof scimResponses>[0][number]["schema"]) => scimResponses({ 200: { description, schema } }, []);
const okOrMissing = (description: string, schema: Parameters<typeof scimResponses>[0][number]["schema"]) => scimResponses({ 200: { description, schema } }, [404]);

/**
 * /ServiceProviderConfig, /ResourceTypes, /Schemas (RFC 7643 §5–7, RFC 7644 §4). GET only;
 * other methods are answered 405 by the SCIM plugin. Query parameters are ignored as RFC 7644 §4
 * says — except `filter`, which gets 403 so a client cannot believe a filter was applied.
 */
export function discoveryRoutes(ctx: AppContext) {
  const docs = discoveryDocuments(ctx.config.baseUrl);
  // Reads the query itself rather than destructuring Elysia's `query`: a hook that names `query`
  // makes Elysia parse the query string of EVERY route in the app (hook inference is merged
  // app-wide), which cost the hot /Users lookup measurable time. `DiscoveryQuery` documents it.
  const refuseFilter = ({ request }: { request: Request }) => {
    if (queryOf(request).filter !== undefined) throw new ScimError(403, "Discovery endpoints do not support filtering (RFC 7644 §4)");
  };
  return new Elysia({ name: "scim-discovery" })
    .guard({ beforeHandle: refuseFilter })
    .get("/ServiceProviderConfig", () => docs.serviceProviderConfig, { detail: { tags, summary: "What this SCIM server supports", parameters, responses: ok("The service provider configuration", ServiceProviderConfig) } })
    .get("/ResourceTypes", () => listResponse(docs.resourceTypes), { detail: { tags, summary: "Resource types: User and Group", parameters, responses: ok("A ListResponse of the resource types", ResourceTypeList) } })
    .get(
      "/ResourceTypes/:id",
      ({ params }) => {
        const found = docs.resourceType(params.id);
        if (!found) throw new ScimError(404, `Resource type ${JSON.stringify(params.id)} not found (User, Group)`);
        return found;
      },
      { detail: { tags, summary: "One resource type", parameters, responses: okOrMissing("The resource type", ResourceType) } },
    )
    .get("/Schemas", () => listResponse(docs.schemas), { detail: { tags, summary: "User and Group schemas", parameters, responses: ok("A ListResponse of the schemas", SchemaList) } })
    .get(
      "/Schemas/:id",
      ({ params }) => {
        const found = docs.schema(params.id);
        if (!found) throw new ScimError(404, `Schema ${JSON.stringify(params.id)} not found`);
        return found;
      },
      { detail: { tags, summary: "One schema by URN", parameters, responses: okOrMissing("The schema", SchemaDocument) } },
    );
}
