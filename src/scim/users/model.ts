import { t } from "elysia";

/**
 * Request and response shapes of /Users. Types only (strings vs booleans vs arrays): an
 * unexpected type is a 400 `invalidValue` from validation; the rules (e-mail syntax, userType
 * values, 60-character names, uniqueness, seats) live in service.ts so POST, PUT and PATCH share
 * them. Unknown attributes are allowed and dropped (normalisation), as RFC 7644 expects.
 * Attribute names in bodies are case-insensitive: index.ts canonicalises keys before validation.
 */

/** `active` as IdPs send it: a boolean, or Entra's "True"/"False" strings. */
export const BooleanLike = t.Union([t.Boolean(), t.String({ pattern: "^([Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee])$" })]);

const OptionalString = t.Optional(t.Nullable(t.String()));

export const UserName = t.Object({
  givenName: OptionalString,
  familyName: OptionalString,
  formatted: OptionalString,
  middleName: OptionalString,
  honorificPrefix: OptionalString,
  honorificSuffix: OptionalString,
});

export const UserEmail = t.Object({
  value: t.String(),
  type: OptionalString,
  primary: t.Optional(t.Nullable(BooleanLike)),
  display: OptionalString,
});

/** POST and PUT body (the writable attributes of RFC 7643 §4.1 that Gatehouse stores). */
export const UserBody = t.Object({
  schemas: t.Optional(t.Array(t.String())),
  userName: t.String({ description: "The user's e-mail address; unique, compared case-insensitively" }),
  externalId: OptionalString,
  name: t.Optional(t.Nullable(UserName)),
  displayName: OptionalString,
  title: OptionalString,
  userType: t.Optional(t.Nullable(t.String({ description: "regular (default), read-only or billing" }))),
  active: t.Optional(t.Nullable(BooleanLike)),
  emails: t.Optional(t.Nullable(t.Array(UserEmail))),
});
export type UserBody = typeof UserBody.static;

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

/** The User resource as rendered (documentation; responses may be projected by `attributes`). */
export const UserResource = t.Object({
  schemas: t.Array(t.String()),
  id: t.String({ description: "Decimal string of the internal integer id" }),
  externalId: t.Optional(t.String()),
  userName: t.String(),
  name: t.Object({ givenName: t.Optional(t.String()), familyName: t.Optional(t.String()), formatted: t.Optional(t.String()) }),
  displayName: t.String(),
  active: t.Boolean(),
  userType: t.String(),
  title: t.Optional(t.String()),
  emails: t.Optional(t.Array(t.Object({ value: t.String(), type: t.Optional(t.String()), primary: t.Boolean() }))),
  meta: t.Object({ resourceType: t.Literal("User"), created: t.String(), lastModified: t.String(), location: t.String() }),
});
