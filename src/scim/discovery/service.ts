import { MAX_BODY_BYTES, SCHEMA_LIST_RESPONSE } from "../protocol";
import { MAX_COUNT } from "../query";
import type { ScimSchemaDefinition } from "./attributes";
import { groupSchema } from "../groups/schema";
import { enterpriseUserSchema, userSchema } from "../users/schema";

import { META_SCHEMAS, RESOURCE_TYPE_SCHEMA, SCHEMA_SCHEMA, SERVICE_PROVIDER_CONFIG_SCHEMA } from "./meta-schemas";

/** The schemas this server serves, in /Schemas order. */
export const SCHEMAS: ScimSchemaDefinition[] = [userSchema, enterpriseUserSchema, groupSchema, ...META_SCHEMAS];

const RESOURCE_TYPES = [
  { id: "User", name: "User", endpoint: "/Users", description: "Workspace user (a seat in the company plan)", schema: userSchema.id },
  { id: "Group", name: "Group", endpoint: "/Groups", description: "Workspace team", schema: groupSchema.id },
] as const;

/**
 * The discovery documents (RFC 7643 §5–7), built once per base URL. They describe what this
 * server really does — every flag here is backed by code and a test:
 * patch yes; bulk no; filter yes (maxResults = the largest `count`); sort yes; no ETags (no
 * `meta.version`, no If-Match); no password changes (Gatehouse stores no passwords: sign-in is
 * the IdP's job); bearer tokens created by an administrator.
 */
export function discoveryDocuments(baseUrl: string) {
  const root = `${baseUrl}/scim/v2`;

  const serviceProviderConfig = {
    schemas: [SERVICE_PROVIDER_CONFIG_SCHEMA],
    documentationUri: `${baseUrl}/openapi`,
    patch: { supported: true },
    bulk: { supported: false, maxOperations: 0, maxPayloadSize: MAX_BODY_BYTES },
    filter: { supported: true, maxResults: MAX_COUNT },
    changePassword: { supported: false },
    sort: { supported: true },
    etag: { supported: false },
    authenticationSchemes: [
      {
        type: "oauthbearertoken",
        name: "Bearer token",
        description:
          "Send `Authorization: Bearer <token>`. Tokens are created by a Gatehouse administrator (admin API or console), shown once and stored hashed.",
        specUri: "https://www.rfc-editor.org/rfc/rfc6750",
        primary: true,
      },
    ],
    meta: { resourceType: "ServiceProviderConfig", location: `${root}/ServiceProviderConfig` },
  };

  const resourceTypes = RESOURCE_TYPES.map((r) => ({
    schemas: [RESOURCE_TYPE_SCHEMA],
    id: r.id,
    name: r.name,
    endpoint: r.endpoint,
    description: r.description,
    schema: r.schema,
    schemaExtensions: r.id === "User" ? [{ schema: enterpriseUserSchema.id, required: false }] : [],
    meta: { resourceType: "ResourceType", location: `${root}/ResourceTypes/${r.id}` },
  }));

  const schemas = SCHEMAS.map((s) => ({
    schemas: [SCHEMA_SCHEMA],
    id: s.id,
    name: s.name,
    description: s.description,
    attributes: s.attributes,
    meta: { resourceType: "Schema", location: `${root}/Schemas/${s.id}` },
  }));

  return {
    serviceProviderConfig,
    resourceTypes,
    schemas,
    resourceType: (id: string) => resourceTypes.find((r) => r.id.toLowerCase() === id.toLowerCase()),
    /** Schema URNs compare case-insensitively (RFC 7643 §2.1: URNs are case-insensitive). */
    schema: (urn: string) => schemas.find((s) => s.id.toLowerCase() === urn.toLowerCase()),
  };
}

/** RFC 7644 §4: multiple ResourceTypes/Schemas come as a ListResponse (no paging applies). */
export function listResponse<T>(resources: T[]) {
  return { schemas: [SCHEMA_LIST_RESPONSE], totalResults: resources.length, itemsPerPage: resources.length, startIndex: 1, Resources: resources };
}
