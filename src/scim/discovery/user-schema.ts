import { SCHEMA_USER } from "../protocol";
import { attribute, type ScimSchemaDefinition } from "./attributes";

/** The User schema as Gatehouse's users carry it (spec 2.1 plus what IdPs send). */
export const userSchema: ScimSchemaDefinition = {
  id: SCHEMA_USER,
  name: "User",
  description: "Workspace user",
  attributes: [
    attribute("userName", "string", "The user's e-mail address; unique, compared case-insensitively.", { required: true, uniqueness: "server" }),
    attribute("externalId", "string", "Identifier of the user in the provisioning client.", { caseExact: true }),
    // POST /Users requires both name parts (spec 4.1); PUT and PATCH do not.
    attribute("name", "complex", "The user's name. givenName and familyName are required when a user is created.", {
      required: true,
      subAttributes: [
        attribute("formatted", "string", "Full name, formatted for display."),
        attribute("familyName", "string", "Family name; at most 60 characters. Required on create.", { required: true }),
        attribute("givenName", "string", "Given name; at most 60 characters. Required on create.", { required: true }),
      ],
    }),
    attribute("displayName", "string", "Name shown in the product."),
    attribute("title", "string", "Job title."),
    attribute("userType", "string", "Seat type: regular (full license), read-only (shown as Collaborator) or billing. Default regular.", {
      canonicalValues: ["regular", "read-only", "billing"],
    }),
    attribute("active", "boolean", "false once deactivated (DELETE or PATCH active false)."),
    attribute("emails", "complex", "E-mail addresses.", {
      multiValued: true,
      subAttributes: [
        attribute("value", "string", "E-mail address."),
        attribute("type", "string", "work, home or other.", { canonicalValues: ["work", "home", "other"] }),
        attribute("primary", "boolean", "The primary address."),
      ],
    }),
  ],
};
