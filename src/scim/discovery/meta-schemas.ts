/**
 * The schemas of the discovery documents themselves (RFC 7643 §5–7, JSON in §8.7.2):
 * ServiceProviderConfig, ResourceType and Schema, served by /Schemas beside User and Group so a
 * client can validate every document this server sends. Every attribute is read-only: the
 * documents describe the server.
 */
import { attribute, type ScimAttribute, type ScimSchemaDefinition } from "./attributes";

export const SERVICE_PROVIDER_CONFIG_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ServiceProviderConfig";
export const RESOURCE_TYPE_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:ResourceType";
export const SCHEMA_SCHEMA = "urn:ietf:params:scim:schemas:core:2.0:Schema";

type Rest = Parameters<typeof attribute>[3];
const ro = (name: string, type: ScimAttribute["type"], description: string, rest: Rest = {}) => attribute(name, type, description, { mutability: "readOnly", ...rest });
const supported = (name: string, description: string, more: ScimAttribute[] = []) =>
  ro(name, "complex", description, { required: true, subAttributes: [ro("supported", "boolean", "Whether the operation is supported.", { required: true }), ...more] });

export const serviceProviderConfigSchema: ScimSchemaDefinition = {
  id: SERVICE_PROVIDER_CONFIG_SCHEMA,
  name: "Service Provider Configuration",
  description: "Schema for representing the service provider's configuration",
  attributes: [
    ro("documentationUri", "reference", "An HTTP-addressable URL pointing to the service provider's human-consumable help documentation.", { referenceTypes: ["external"] }),
    supported("patch", "A complex type that specifies PATCH configuration options."),
    supported("bulk", "A complex type that specifies bulk configuration options.", [
      ro("maxOperations", "integer", "The maximum number of operations.", { required: true }),
      ro("maxPayloadSize", "integer", "The maximum payload size in bytes.", { required: true }),
    ]),
    supported("filter", "A complex type that specifies FILTER options.", [ro("maxResults", "integer", "The maximum number of resources returned in a response.", { required: true })]),
    supported("changePassword", "A complex type that specifies configuration options related to changing a password."),
    supported("sort", "A complex type that specifies sort result options."),
    supported("etag", "A complex type that specifies ETag configuration options."),
    ro("authenticationSchemes", "complex", "A complex type that specifies supported authentication scheme properties.", {
      multiValued: true,
      required: true,
      subAttributes: [
        ro("type", "string", "The authentication scheme.", { required: true, canonicalValues: ["oauth", "oauth2", "oauthbearertoken", "httpbasic", "httpdigest"] }),
        ro("name", "string", "The common authentication scheme name, e.g., HTTP Basic.", { required: true }),
        ro("description", "string", "A description of the authentication scheme.", { required: true }),
        ro("specUri", "reference", "An HTTP-addressable URL pointing to the authentication scheme's specification.", { referenceTypes: ["external"] }),
        ro("documentationUri", "reference", "An HTTP-addressable URL pointing to the authentication scheme's usage documentation.", { referenceTypes: ["external"] }),
        ro("primary", "boolean", "The scheme clients should use first."),
      ],
    }),
  ],
};

export const resourceTypeSchema: ScimSchemaDefinition = {
  id: RESOURCE_TYPE_SCHEMA,
  name: "ResourceType",
  description: "Specifies the schema that describes a SCIM resource type",
  attributes: [
    ro("id", "string", "The resource type's server unique id. May be the same as the 'name' attribute."),
    ro("name", "string", "The resource type name.", { required: true }),
    ro("description", "string", "The resource type's human-readable description."),
    ro("endpoint", "reference", "The resource type's HTTP-addressable endpoint relative to the Base URL, e.g., '/Users'.", { required: true, referenceTypes: ["uri"] }),
    ro("schema", "reference", "The resource type's primary/base schema URI.", { required: true, caseExact: true, referenceTypes: ["uri"] }),
    ro("schemaExtensions", "complex", "A list of URIs of the resource type's schema extensions.", {
      multiValued: true,
      subAttributes: [
        ro("schema", "reference", "The URI of a schema extension.", { required: true, caseExact: true, referenceTypes: ["uri"] }),
        ro("required", "boolean", "Whether resources of this type must include this extension.", { required: true }),
      ],
    }),
  ],
};

/** What an attribute definition carries (RFC 7643 §7); also the sub-attributes' own shape. */
const attributeCharacteristics = (): ScimAttribute[] => [
  ro("name", "string", "The attribute's name.", { required: true, caseExact: true }),
  ro("type", "string", "The attribute's data type.", { required: true, canonicalValues: ["string", "complex", "boolean", "decimal", "integer", "dateTime", "reference", "binary"] }),
  ro("multiValued", "boolean", "Whether the attribute is multi-valued.", { required: true }),
  ro("description", "string", "A human-readable description of the attribute."),
  ro("required", "boolean", "Whether the attribute is required."),
  ro("canonicalValues", "string", "A collection of suggested canonical values.", { multiValued: true, caseExact: true }),
  ro("caseExact", "boolean", "Whether a string attribute is case sensitive."),
  ro("mutability", "string", "Whether the attribute is modifiable.", { caseExact: true, canonicalValues: ["readOnly", "readWrite", "immutable", "writeOnly"] }),
  ro("returned", "string", "When an attribute and its values are returned in a response.", { caseExact: true, canonicalValues: ["always", "never", "default", "request"] }),
  ro("uniqueness", "string", "How the service provider enforces uniqueness of attribute values.", { caseExact: true, canonicalValues: ["none", "server", "global"] }),
  ro("referenceTypes", "string", "The names of the resource types that may be referenced.", { multiValued: true, caseExact: true }),
];

/** Characteristics plus `subAttributes` nested `depth` levels (as RFC 7643 §8.7.2: a sub-attribute's sub-attributes have the same characteristics). */
const nestedCharacteristics = (depth: number): ScimAttribute[] =>
  depth === 0
    ? attributeCharacteristics()
    : [...attributeCharacteristics(), ro("subAttributes", "complex", "The sub-attributes of a complex attribute, with the same characteristics.", { multiValued: true, subAttributes: nestedCharacteristics(depth - 1) })];

export const schemaSchema: ScimSchemaDefinition = {
  id: SCHEMA_SCHEMA,
  name: "Schema",
  description: "Specifies the schema attribute structure",
  attributes: [
    ro("id", "string", "The unique URI of the schema.", { required: true, caseExact: true }),
    ro("name", "string", "The schema's human-readable name."),
    ro("description", "string", "The schema's human-readable description."),
    ro("attributes", "complex", "The schema's attributes.", {
      multiValued: true,
      required: true,
      subAttributes: nestedCharacteristics(1),
    }),
  ],
};

export const META_SCHEMAS = [serviceProviderConfigSchema, resourceTypeSchema, schemaSchema];
