import { t } from "elysia";
import type { TObject, TSchema, TString } from "@sinclair/typebox";
import type { ScimAttribute } from "../discovery/attributes";
import { SCHEMA_ENTERPRISE_USER, SCHEMA_PATCH_OP, SCHEMA_USER } from "../protocol";
import { ListResponseOf, listParams, projectionParams, ResourceMeta } from "../responses";
import { enterpriseUserSchema, userSchema } from "./schema";

/**
 * Request and response shapes of /Users, generated from the User schema (schema.ts), so the
 * validator, the OpenAPI document and /Schemas describe the same attributes. Types only
 * (strings vs booleans vs arrays): an unexpected type is a 400 `invalidValue` from validation;
 * the rules (e-mail syntax, userType values, 60-character names, uniqueness, seats) live in the
 * directory so POST, PUT and PATCH share them. Unknown attributes are allowed and dropped
 * (normalisation), as RFC 7644 expects; so are read-only ones a client echoes back (`groups`).
 * Attribute names in bodies are case-insensitive: index.ts canonicalises keys before validation.
 */

/** `active` (and every boolean) as IdPs send it: a boolean, or Entra's "True"/"False" strings. */
export const BooleanLike = t.Union([t.Boolean(), t.String({ pattern: "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$" })]);

const writable = (a: ScimAttribute) => a.mutability !== "readOnly";

/** The request type of one attribute: optional and nullable (null = unassigned, RFC 7643 §2.5). */
function requestType(a: ScimAttribute): TSchema {
  let one: TSchema;
  switch (a.type) {
    case "complex": {
      const shape = t.Object(Object.fromEntries(a.subAttributes!.filter(writable).map((s) => [s.name, t.Optional(t.Nullable(requestType(s)))])), { description: a.description });
      // a bare value for a complex attribute is its `value` (Entra sends the manager's id alone)
      one = !a.multiValued && a.subAttributes!.some((s) => s.name === "value") ? t.Union([shape, t.String()]) : shape;
      break;
    }
    case "boolean":
      one = BooleanLike;
      break;
    case "integer":
      one = t.Integer({ description: a.description });
      break;
    case "decimal":
      one = t.Number({ description: a.description });
      break;
    default:
      one = t.String({ description: a.description });
  }
  return a.multiValued ? t.Array(one, { description: a.description }) : one;
}

const requestProperties = (attributes: ScimAttribute[]) =>
  Object.fromEntries(attributes.filter(writable).map((a) => [a.name, a.name === "userName" ? requestType(a) : t.Optional(t.Nullable(requestType(a)))]));

/** POST and PUT body: every writable attribute of the User schema and the enterprise extension. */
export const UserBody = t.Object({
  schemas: t.Optional(t.Array(t.String())),
  ...requestProperties(userSchema.attributes),
  [SCHEMA_ENTERPRISE_USER]: t.Optional(t.Nullable(t.Object(requestProperties(enterpriseUserSchema.attributes), { description: "Enterprise User extension (RFC 7643 §4.3)" }))),
  // generated properties have no static type; userName (required) is the one the code reads by name
}, {
  examples: [{
    schemas: [SCHEMA_USER],
    userName: "ada@example.com",
    externalId: "00u1a2b3c4",
    name: { givenName: "Ada", familyName: "Lovelace" },
    emails: [{ value: "ada@example.com", type: "work", primary: true }],
    userType: "regular",
    active: true,
  }],
}) as unknown as TObject<{ userName: TString }>;
export type UserBody = { userName: string } & Record<string, unknown>;

export const PatchOperation = t.Object({
  op: t.String({ description: "add, replace or remove, in any case" }),
  path: t.Optional(t.Nullable(t.String())),
  value: t.Optional(t.Any()),
});
export const PatchBody = t.Object({
  schemas: t.Optional(t.Array(t.String())),
  Operations: t.Array(PatchOperation, { minItems: 1 }),
}, {
  examples: [{ schemas: [SCHEMA_PATCH_OP], Operations: [{ op: "replace", path: "active", value: false }, { op: "replace", path: "name.familyName", value: "King" }] }],
});
export type PatchOperation = typeof PatchOperation.static;

export const UserIdParams = t.Object({ id: t.String() });

/** The response type of one attribute, as rendered (RFC 7643 types; dateTime as RFC 3339). */
function responseType(a: ScimAttribute): TSchema {
  let one: TSchema;
  switch (a.type) {
    case "complex":
      // sub-attributes may be left out too (attributes=emails.value)
      one = t.Object(Object.fromEntries(a.subAttributes!.filter(returnable).map((s) => [s.name, t.Optional(responseType(s))])));
      break;
    case "boolean":
      one = t.Boolean();
      break;
    case "integer":
      one = t.Integer();
      break;
    case "decimal":
      one = t.Number();
      break;
    case "dateTime":
      one = t.String({ format: "date-time" });
      break;
    default:
      one = a.canonicalValues?.length && a.name === "userType" ? t.UnionEnum(a.canonicalValues as [string, ...string[]]) : t.String();
  }
  const described = { ...one, description: a.description } as TSchema;
  return a.multiValued ? t.Array(described, { description: a.description }) : described;
}

const returnable = (a: ScimAttribute) => a.returned !== "never" && a.name !== "$ref";
const responseProperties = (attributes: ScimAttribute[]) =>
  Object.fromEntries(attributes.filter((a) => returnable(a) && a.name !== "id").map((a) => [a.name, t.Optional(responseType(a))]));

/**
 * The User resource as rendered, generated from the same schema. Only `schemas` and `id` always
 * come: `attributes` / `excludedAttributes` may leave out anything else (RFC 7644 §3.9), and unset
 * attributes are omitted, never null.
 */
export const UserResource = t.Object({
  schemas: t.Array(t.String()),
  id: t.String({ pattern: "^[0-9]+$", description: "Decimal string of the internal integer id", examples: ["42"] }),
  ...responseProperties(userSchema.attributes),
  [SCHEMA_ENTERPRISE_USER]: t.Optional(t.Object(responseProperties(enterpriseUserSchema.attributes), { description: "Enterprise User extension (RFC 7643 §4.3)" })),
  meta: t.Optional(ResourceMeta("User")),
}, { description: "A SCIM User (RFC 7643 §4.1); attributes not requested or not set are left out" });

export const UserListResponse = ListResponseOf(UserResource, "A page of users");

/** GET /Users query (RFC 7644 §3.4.2); names are case-insensitive. */
export const UserListQuery = t.Object({
  filter: t.Optional(t.String({ description: 'RFC 7644 filter: attribute paths, value paths (emails[type eq "work"]), and/or/not, parentheses, pr and every comparison operator. E.g. userName eq "ada@example.com".' })),
  sortBy: t.Optional(t.String({ description: "An attribute path, e.g. userName or meta.created; default: by id." })),
  ...listParams,
});
export const UserProjectionQuery = t.Object(projectionParams);
