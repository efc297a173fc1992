import { t } from "elysia";
import { SCHEMA_PATCH_OP } from "../protocol";

/**
 * A member as IdPs send it. `value` is the user's id, a string per the spec (Entra, Okta) or a
 * number (some middleware echoes our responses back). Extra keys (`display`, `$ref`, `type`)
 * are tolerated; `type` other than "User" is skipped like an unknown member.
 */
export const GroupMemberInput = t.Object(
  {
    value: t.Union([t.String(), t.Number()], { description: "The user's id (`42` or `\"42\"`)." }),
    type: t.Optional(t.Union([t.String(), t.Null()])),
    display: t.Optional(t.Union([t.String(), t.Null()])),
    $ref: t.Optional(t.Union([t.String(), t.Null()])),
  },
  { additionalProperties: true },
);

/** Body of POST /Groups and PUT /Groups/{id}. Unknown keys (`meta`, vendor noise) are ignored. */
export const GroupWrite = t.Object(
  {
    schemas: t.Optional(t.Array(t.String())),
    id: t.Optional(t.String({ description: "Ignored on PUT (the path names the group)." })),
    displayName: t.String({ minLength: 1, description: "Team name; unique, compared case-insensitively." }),
    externalId: t.Optional(t.Union([t.String(), t.Null()])),
    members: t.Optional(t.Union([t.Array(GroupMemberInput), t.Null()], { description: "PUT: omitting members removes every member." })),
  },
  { additionalProperties: true },
);
export type GroupWrite = typeof GroupWrite.static;

export const GroupPatchOperation = t.Object(
  {
    op: t.String({ description: "add, remove or replace (any case)." }),
    path: t.Optional(t.Union([t.String(), t.Null()])),
    value: t.Optional(t.Unknown()),
  },
  { additionalProperties: true },
);
export type GroupPatchOperation = typeof GroupPatchOperation.static;

export const GroupPatch = t.Object(
  {
    schemas: t.Optional(t.Array(t.String(), { description: `Must contain ${SCHEMA_PATCH_OP} when sent.` })),
    Operations: t.Array(GroupPatchOperation),
  },
  { additionalProperties: true },
);
export type GroupPatch = typeof GroupPatch.static;

/**
 * A member in responses. `$ref` (the User's URL, on request with attributes=members.$ref) is
 * left out of this documentation schema on purpose: a property literally named "$ref" reads as a
 * JSON reference to OpenAPI tooling.
 */
export const GroupMember = t.Object(
  {
    value: t.Integer({ description: "The user's id, a number in responses." }),
    display: t.Optional(t.String({ description: "The user's displayName; only when requested (attributes=members.display)." })),
    type: t.Literal("User"),
  },
  { additionalProperties: true, description: "Also `$ref`, the User's URL, when requested (attributes=members.$ref)." },
);

export const GroupResource = t.Object({
  schemas: t.Array(t.String()),
  id: t.String({ description: "Opaque hash id." }),
  externalId: t.Optional(t.String()),
  displayName: t.String(),
  members: t.Optional(t.Array(GroupMember)),
  meta: t.Object({
    resourceType: t.Literal("Group"),
    created: t.String(),
    lastModified: t.String(),
    location: t.String(),
  }),
});
export type GroupResource = typeof GroupResource.static;
export type GroupMember = typeof GroupMember.static & { $ref?: string };

const projection = {
  attributes: t.Optional(t.String({ description: "Comma-separated attributes to return (id and schemas always come)." })),
  excludedAttributes: t.Optional(t.String({ description: "Comma-separated attributes to leave out; Entra sends `members`." })),
};
export const GroupProjectionQuery = t.Object(projection, { additionalProperties: true });
export const GroupListQuery = t.Object(
  {
    filter: t.Optional(t.String({ description: 'displayName only: eq ne co sw ew pr gt ge lt le, and/or, parentheses (no not). E.g. displayName eq "QA".' })),
    startIndex: t.Optional(t.String({ description: "1-based; below 1 means 1." })),
    count: t.Optional(t.String({ description: "Page size, default 100, at most 1000; 0 returns only totalResults." })),
    sortBy: t.Optional(t.String({ description: "displayName, id, externalId, meta.created or meta.lastModified." })),
    sortOrder: t.Optional(t.String({ description: "ascending (default) or descending." })),
    ...projection,
  },
  { additionalProperties: true },
);

export const GroupListResponse = t.Object({
  schemas: t.Array(t.String()),
  totalResults: t.Integer(),
  itemsPerPage: t.Integer(),
  startIndex: t.Integer(),
  Resources: t.Array(GroupResource),
});

/**
 * OpenAPI `responses` for a route answering `schema` as application/scim+json. Documentation
 * only: answers are not re-validated on the way out (a 10 000-member team would pay for it, and
 * unprojected answers are pre-serialised text — see service.ts `present`).
 */
export function scimResponse(status: number, description: string, schema?: unknown) {
  return {
    [status]: { description, ...(schema ? { content: { "application/scim+json": { schema } } } : {}) },
  };
}
