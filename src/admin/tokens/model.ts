import { t } from "elysia";
import { NumericId } from "../../http/paging";

/** Schemas of the admin-token API: validation, types and the OpenAPI document share them. */

const Role = t.Union([t.Literal("viewer"), t.Literal("operator"), t.Literal("owner")], { description: "What the token may do: viewer reads, operator runs webhooks and tokens, owner does everything" });
const IsoTime = t.String({ format: "date-time" });

export const AdminTokenCreate = t.Object(
  {
    name: t.String({ minLength: 1, maxLength: 100, description: "Unique among tokens not revoked (compared case-insensitively); shown in the audit log" }),
    role: Role,
    expiresInDays: t.Integer({ minimum: 1, maximum: 366, description: "The token stops working this many days from now" }),
  },
  { additionalProperties: false, examples: [{ name: "nightly backup check", role: "viewer", expiresInDays: 90 }] },
);
export type AdminTokenCreate = typeof AdminTokenCreate.static;

export const AdminTokenView = t.Object({
  id: t.Integer(),
  name: t.String(),
  role: Role,
  createdBy: t.String({ description: "Who created it (a person, or the name of the token used)" }),
  createdAt: IsoTime,
  expiresAt: IsoTime,
  lastUsedAt: t.Union([IsoTime, t.Null()], { description: "To the minute" }),
  revokedAt: t.Union([IsoTime, t.Null()]),
  state: t.Union([t.Literal("active"), t.Literal("expired"), t.Literal("revoked")]),
});
export type AdminTokenView = typeof AdminTokenView.static;

export const AdminTokenCreated = t.Composite([AdminTokenView, t.Object({ token: t.String({ description: "gadm_… — shown only in this answer; send it as `Authorization: Bearer`" }) })]);
export const AdminTokenList = t.Object({ items: t.Array(AdminTokenView) });
export const AdminTokenIdParams = t.Object({ id: NumericId });
