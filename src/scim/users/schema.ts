/**
 * The User schema (RFC 7643 §4.1, §8.7.1) and the enterprise extension (§4.3), as data. One
 * description drives everything a User attribute means here: `/Schemas` renders it, request
 * bodies are typed from it (model.ts), attribute names are canonicalised from it, input is
 * normalised by it (profile.ts), PATCH paths and filter/sort paths resolve through it
 * (patch.ts, attributes.ts). Adding an attribute here makes it stored, returned, patchable,
 * filterable and sortable.
 *
 * Where each attribute lives: `userName`, `externalId`, `name.givenName|familyName|formatted`,
 * `displayName`, `title`, `userType`, `active` and `emails` are columns of `users`, listed once in
 * the directory's column map (src/directory/user-columns.ts: its rules read them; `userName`,
 * `externalId` and `emails.value` are indexed because IdPs look users up by them); `groups` is read from the memberships; every other attribute is kept in the
 * user's `profile` (a JSON document in the SCIM shape) and filtered with SQLite's JSON functions
 * (a scan, within the filter's cost bound). `password` is accepted and never stored (see below).
 */
import { attribute, type ScimAttribute, type ScimSchemaDefinition } from "../discovery/attributes";
import { SCHEMA_ENTERPRISE_USER, SCHEMA_USER } from "../protocol";

/** value / display / type / primary: the shape RFC 7643 §2.4 gives multi-valued attributes. */
function multiValued(name: string, description: string, types: string[], valueType: "string" | "reference" | "binary" = "string", extra: Partial<ScimAttribute> = {}): ScimAttribute {
  return attribute(name, "complex", description, {
    multiValued: true,
    subAttributes: [
      attribute("value", valueType, `The ${name} value.`, valueType === "reference" ? { referenceTypes: ["external"], caseExact: true } : {}),
      attribute("display", "string", "A human-readable name, primarily used for display purposes."),
      attribute("type", "string", `A label indicating the attribute's function.`, types.length ? { canonicalValues: types } : {}),
      attribute("primary", "boolean", "The primary or preferred value (at most one is true)."),
    ],
    ...extra,
  });
}

export const userSchema: ScimSchemaDefinition = {
  id: SCHEMA_USER,
  name: "User",
  description: "A person of the organization",
  attributes: [
    attribute("userName", "string", "The user's e-mail address; unique, compared case-insensitively.", { required: true, uniqueness: "server" }),
    attribute("externalId", "string", "Identifier of the user in the provisioning client.", { caseExact: true }),
    // POST /Users requires both name parts (spec 4.1); PUT and PATCH do not.
    attribute("name", "complex", "The user's name. givenName and familyName are required when a user is created.", {
      required: true,
      subAttributes: [
        attribute("formatted", "string", "Full name, formatted for display."),
        attribute("familyName", "string", "Family name; at most 60 characters. Required on create.", { required: true }),
        attribute("givenName", "string", "Given name; at most 60 characters. Required on create.", { required: true }),
        attribute("middleName", "string", "Middle name(s)."),
        attribute("honorificPrefix", "string", "Honorific prefix, e.g. Ms."),
        attribute("honorificSuffix", "string", "Honorific suffix, e.g. III."),
      ],
    }),
    attribute("displayName", "string", "Name shown in the product."),
    attribute("nickName", "string", "Casual name."),
    attribute("profileUrl", "reference", "URL of the user's online profile.", { referenceTypes: ["external"] }),
    attribute("title", "string", "Job title."),
    attribute("userType", "string", "Seat type: regular (full license), read-only (shown as Collaborator) or billing. Default regular.", {
      canonicalValues: ["regular", "read-only", "billing"],
    }),
    attribute("preferredLanguage", "string", "Preferred written or spoken language (RFC 7231 Accept-Language form), e.g. en-US."),
    attribute("locale", "string", "Default location for localization, e.g. en-US."),
    attribute("timezone", "string", "Time zone in the IANA database format, e.g. Europe/Berlin."),
    attribute("active", "boolean", "false once deactivated (DELETE or PATCH active false)."),
    attribute("password", "string", "Accepted and discarded: Gatehouse signs no one in (the IdP does), so it never stores a password.", {
      mutability: "writeOnly",
      returned: "never",
    }),
    multiValued("emails", "E-mail addresses.", ["work", "home", "other"]),
    multiValued("phoneNumbers", "Phone numbers.", ["work", "home", "mobile", "fax", "pager", "other"]),
    multiValued("ims", "Instant messaging addresses.", ["aim", "gtalk", "icq", "xmpp", "msn", "skype", "qq", "yahoo"]),
    multiValued("photos", "URLs of photos of the user.", ["photo", "thumbnail"], "reference"),
    attribute("addresses", "complex", "Physical mailing addresses.", {
      multiValued: true,
      subAttributes: [
        attribute("formatted", "string", "The full mailing address, formatted for display."),
        attribute("streetAddress", "string", "Street address."),
        attribute("locality", "string", "City or locality."),
        attribute("region", "string", "State or region."),
        attribute("postalCode", "string", "Zip or postal code."),
        attribute("country", "string", "Country (ISO 3166-1 alpha-2), e.g. US."),
        attribute("type", "string", "A label indicating the address's function.", { canonicalValues: ["work", "home", "other"] }),
        attribute("primary", "boolean", "The primary address (at most one is true)."),
      ],
    }),
    attribute("groups", "complex", "The teams the user belongs to, from the teams' member lists (change them through /Groups). Returned when requested (attributes=groups).", {
      multiValued: true,
      mutability: "readOnly",
      returned: "request",
      subAttributes: [
        attribute("value", "string", "The group's id.", { mutability: "readOnly" }),
        attribute("$ref", "reference", "URI of the Group resource.", { mutability: "readOnly", referenceTypes: ["Group"], caseExact: true }),
        attribute("display", "string", "The group's displayName.", { mutability: "readOnly" }),
        attribute("type", "string", "Always direct (groups do not nest).", { mutability: "readOnly", canonicalValues: ["direct"] }),
      ],
    }),
    multiValued("entitlements", "Entitlements of the user.", []),
    multiValued("roles", "Roles of the user.", []),
    multiValued("x509Certificates", "X.509 certificates (DER, base64).", [], "binary"),
  ],
};

export const enterpriseUserSchema: ScimSchemaDefinition = {
  id: SCHEMA_ENTERPRISE_USER,
  name: "EnterpriseUser",
  description: "Enterprise User",
  attributes: [
    attribute("employeeNumber", "string", "Numeric or alphanumeric identifier assigned by the organization."),
    attribute("costCenter", "string", "Name of a cost center."),
    attribute("organization", "string", "Name of an organization."),
    attribute("division", "string", "Name of a division."),
    attribute("department", "string", "Name of a department."),
    attribute("manager", "complex", "The user's manager.", {
      subAttributes: [
        attribute("value", "string", "The id of the manager's User resource."),
        attribute("$ref", "reference", "URI of the manager's User resource (computed from value when it names a user here).", {
          referenceTypes: ["User"],
          caseExact: true,
          mutability: "readOnly",
        }),
        attribute("displayName", "string", "The manager's displayName (computed from value when it names a user here).", { mutability: "readOnly" }),
      ],
    }),
  ],
};

/** The User schema and its extensions, in /Schemas order. */
export const USER_SCHEMAS = [userSchema, enterpriseUserSchema];

/** The schema a URN names (case-insensitive, RFC 7643 §2.1), or undefined. */
export function userSchemaOf(urn: string | undefined): ScimSchemaDefinition | undefined {
  if (urn === undefined) return userSchema;
  const lower = urn.toLowerCase();
  return USER_SCHEMAS.find((s) => s.id.toLowerCase() === lower);
}

/** The attribute called `name` (case-insensitive) among `attributes`. */
export function findAttribute(attributes: readonly ScimAttribute[] | undefined, name: string): ScimAttribute | undefined {
  const lower = name.toLowerCase();
  return attributes?.find((a) => a.name.toLowerCase() === lower);
}

/** Every attribute and sub-attribute name of the User schemas, plus the extension URN (for canonicalising body keys). */
export function userAttributeNames(): string[] {
  const out = new Set<string>([SCHEMA_ENTERPRISE_USER]);
  const walk = (list: readonly ScimAttribute[]) => {
    for (const a of list) {
      out.add(a.name);
      if (a.subAttributes) walk(a.subAttributes);
    }
  };
  for (const s of USER_SCHEMAS) walk(s.attributes);
  return [...out];
}
