/**
 * The User's column map: for each of the nine SCIM attributes the directory keeps in a `users`
 * column, its attribute path, its `UserState` field, its column, how a value is read and what
 * rule it obeys. Everything that moves one of them between shapes derives from this list — the
 * row ↔ state mapping and the written columns (users.ts), validation (users.ts), the SCIM body
 * and PATCH readers (src/scim/users/rules.ts, patch.ts), the filter and sort resolver
 * (src/scim/users/attributes.ts) and the renderer (src/scim/users/render.ts) — so adding a
 * column attribute is one entry here plus its column in tables.ts. `emails` (a rendered JSON
 * column beside the `user_emails` index rows) and the profile document are not scalars and are
 * handled beside this map. The order is `UserState`'s, and a resource renders them in it.
 */
export const USER_TYPES = ["regular", "read-only", "billing"] as const;
export type UserType = (typeof USER_TYPES)[number];

export type EmailState = { value: string; type: string | null; primary: boolean; display?: string };

/** A user as the directory holds it; the column map below names which fields are columns. */
export type UserState = {
  userName: string;
  externalId: string | null;
  givenName: string | null;
  familyName: string | null;
  formattedName: string | null;
  displayNameGiven: string | null;
  title: string | null;
  userType: UserType;
  active: boolean;
  emails: EmailState[];
  /**
   * Every other attribute the IdP sent, in the SCIM shape (nickName, phoneNumbers, addresses,
   * the enterprise extension under its URN, …). The directory stores and returns it as given;
   * SCIM normalises it against the User schema (src/scim/users/schema.ts) before it gets here.
   */
  profile: Record<string, unknown>;
};

/** How a value is read from a request and stored: optional text, the seat type, or a boolean (0/1). */
export type ColumnKind = "text" | "userType" | "boolean";

export type UserColumn = {
  /** The SCIM attribute path as the User schema spells it (`userName`, `name.givenName`). */
  readonly attribute: string;
  /** The `UserState` field holding it. */
  readonly field: keyof UserState;
  /** The `users` column storing the field (snake_case SQL name). */
  readonly column: string;
  readonly kind: ColumnKind;
  /**
   * The column a response and a filter read when it is not `column`: `displayName` is stored as
   * the IdP sent it and answered as resolved by the spec 2.1 rule (`display_name`).
   */
  readonly rendered?: string;
  /** The indexed key column a filter and a sort compare on, and how a literal is folded into it. */
  readonly key?: { readonly column: string; readonly fold: "caseFoldKey" };
  /** RFC 7643 caseExact (compared as sent). */
  readonly caseExact?: true;
  /** The longest value: UTF-16 units, or code points for the name parts the product shows. */
  readonly max?: { readonly length: number; readonly unit: "units" | "codePoints" };
  /** POST /Users requires it (spec 4.1: both name parts); userName is required by every verb. */
  readonly requiredOnCreate?: true;
};

export const MAX_NAME_PART = 60;
export const MAX_TEXT = 1024;

export const USER_COLUMN_MAP = [
  { attribute: "userName", field: "userName", column: "user_name", kind: "text", key: { column: "user_name_key", fold: "caseFoldKey" } },
  { attribute: "externalId", field: "externalId", column: "external_id", kind: "text", caseExact: true, max: { length: MAX_TEXT, unit: "units" } },
  { attribute: "name.givenName", field: "givenName", column: "given_name", kind: "text", max: { length: MAX_NAME_PART, unit: "codePoints" }, requiredOnCreate: true },
  { attribute: "name.familyName", field: "familyName", column: "family_name", kind: "text", max: { length: MAX_NAME_PART, unit: "codePoints" }, requiredOnCreate: true },
  { attribute: "name.formatted", field: "formattedName", column: "formatted_name", kind: "text", max: { length: MAX_TEXT, unit: "units" } },
  { attribute: "displayName", field: "displayNameGiven", column: "display_name_given", rendered: "display_name", kind: "text", max: { length: MAX_TEXT, unit: "units" } },
  { attribute: "title", field: "title", column: "title", kind: "text", max: { length: MAX_TEXT, unit: "units" } },
  { attribute: "userType", field: "userType", column: "user_type", kind: "userType" },
  { attribute: "active", field: "active", column: "active", kind: "boolean" },
] as const satisfies readonly UserColumn[];

export type UserColumnEntry = (typeof USER_COLUMN_MAP)[number];

/** The entry for an attribute path, compared case-insensitively (`username`, `name.GIVENNAME`); undefined when it is not a column. */
export function userColumnOf(path: string): UserColumn | undefined {
  return BY_PATH.get(path.toLowerCase());
}
const BY_PATH = new Map<string, UserColumn>(USER_COLUMN_MAP.map((c) => [c.attribute.toLowerCase(), c]));

/** Top-level attribute names whose whole value is columns (lower case); `name` is split between columns and the profile. */
export const COLUMN_ATTRIBUTES: ReadonlySet<string> = new Set([...USER_COLUMN_MAP.filter((c) => !c.attribute.includes(".")).map((c) => c.attribute.toLowerCase()), "emails"]);
/** `name` sub-attributes kept in columns (lower case); the other parts are profile data. */
export const COLUMN_NAME_PARTS: ReadonlySet<string> = new Set(USER_COLUMN_MAP.filter((c) => c.attribute.startsWith("name.")).map((c) => c.attribute.slice(5).toLowerCase()));
