import { t } from "elysia";
import { NumericId } from "../../http/paging";
import { Envelope, Limit, Offset } from "../shared/envelope";

/** Qase `SystemField`: a built-in dictionary field and its options (ids are the numbers the API takes). */
const SystemFieldOption = t.Object({
  id: t.Integer(), title: t.String(), slug: t.String(), color: t.Union([t.String(), t.Null()]), icon: t.Union([t.String(), t.Null()]),
  is_default: t.Boolean(), read_only: t.Boolean(),
});
const SystemField = t.Object({
  title: t.String(), slug: t.String(), default_value: t.Union([t.String(), t.Null()]), is_required: t.Boolean(),
  entity: t.Integer({ description: "0 test case, 1 test run result" }), type: t.Integer({ description: "3 selectbox" }),
  options: t.Array(SystemFieldOption),
});
export const SystemFieldList = Envelope(t.Array(SystemField));

/** Qase `User`, read from the SCIM-provisioned directory. `status`: 1 active, 0 deactivated. */
const UserView = t.Object({ id: t.Integer(), name: t.String(), email: t.String(), title: t.String(), status: t.Integer() });
export const UserResult = Envelope(UserView);
export const UserList = Envelope(t.Object({ total: t.Integer(), filtered: t.Integer(), count: t.Integer(), entities: t.Array(UserView) }));

/** Qase `Author`: who wrote entities (every directory user; `entity_type` "user"). */
const AuthorView = t.Object({
  id: t.Integer(), author_id: t.Integer(), entity_type: t.String(), entity_id: t.Integer(), email: t.String(), name: t.String(), is_active: t.Boolean(),
});
export const AuthorResult = Envelope(AuthorView);
export const AuthorList = Envelope(t.Object({ total: t.Integer(), filtered: t.Integer(), count: t.Integer(), entities: t.Array(AuthorView) }));
export const AuthorListQuery = t.Object({ limit: Limit, offset: Offset, search: t.Optional(t.String({ maxLength: 255 })), type: t.Optional(t.String({ maxLength: 32 })) });
export const IdParam = t.Object({ id: NumericId });
