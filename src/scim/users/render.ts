/**
 * A `users` row rendered as a SCIM User resource, derived from the column map
 * (src/directory/user-columns.ts): each column attribute where the map puts it (name parts under
 * `name`, which is always present), `emails` from its rendered JSON copy, the profile document
 * merged in (its name parts join `name`, the enterprise extension comes under its URN), `meta`
 * last. Pure apart from the manager reference, which the caller resolves (it reads the database).
 */
import { USER_COLUMN_MAP } from "../../directory/user-columns";
import type { UserDbRow } from "../../directory/users";
import { resourceLocation, SCHEMA_ENTERPRISE_USER, SCHEMA_USER } from "../protocol";

export type UserResource = Record<string, unknown> & { id: string };

/** One column attribute as a resource carries it: which row column, under which key, inside `name` or not. */
type Step = { column: string; key: string; inName: boolean; boolean: boolean };
const STEPS: Step[] = USER_COLUMN_MAP.map((c) => ({
  column: "rendered" in c ? c.rendered : c.column,
  key: c.attribute.startsWith("name.") ? c.attribute.slice(5) : c.attribute,
  inName: c.attribute.startsWith("name."),
  boolean: c.kind === "boolean",
}));

/**
 * The renderer for an installation at `baseUrl`. `withManagerReference` adds what the enterprise
 * extension's manager computes (`$ref`, `displayName`) when the scope sees that user.
 */
export function userRenderer<S>(baseUrl: string, withManagerReference: (extension: Record<string, unknown>, scope: S) => Record<string, unknown>) {
  // `{base}/scim/v2/Users/`: a user's location is this and the integer id (1000 per page).
  const locationPrefix = resourceLocation(baseUrl, "Users", "");
  return (r: UserDbRow, scope: S): UserResource => {
    const row = r as unknown as Record<string, string | number | null>;
    const out: UserResource = { schemas: [SCHEMA_USER], id: String(r.id) };
    let name: Record<string, unknown> | undefined;
    for (const step of STEPS) {
      const v = row[step.column]!;
      if (step.inName) {
        if (!name) out.name = name = {};
        if (v !== null) name[step.key] = v;
      } else if (step.boolean) out[step.key] = v === 1;
      else if (v !== null) out[step.key] = v;
    }
    if (r.emails !== "[]") out.emails = JSON.parse(r.emails);
    if (r.profile !== "{}") {
      // the profile is stored in the SCIM shape: its name parts join `name`, the extension gets its URN
      const { name: nameParts, [SCHEMA_ENTERPRISE_USER]: extension, ...rest } = JSON.parse(r.profile) as Record<string, unknown>;
      if (nameParts) Object.assign(name!, nameParts);
      Object.assign(out, rest);
      if (extension) {
        out.schemas = [SCHEMA_USER, SCHEMA_ENTERPRISE_USER];
        out[SCHEMA_ENTERPRISE_USER] = withManagerReference(extension as Record<string, unknown>, scope);
      }
    }
    out.meta = { resourceType: "User", created: r.created_at, lastModified: r.updated_at, location: `${locationPrefix}${r.id}` };
    return out;
  };
}
