import { t } from "elysia";
import type { TObject, TSchema, TString } from "@sinclair/typebox";
import type { ScimAttribute } from "../discovery/attributes";
import { SCHEMA_ENTERPRISE_USER } from "../protocol";
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
});
export type PatchOperation = typeof PatchOperation.static;

export const UserIdParams = t.Object({ id: t.String() });
