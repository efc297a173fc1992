import { attribute, type ScimSchemaDefinition } from "../discovery/attributes";
import { SCHEMA_GROUP } from "../protocol";

/**
 * The Group schema as this server implements it (served at /Schemas/…:Group). Kept beside the
 * group code so a change to what a group carries is made here, next to the code that carries it.
 * `externalId` is a common attribute (RFC 7643 §3.1), listed because clients reading the schema
 * use it to learn what is stored.
 */
export const groupSchema: ScimSchemaDefinition = {
  id: SCHEMA_GROUP,
  name: "Group",
  description: "Workspace team",
  attributes: [
    attribute("displayName", "string", "Team name. Unique, compared case-insensitively.", { required: true, uniqueness: "server" }),
    attribute("externalId", "string", "Identifier of the team in the provisioning client.", { caseExact: true }),
    attribute("members", "complex", "Active workspace users in the team. Unknown or deactivated users sent by a client are skipped.", {
      multiValued: true,
      subAttributes: [
        attribute("value", "integer", "The member's User id. Accepted as a string or a number; returned as a number.", {
          mutability: "immutable",
        }),
        attribute("$ref", "reference", "URI of the member's User resource. Returned when requested (attributes=members.$ref).", {
          mutability: "immutable",
          referenceTypes: ["User"],
          caseExact: true,
          returned: "request",
        }),
        attribute("display", "string", "The member's displayName. Returned when requested (attributes=members.display).", {
          mutability: "readOnly",
          returned: "request",
        }),
        attribute("type", "string", "Always User (nested groups are not supported).", { mutability: "immutable", canonicalValues: ["User"] }),
      ],
    }),
  ],
};
