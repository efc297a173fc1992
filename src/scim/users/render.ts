/**
 * A `users` row rendered as a SCIM User resource, derived from the column map
 * (src/directory/user-columns.ts): each column attribute where the map puts it (name parts under
 * `name`, which is always present), `emails` from its rendered JSON copy, the profile document
 * merged in (its name parts join `name`, the enterprise extension comes under its URN), `meta`
 * last. Pure: the manager's computed `$ref`/`displayName` read the database, so the caller adds
 * them to a whole page at once (`managerOf`).
 *
 * The column part is compiled once from the map into straight-line code (one property access and
 * one assignment per column, every resource built with the same shape), not walked per resource:
 * a page renders 1000 of them, and the walk measured ~1.7× the straight code
 * (docs/benchmarks/read-path.md). The generated source holds only the map's constant names.
 */
import { jsonDocumentText, type JsonMembers, type JsonMemberValue } from "../../db/dialect";
import { USER_COLUMN_MAP } from "../../directory/user-columns";
import { users } from "../../directory/tables";
import type { UserResourceRow } from "../../directory/users";
import { resourceLocation, SCHEMA_ENTERPRISE_USER, SCHEMA_USER } from "../protocol";

export type UserResource = Record<string, unknown> & { id: string };

type ColumnsRenderer = (r: UserResourceRow, out: UserResource) => Record<string, unknown>;

/** `(row, out) => name`: writes the map's columns onto `out` in map order; returns the `name` object it put there. */
function compileColumns(): ColumnsRenderer {
  const q = (s: string) => JSON.stringify(s);
  const lines = ["const name = {};"];
  let nameWritten = false;
  for (const c of USER_COLUMN_MAP) {
    const value = `r[${q("rendered" in c ? c.rendered : c.column)}]`;
    const inName = c.attribute.startsWith("name.");
    if (inName && !nameWritten) {
      lines.push("out.name = name;");
      nameWritten = true;
    }
    const target = inName ? `name[${q(c.attribute.slice(5))}]` : `out[${q(c.attribute)}]`;
    if (c.kind === "boolean") lines.push(`${target} = ${value} === 1;`);
    else lines.push(`if (${value} !== null) ${target} = ${value};`);
  }
  if (!nameWritten) lines.push("out.name = name;");
  lines.push("return name;");
  return new Function("r", "out", lines.join("\n")) as ColumnsRenderer;
}
const renderColumns = compileColumns();

/** The enterprise extension's `manager` of a rendered resource, when it names a user by a numeric id (its `$ref` and `displayName` are computed). */
export function managerOf(resource: UserResource): { extension: Record<string, unknown>; manager: { value: string }; id: number } | null {
  const extension = resource[SCHEMA_ENTERPRISE_USER] as Record<string, unknown> | undefined;
  const manager = extension?.manager as { value?: unknown } | undefined;
  if (!extension || typeof manager?.value !== "string" || !/^\d{1,15}$/.test(manager.value)) return null;
  return { extension, manager: manager as { value: string }, id: Number(manager.value) };
}

/** The renderer for an installation at `baseUrl`. */
export function userRenderer(baseUrl: string) {
  // `{base}/scim/v2/Users/`: a user's location is this and the integer id (1000 per page).
  const locationPrefix = resourceLocation(baseUrl, "Users", "");
  return (r: UserResourceRow): UserResource => {
    const out: UserResource = { schemas: [SCHEMA_USER], id: String(r.id) };
    const name = renderColumns(r, out);
    if (r.emails !== "[]") out.emails = JSON.parse(r.emails);
    if (r.profile !== "{}") mergeProfile(out, name, r.profile);
    out.meta = { resourceType: "User", created: r.created_at, lastModified: r.updated_at, location: `${locationPrefix}${r.id}` };
    return out;
  };
}

/**
 * Merges a stored profile document into a rendered resource: it is stored in the SCIM shape, so
 * its name parts join `name`, the extension gets its URN, the rest lands at the top, before
 * `meta` (which stays last when the resource has it already).
 */
export function mergeProfile(out: UserResource, name: Record<string, unknown>, profile: string): void {
  const { name: nameParts, [SCHEMA_ENTERPRISE_USER]: extension, ...rest } = JSON.parse(profile) as Record<string, unknown>;
  const meta = out.meta;
  if (meta !== undefined) delete out.meta;
  if (nameParts) Object.assign(name, nameParts);
  Object.assign(out, rest);
  if (extension) {
    out.schemas = [SCHEMA_USER, SCHEMA_ENTERPRISE_USER];
    out[SCHEMA_ENTERPRISE_USER] = extension;
  }
  if (meta !== undefined) out.meta = meta;
}

/**
 * SQL text (for a query that aliases `users` as `u`) of a user's resource as JSON text, built
 * by the engine — the same members, in the same order, as `userRenderer` gives a row whose
 * profile is empty (test/scim/users/page-text.test.ts holds the two together). Parameter
 * `locationParam` is `{base}/scim/v2/Users/`. A 1000-user page copies 1000 of these into its
 * answer instead of making each row an object, rendering and serialising it: the three were
 * four fifths of a page's CPU (docs/benchmarks/read-path.md, round 6).
 */
export function userResourceJsonText(locationParam: string): string {
  const members: [string, JsonMemberValue][] = [["schemas", { texts: [`'${SCHEMA_USER}'`] }], ["id", { text: "CAST(u.id AS TEXT)", notNull: true }]];
  const name: [string, JsonMemberValue][] = [];
  // NOT NULL columns need no test for a missing member (the engine writes them unconditionally).
  const notNull = new Set(Object.values(users).filter((c) => c.notNull).map((c) => c.name));
  for (const c of USER_COLUMN_MAP) {
    const stored = "rendered" in c ? c.rendered! : c.column;
    const column = `u.${stored}`;
    const value: JsonMemberValue = c.kind === "boolean" ? { boolean: column } : notNull.has(stored) ? { text: column, notNull: true } : { text: column };
    if (c.attribute.startsWith("name.")) {
      if (name.length === 0) members.push(["name", { object: name }]);
      name.push([c.attribute.slice(5), value]);
    } else members.push([c.attribute, value]);
  }
  if (name.length === 0) members.push(["name", { object: name }]);
  members.push(["emails", { json: "CASE WHEN u.emails = '[]' THEN NULL ELSE u.emails END" }]);
  members.push(["meta", { object: [["resourceType", { text: "'User'", notNull: true }], ["created", { text: "u.created_at", notNull: true }], ["lastModified", { text: "u.updated_at", notNull: true }], ["location", { text: `CAST(${locationParam} AS TEXT) || CAST(u.id AS TEXT)`, notNull: true }]] }]);
  return jsonDocumentText(members as JsonMembers);
}
