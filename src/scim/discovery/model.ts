import { t } from "elysia";
import { ListResponseOf } from "../responses";

/** The discovery documents' shapes (RFC 7643 §5–7), as service.ts builds them. */

const Supported = t.Object({ supported: t.Boolean() });
const Meta = <R extends string>(resourceType: R) => t.Object({ resourceType: t.Literal(resourceType), location: t.String({ format: "uri" }) });

export const ServiceProviderConfig = t.Object({
  schemas: t.Array(t.String()),
  documentationUri: t.String({ format: "uri" }),
  patch: Supported,
  bulk: t.Object({ supported: t.Boolean(), maxOperations: t.Integer(), maxPayloadSize: t.Integer() }),
  filter: t.Object({ supported: t.Boolean(), maxResults: t.Integer() }),
  changePassword: Supported,
  sort: Supported,
  etag: Supported,
  authenticationSchemes: t.Array(t.Object({ type: t.String(), name: t.String(), description: t.String(), specUri: t.String({ format: "uri" }), primary: t.Boolean() })),
  meta: Meta("ServiceProviderConfig"),
}, { description: "What this SCIM service provider supports (RFC 7643 §5)" });

export const ResourceType = t.Object({
  schemas: t.Array(t.String()),
  id: t.String(),
  name: t.String(),
  endpoint: t.String(),
  description: t.String(),
  schema: t.String(),
  schemaExtensions: t.Array(t.Object({ schema: t.String(), required: t.Boolean() })),
  meta: Meta("ResourceType"),
}, { description: "A resource type (RFC 7643 §6)" });

/** RFC 7643 §7 attribute definition; sub-attributes nest one level (complex attributes). */
const attributeFields = {
  name: t.String(),
  type: t.UnionEnum(["string", "boolean", "decimal", "integer", "dateTime", "reference", "binary", "complex"]),
  multiValued: t.Boolean(),
  description: t.String(),
  required: t.Boolean(),
  caseExact: t.Boolean(),
  mutability: t.UnionEnum(["readOnly", "readWrite", "immutable", "writeOnly"]),
  returned: t.UnionEnum(["always", "never", "default", "request"]),
  uniqueness: t.UnionEnum(["none", "server", "global"]),
  canonicalValues: t.Optional(t.Array(t.String())),
  referenceTypes: t.Optional(t.Array(t.String())),
};
const SubAttribute = t.Object(attributeFields);
const Attribute = t.Object({ ...attributeFields, subAttributes: t.Optional(t.Array(SubAttribute)) });

export const SchemaDocument = t.Object({
  schemas: t.Array(t.String()),
  id: t.String({ description: "The schema URN" }),
  name: t.String(),
  description: t.String(),
  attributes: t.Array(Attribute),
  meta: Meta("Schema"),
}, { description: "A schema (RFC 7643 §7)" });

export const ResourceTypeList = ListResponseOf(ResourceType, "Every resource type (no paging applies)");
export const SchemaList = ListResponseOf(SchemaDocument, "Every schema (no paging applies)");

export const DiscoveryQuery = t.Object({
  filter: t.Optional(t.String({ description: "Not supported here: any filter answers 403 (RFC 7644 §4). Other parameters are ignored." })),
});

