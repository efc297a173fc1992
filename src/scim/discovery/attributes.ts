/**
 * RFC 7643 §7 attribute definitions — the vocabulary resources use to describe themselves.
 * Each resource folder declares its attributes once with these types; /Schemas renders them
 * as they are, so discovery cannot drift from what the resource actually carries.
 */
export type ScimAttributeType = "string" | "boolean" | "decimal" | "integer" | "dateTime" | "reference" | "binary" | "complex";

export type ScimAttribute = {
  name: string;
  type: ScimAttributeType;
  multiValued: boolean;
  description: string;
  required: boolean;
  caseExact: boolean;
  mutability: "readOnly" | "readWrite" | "immutable" | "writeOnly";
  returned: "always" | "never" | "default" | "request";
  uniqueness: "none" | "server" | "global";
  canonicalValues?: string[];
  referenceTypes?: string[];
  subAttributes?: ScimAttribute[];
};

/** Defaults RFC 7643 §2.2 gives an attribute when a schema leaves them out. */
export function attribute(
  name: string,
  type: ScimAttributeType,
  description: string,
  rest: Partial<Omit<ScimAttribute, "name" | "type" | "description">> = {},
): ScimAttribute {
  const a: ScimAttribute = {
    name,
    type,
    multiValued: false,
    description,
    required: false,
    caseExact: false,
    mutability: "readWrite",
    returned: "default",
    uniqueness: "none",
    ...rest,
  };
  // RFC 7643 §7: sub-attributes and reference types only where they mean something.
  if (type !== "complex") delete a.subAttributes;
  return a;
}

export type ScimSchemaDefinition = {
  id: string;
  name: string;
  description: string;
  attributes: ScimAttribute[];
};
