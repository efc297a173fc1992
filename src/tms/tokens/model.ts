import { t } from "elysia";
import { NumericId } from "../../http/paging";

export const ApiTokenCreate = t.Object({
  name: t.String({ minLength: 1, maxLength: 200, description: "What the token is for, e.g. \"CI reporter\"" }),
  userId: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()], { description: "SCIM user id to attribute everything written with this token to (a member of the workspace)" })),
  workspaceId: t.Optional(t.Integer({ minimum: 1, description: "The workspace whose projects the token reaches; default 1 (the default workspace)" })),
}, { examples: [{ name: "CI reporter", userId: null, workspaceId: 1 }] });
export type ApiTokenCreateBody = typeof ApiTokenCreate.static;

export const ApiTokenView = t.Object({
  id: t.Integer(),
  name: t.String(),
  userId: t.Union([t.Integer(), t.Null()]),
  userName: t.Union([t.String(), t.Null()]),
  workspaceId: t.Integer(),
  createdAt: t.String(),
  lastUsedAt: t.Union([t.String(), t.Null()]),
  revokedAt: t.Union([t.String(), t.Null()]),
});
export const ApiTokenCreated = t.Composite([ApiTokenView, t.Object({ token: t.String({ description: "Shown once; send it as the `Token` header" }) })]);
export const TokenIdParam = t.Object({ id: NumericId });
