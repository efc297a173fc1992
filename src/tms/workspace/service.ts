/**
 * Workspace-level read models Qase clients look up: the system fields (the case enums with the
 * numbers the API takes) and the people (users and authors, from the SCIM directory).
 */
import { and, count, eq, or, sql, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { first } from "../../db/transaction";
import { containsText } from "../../db/contains";
import { users, workspaceMembers } from "../../directory/tables";
import { badRequest, notFound } from "../../http/errors";
import { AUTOMATION, BEHAVIOR, CASE_STATUS, CASE_TYPE, IS_FLAKY, LAYER, PRIORITY, RESULT_STATUS, SEVERITY, type QaseEnum } from "../../qase/enums";

/** One selectbox system field: its options are the enum's, with Qase's numbers as option ids. */
function field<N extends string>(title: string, slug: string, e: QaseEnum<N>, entity: 0 | 1, defaultName: N | null) {
  const options = e.options.map((o) => ({ id: o.id, title: o.title, slug: o.slug, color: null, icon: null, is_default: o.name === defaultName, read_only: false }));
  const def = options.find((o) => o.is_default);
  return { title, slug, default_value: def ? String(def.id) : null, is_required: false, entity, type: 3, options };
}

/**
 * The case enums as Qase's `system_field` list (what @qase/mcp-server reads to turn "critical" into
 * 2): the same tables the case routes read, so a number or slug from here is what they take and answer.
 */
export function systemFields() {
  return [
    field("Severity", "severity", SEVERITY, 0, SEVERITY.defaultName),
    field("Priority", "priority", PRIORITY, 0, PRIORITY.defaultName),
    field("Type", "type", CASE_TYPE, 0, CASE_TYPE.defaultName),
    field("Behavior", "behavior", BEHAVIOR, 0, BEHAVIOR.defaultName),
    field("Layer", "layer", LAYER, 0, LAYER.defaultName),
    field("Status", "status", CASE_STATUS, 0, CASE_STATUS.defaultName),
    field("Automation status", "automation", AUTOMATION, 0, AUTOMATION.defaultName),
    field("Is flaky", "is_flaky", IS_FLAKY, 0, IS_FLAKY.defaultName),
    // Results take and answer the names; steps of a v1 result answer these ids.
    field("Result status", "result_status", RESULT_STATUS, 1, null),
  ];
}

type UserRow = Pick<typeof users.$inferSelect, "id" | "userName" | "displayName" | "title" | "emails" | "active">;
const columns = { id: users.id, userName: users.userName, displayName: users.displayName, title: users.title, emails: users.emails, active: users.active };

/** The primary (else first) e-mail the IdP sent; the userName when it sent none. */
function emailOf(u: UserRow): string {
  try {
    const emails = JSON.parse(u.emails) as { value?: string; primary?: boolean }[];
    return (emails.find((e) => e.primary) ?? emails[0])?.value ?? u.userName;
  } catch {
    return u.userName;
  }
}

const userView = (u: UserRow) => ({ id: u.id, name: u.displayName, email: emailOf(u), title: u.title ?? "", status: u.active ? 1 : 0 });
const authorView = (u: UserRow) => ({ id: u.id, author_id: u.id, entity_type: "user", entity_id: u.id, email: emailOf(u), name: u.displayName, is_active: u.active });

/** The people of one workspace: its members (a token sees its own workspace's people only). */
const membersOf = (workspaceId: number) =>
  and(eq(workspaceMembers.workspaceId, workspaceId), eq(workspaceMembers.userId, users.id));

async function listPeople<T>(db: Db, workspaceId: number, q: { limit: number; offset: number; search?: string; none?: boolean }, view: (u: UserRow) => T) {
  const search: SQL | undefined = q.none ? sql`FALSE` : q.search ? or(containsText(users.displayName, q.search), containsText(users.userName, q.search)) : undefined;
  const from = () => db.select({ n: count() }).from(users).innerJoin(workspaceMembers, membersOf(workspaceId));
  const total = (await first(from()))!.n;
  const filtered = (await first(from().where(search)))!.n;
  const rows = await db.select(columns).from(users).innerJoin(workspaceMembers, membersOf(workspaceId)).where(search).orderBy(users.id).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: rows.map(view) };
}

async function requireUser(db: Db, workspaceId: number, id: number): Promise<UserRow> {
  const u = await first(db.select(columns).from(users).innerJoin(workspaceMembers, membersOf(workspaceId)).where(eq(users.id, id)));
  if (!u) throw notFound(`User ${id}`);
  return u;
}

export const listUsers = (db: Db, workspaceId: number, q: { limit: number; offset: number }) => listPeople(db, workspaceId, q, userView);
export const getUser = async (db: Db, workspaceId: number, id: number) => userView(await requireUser(db, workspaceId, id));
/** Authors are the workspace's users: `type=user` lists them, `type=app` none (there are no app authors); another type is a 400. */
export function listAuthors(db: Db, workspaceId: number, q: { limit: number; offset: number; search?: string; type?: string }) {
  if (q.type !== undefined && q.type !== "user" && q.type !== "app") throw badRequest(`"type" must be user or app`, "type");
  return listPeople(db, workspaceId, { ...q, none: q.type === "app" }, authorView);
}
export const getAuthor = async (db: Db, workspaceId: number, id: number) => authorView(await requireUser(db, workspaceId, id));
