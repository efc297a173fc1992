import { t } from "elysia";
import { SCHEMA_GROUP, SCHEMA_PATCH_OP } from "../protocol";
import { ListResponseOf, listParams, projectionParams, ResourceMeta } from "../responses";

/**
 * A member as IdPs send it. `value` is the user's id, a string per the spec (Entra, Okta) or a
 * number (some middleware echoes our responses back). Extra keys (`display`, `$ref`, `type`)
 * are tolerated; `type` other than "User" is skipped like an unknown member.
 */
export const GroupMemberInput = t.Object(
  {
    value: t.Union([t.String(), t.Integer()], { description: "The user's id (`42` or `\"42\"`)." }),
    type: t.Optional(t.Union([t.String(), t.Null()])),
    display: t.Optional(t.Union([t.String(), t.Null()])),
  },
  // `$ref` (the User's URL) is tolerated as an extra key rather than declared: a property named
  // "$ref" reads as a JSON reference to OpenAPI tooling.
  { additionalProperties: true, description: "Also accepted: `$ref`, the User's URL (ignored)." },
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
  { additionalProperties: true, examples: [{ schemas: [SCHEMA_GROUP], displayName: "QA team", externalId: "8c7a1f", members: [{ value: "42" }, { value: "43" }] }] },
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
  {
    additionalProperties: true,
    examples: [{ schemas: [SCHEMA_PATCH_OP], Operations: [{ op: "add", path: "members", value: [{ value: "44" }] }, { op: "remove", path: 'members[value eq "42"]' }] }],
  },
);
export type GroupPatch = typeof GroupPatch.static;

/**
 * A member in responses. `$ref` (the User's URL, on request with attributes=members.$ref) is
 * left out of this documentation schema on purpose: a property literally named "$ref" reads as a
 * JSON reference to OpenAPI tooling.
 */
export const GroupMember = t.Object(
  {
    value: t.Optional(t.Integer({ description: "The user's id, a number in responses (always, unless attributes names other sub-attributes only)." })),
    display: t.Optional(t.String({ description: "The user's displayName; only when requested (attributes=members.display)." })),
    type: t.Optional(t.Literal("User")),
  },
  { additionalProperties: true, description: "Also `$ref`, the User's URL, when requested (attributes=members.$ref)." },
);

/**
 * The Group resource as rendered. `schemas` and `id` always come; with `attributes` /
 * `excludedAttributes` the rest may be left out (RFC 7644 §3.9), members' sub-attributes too.
 */
export const GroupResource = t.Object({
  schemas: t.Array(t.String()),
  id: t.String({ description: "Opaque hash id." }),
  externalId: t.Optional(t.String()),
  displayName: t.Optional(t.String({ description: "Always present unless left out by attributes/excludedAttributes." })),
  members: t.Optional(t.Array(GroupMember)),
  meta: t.Optional(ResourceMeta("Group")),
}, { description: "A SCIM Group (RFC 7643 §4.2): a workspace team" });
export type GroupResource = typeof GroupResource.static;
export type GroupMember = typeof GroupMember.static & { $ref?: string };

/** GET /Groups query (RFC 7644 §3.4.2); names are case-insensitive. */
export const GroupListQuery = t.Object({
  filter: t.Optional(t.String({ description: 'displayName only: eq ne co sw ew pr gt ge lt le, and/or, parentheses (no not). E.g. displayName eq "QA".' })),
  sortBy: t.Optional(t.UnionEnum(["displayName", "id", "externalId", "meta.created", "meta.lastModified"], { description: "Default: by id." })),
  ...listParams,
});
export const GroupProjectionQuery = t.Object(projectionParams);

export const GroupListResponse = ListResponseOf(GroupResource, "A page of groups");
