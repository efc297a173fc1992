import { t } from "elysia";
import { NumericId } from "../../http/paging";

const WorkspaceId = t.Nullable(t.Integer({ minimum: 1, description: "The workspace a workspace token provisions; null: an organization token (every workspace)" }));
export const CreateScimTokenBody = t.Object({
  name: t.String({ minLength: 1, maxLength: 200, description: "What the token is for, e.g. \"Entra ID production\"" }),
  workspaceId: t.Optional(WorkspaceId),
}, { examples: [{ name: "Entra ID production", workspaceId: null }] });
export const ScimTokenInfo = t.Object({
  id: t.Integer(),
  name: t.String(),
  workspaceId: WorkspaceId,
  createdAt: t.String({ format: "date-time" }),
  lastUsedAt: t.Nullable(t.String({ format: "date-time" })),
  revokedAt: t.Nullable(t.String({ format: "date-time" })),
});
export const CreatedScimToken = t.Object({
  id: t.Integer(),
  name: t.String(),
  workspaceId: WorkspaceId,
  token: t.String({ description: "The bearer token. Shown only in this response; store it in the IdP now." }),
  createdAt: t.String({ format: "date-time" }),
});
export const ScimTokenIdParams = t.Object({ id: NumericId });
export const ScimSettings = t.Object({
  enabled: t.Boolean(),
  seats: t.Object({
    limit: t.Nullable(t.Integer({ description: "GATEHOUSE_LICENSE_SEATS; null = unlimited" })),
    regular: t.Integer({ description: "Active users holding a full (regular) seat" }),
    readOnly: t.Integer(),
    billing: t.Integer(),
  }),
});
export const PatchScimSettingsBody = t.Object({ enabled: t.Boolean() }, { examples: [{"enabled": false}] });
