import { and, count, eq, inArray, isNull, or, type SQL } from "drizzle-orm";
import type { Db } from "../../db/connection";
import { first } from "../../db/transaction";
import { ApiError, badRequest } from "../../http/errors";
import { users } from "../../directory/tables";
import { caseFieldsFor, customFieldValues, customFieldViews, liveFieldIds } from "../custom-fields/service";
import { customFields as customFieldTable, type customFields } from "../custom-fields/tables";
import { fastInserter } from "../../db/fast-insert";
import { pipelined, preparedQuery } from "../../db/statement";
import type { ProjectRow } from "../projects/service";
import type { Caller } from "../shared/auth";
import { attachmentIds } from "../shared/envelope";
import { AUTOMATION, BEHAVIOR, CASE_STATUS, CASE_TYPE, enumName, enumNumber, LAYER, PRIORITY, SEVERITY } from "../../qase/enums";
import type { Reader } from "../shared/lookup";
import { findRowId, nextNumber, Numbers, optRefId, requireNumbered, takeNumbers } from "../shared/numbers";
import { isoMicro } from "../shared/time";
import { sharedSteps } from "../shared-steps/tables";
import { containsText } from "../../db/contains";
import { RowBudget } from "../shared/row-budget";
import type { CaseCloneBody, CaseCreateBody, CaseListQuery, CaseUpdateBody } from "./model";
import { checkInclude, csv } from "../shared/list-filters";
import { inProject, type ProjectWrite } from "../shared/write";
import { buildCaseParameters, caseParameterViews, sharedParametersOf } from "./parameters";
import { externalIssueFilter, externalIssuesOf, type ExternalIssueGroup } from "./external-issues";
import { cases, type CaseCustomFieldValue, type CaseStep } from "./tables";

export type CaseRow = typeof cases.$inferSelect;
type Columns = Partial<typeof cases.$inferInsert>;
type CustomFieldRow = typeof customFields.$inferSelect;

const notDeleted = isNull(cases.deleted);

/** The full case.created payload (spec §6.3); `numbers` gives its suite's and milestone's (`payloadNumbers` loads them). */
export function casePayload(c: Omit<CaseRow, "id">, numbers: Numbers) {
  return {
    id: c.number, position: c.position, title: c.title, description: c.description, preconditions: c.preconditions,
    postconditions: c.postconditions, severity: c.severity, priority: c.priority, type: c.type, behavior: c.behavior,
    suite_id: numbers.of("suite", c.suiteId), milestone_id: numbers.of("milestone", c.milestoneId), is_automated: c.isAutomated, is_deprecated: c.isDeprecated,
    revision: c.revision,
    steps: c.steps.map((s) => ({ position: s.position, action: s.action, expected_result: s.expected_result, shared_hash: s.shared_hash, attachments: s.attachments })),
    attachments: c.attachments, custom_fields: c.customFields, created: c.created, updated: c.updated,
  };
}

/** `numbers` with what `casePayload` of `c` reads loaded. */
export const payloadNumbers = (numbers: Numbers, c: Pick<CaseRow, "suiteId" | "milestoneId">) => numbers.with({ suite: [c.suiteId], milestone: [c.milestoneId] });

type CaseAuthor = { id: number; name: string; email: string; active: boolean };
type SharedParameters = Awaited<ReturnType<typeof sharedParametersOf>>;

/** Qase's automation state of a case (0 manual, 1 to be automated, 2 automated). */
const automationOf = (c: CaseRow) => enumNumber(AUTOMATION, c.isAutomated ? "automated" : c.toBeAutomated ? "to_be_automated" : "manual");

/**
 * API view: the payload fields plus what Qase clients read (tags, author, Qase's aliases), the
 * enums as Qase's numbers (the payload keeps the names). Pure.
 */
export function caseView(c: CaseRow, author: CaseAuthor | null, numbers: Numbers, shared: SharedParameters = new Map(), liveFields?: ReadonlySet<number>, externalIssues?: ExternalIssueGroup[]) {
  const automation = automationOf(c);
  return {
    ...(externalIssues ? { external_issues: externalIssues } : {}),
    ...casePayload(c, numbers),
    severity: enumNumber(SEVERITY, c.severity), priority: enumNumber(PRIORITY, c.priority), type: enumNumber(CASE_TYPE, c.type),
    behavior: enumNumber(BEHAVIOR, c.behavior), layer: enumNumber(LAYER, c.layer), status: enumNumber(CASE_STATUS, c.status),
    is_flaky: c.isFlaky ? 1 : 0, automation, isManual: automation !== 2, isToBeAutomated: automation === 1,
    tags: c.tags.map((title) => ({ title })), params: c.params, parameters: caseParameterViews(c.parameters, shared),
    steps: c.steps.map((s) => ({ ...s, shared_step_hash: s.shared_hash })),
    custom_fields: customFieldViews(c.customFields, liveFields),
    author_id: c.authorId, author,
    created_at: c.created, updated_at: c.updated,
  };
}

/** The authors of many cases in one query (by user id). */
async function authorsOf(db: Reader, rows: CaseRow[]): Promise<Map<number, CaseAuthor>> {
  const ids = [...new Set(rows.map((c) => c.authorId).filter((id): id is number => id !== null))];
  if (ids.length === 0) return new Map();
  const found = await db.select({ id: users.id, name: users.displayName, email: users.userName, active: users.active }).from(users).where(inArray(users.id, ids));
  return new Map(found.map((a) => [a.id, a]));
}


/**
 * Views of many cases: one query for all their authors, one for the shared parameters they use,
 * one for their custom fields, one each for their suites' and milestones' numbers, and with
 * `include=external_issues` (Qase shows them only then) one for their external issues.
 */
export async function caseViews(db: Reader, rows: CaseRow[], opts: { externalIssues?: boolean } = {}) {
  const issues = opts.externalIssues ? await externalIssuesOf(db, rows.map((c) => c.id)) : null;
  const authors = await authorsOf(db, rows);
  const liveFields = await liveFieldIds(db, rows.flatMap((c) => c.customFields));
  const numbers = await Numbers.load(db, { suite: rows.map((c) => c.suiteId), milestone: rows.map((c) => c.milestoneId) });
  const shared = await sharedParametersOf(db, rows);
  return rows.map((c) => caseView(c, c.authorId === null ? null : authors.get(c.authorId) ?? null, numbers, shared, liveFields, issues ? issues.get(c.id) ?? [] : undefined));
}

/** The live case numbered `number` in the project, or 404. */
export function requireCase(db: Reader, projectId: number, number: number): Promise<CaseRow> {
  return requireNumbered(db, "case", projectId, number, notDeleted);
}

async function buildSteps(tx: Reader, projectId: number, input: NonNullable<CaseCreateBody["steps"]>): Promise<CaseStep[]> {
  const steps: CaseStep[] = [];
  for (const [i, s] of input.entries()) {
    const field = `steps.${i}`;
    if (s.steps?.length) throw badRequest("Nested case steps are not supported; send each as a top-level step", `${field}.steps`);
    let action = s.action ?? "";
    let expected = s.expected_result ?? "";
    let data = s.data ?? "";
    let sharedHash: string | null = null;
    if (s.shared) {
      const shared = await first(tx.select().from(sharedSteps).where(and(eq(sharedSteps.hash, s.shared), eq(sharedSteps.projectId, projectId))));
      if (!shared) throw badRequest(`Shared step ${s.shared} does not exist in this project`, `${field}.shared`);
      sharedHash = shared.hash;
      action = shared.action;
      expected = shared.expectedResult ?? "";
      data = shared.data ?? "";
    } else if (action.trim() === "") {
      throw badRequest("A step needs a non-empty action unless it references a shared step", `${field}.action`);
    }
    steps.push({ position: s.position ?? i + 1, action, expected_result: expected, data, shared_hash: sharedHash, attachments: attachmentIds(s.attachments) });
  }
  const positions = new Set(steps.map((s) => s.position));
  if (positions.size !== steps.length) throw badRequest("Step positions must be unique", "steps");
  return steps.sort((a, b) => a.position - b.position);
}


/**
 * The automation state a request sets, if any. Qase: `isManual`/`isToBeAutomated` win over the
 * deprecated `automation`; `is_automated` (the webhook payload's field) wins over both;
 * `isToBeAutomated` alone applies to a manual case.
 */
function automationFrom(body: CaseCreateBody | CaseUpdateBody, previous: CaseRow | null): (typeof AUTOMATION.names)[number] | null {
  if (body.is_automated != null) return body.is_automated ? "automated" : body.isToBeAutomated ? "to_be_automated" : "manual";
  if (body.isManual != null) return !body.isManual ? "automated" : body.isToBeAutomated ? "to_be_automated" : "manual";
  if (body.automation != null) return enumName(AUTOMATION, body.automation);
  if (body.isToBeAutomated != null && !previous?.isAutomated) return body.isToBeAutomated ? "to_be_automated" : "manual";
  return null;
}

/** Request fields → columns (only those given). Shared by create and update. */
async function columnsFrom(tx: Reader, project: ProjectRow, body: CaseCreateBody | CaseUpdateBody, previous: CaseRow | null, fields?: CustomFieldRow[]): Promise<Columns> {
  const c: Columns = {};
  if (body.title != null) c.title = body.title;
  if (body.description !== undefined) c.description = body.description ?? "";
  if (body.preconditions !== undefined) c.preconditions = body.preconditions ?? "";
  if (body.postconditions !== undefined) c.postconditions = body.postconditions ?? "";
  if (body.severity != null) c.severity = enumName(SEVERITY, body.severity);
  if (body.priority != null) c.priority = enumName(PRIORITY, body.priority);
  if (body.type != null) c.type = enumName(CASE_TYPE, body.type);
  if (body.behavior != null) c.behavior = enumName(BEHAVIOR, body.behavior);
  if (body.layer != null) c.layer = enumName(LAYER, body.layer);
  if (body.is_flaky != null) c.isFlaky = Boolean(body.is_flaky);
  if (body.suite_id !== undefined) c.suiteId = await optRefId(tx, "suite", project.id, body.suite_id, "suite_id");
  if (body.milestone_id !== undefined) c.milestoneId = await optRefId(tx, "milestone", project.id, body.milestone_id, "milestone_id");
  const automation = automationFrom(body, previous);
  if (automation) [c.isAutomated, c.toBeAutomated] = [automation === "automated", automation === "to_be_automated"];
  if (body.status != null) c.status = enumName(CASE_STATUS, body.status);
  if (body.is_deprecated != null) c.isDeprecated = body.is_deprecated;
  else if (c.status) c.isDeprecated = c.status === "deprecated";
  if (body.attachments != null) c.attachments = attachmentIds(body.attachments);
  if (body.steps != null) c.steps = await buildSteps(tx, project.id, body.steps);
  if (body.tags != null) c.tags = body.tags;
  if (body.parameters != null) c.parameters = await buildCaseParameters(tx, project, body.parameters);
  if (previous === null || body.custom_field != null) c.customFields = customFieldValues(fields ?? (await caseFieldsFor(tx, project)), body.custom_field, previous?.customFields ?? null, "case");
  return c;
}

/**
 * The last position in a suite, or among the project's cases in none; prepared once (every case
 * create reads one). Both read one entry at the end of `tms_cases_position` (project, suite,
 * position) on either engine: PostgreSQL answers `max(position)` under `suite_id IS NULL` by reading
 * every case of the project's root (IS NULL does not fix the column the way `=` does, so the
 * index's order is not used), a cost that grew with the project (0.6 ms of the server's time per
 * create at 3 000 cases, docs/benchmarks/postgres.md); ordered by the index's own columns with
 * LIMIT 1 it walks the index backwards and stops at the first entry.
 */
export const LAST_POSITION_SQL = {
  inSuite: "SELECT position AS m FROM tms_cases WHERE project_id = ?1 AND suite_id = ?2 ORDER BY position DESC LIMIT 1",
  inNone: "SELECT position AS m FROM tms_cases WHERE project_id = ?1 AND suite_id IS NULL ORDER BY suite_id DESC NULLS FIRST, position DESC LIMIT 1",
};
const lastPosition = {
  inSuite: preparedQuery<{ m: number }, [number, number]>(LAST_POSITION_SQL.inSuite),
  inNone: preparedQuery<{ m: number }, [number]>(LAST_POSITION_SQL.inNone),
};

async function nextPosition(tx: Reader, projectId: number, suiteId: number | null | undefined): Promise<number> {
  const last = suiteId == null ? await lastPosition.inNone.get(tx, projectId) : await lastPosition.inSuite.get(tx, projectId, suiteId);
  return (last?.m ?? 0) + 1;
}

/**
 * What inserting many cases in one transaction would otherwise look up again for every case: the
 * project's case fields and the next position in each suite. Valid for one transaction.
 */
export class CaseBatch {
  private fields: Promise<CustomFieldRow[]> | undefined;
  private readonly positions = new Map<number | null, number | Promise<number>>();
  constructor(private readonly w: ProjectWrite) {}

  caseFields(): Promise<CustomFieldRow[]> {
    return (this.fields ??= caseFieldsFor(this.w.tx, this.w.project));
  }

  /** The position after the last case of the suite (or of the project's root), counting this batch's own inserts. */
  async takePosition(suiteId: number | null): Promise<number> {
    const next = await this.readPosition(suiteId);
    this.positions.set(suiteId, next + 1);
    return next;
  }

  /** Sends the read `takePosition(suiteId)` will use, when it has not been read yet (to go out with other reads). */
  readPosition(suiteId: number | null): Promise<number> {
    let next = this.positions.get(suiteId);
    if (next === undefined) this.positions.set(suiteId, (next = nextPosition(this.w.tx, this.w.project.id, suiteId)));
    return Promise.resolve(next);
  }
}

const insertCaseRow = fastInserter(cases);

/** A case's columns from its create body, validated (a 400 names the field); before it takes a number. */
function caseColumns({ tx, project }: ProjectWrite, body: CaseCreateBody, batch: CaseBatch): Promise<Columns> {
  return batch.caseFields().then((fields) => columnsFrom(tx, project, body, null, fields));
}

/**
 * Inserts a validated case as `number` and publishes case.created. The payload needs nothing the
 * insert answers (its key is not in it), so the row and its event go out together (`pipelined`:
 * one round trip on PostgreSQL, docs/benchmarks/postgres.md "Fewer round trips per create").
 */
async function insertCaseNumbered(w: ProjectWrite, caller: Caller, body: CaseCreateBody, cols: Columns, reporter: Pick<Columns, "signature" | "params">, batch: CaseBatch, number: number): Promise<CaseRow> {
  const now = isoMicro();
  const insert = insertCaseRow.prepare({
    ...cols, ...reporter, title: body.title, projectId: w.project.id, number, position: await batch.takePosition(cols.suiteId ?? null),
    revision: 1, authorId: caller.userId, created: now, updated: now,
  });
  const payload = casePayload(insert.row, await payloadNumbers(w.numbers, insert.row));
  const [row] = await pipelined(insert.send(w.tx), w.emit("case.created", payload));
  return row;
}

/**
 * Inserts a case and publishes case.created; for use inside a caller's transaction (pass one `batch` for many cases). Its number is taken once its body is valid.
 * The reads before it go out together: the project's case fields and, for a case in no suite, its
 * position (a suite named by number is resolved first).
 */
export async function insertCase(w: ProjectWrite, caller: Caller, body: CaseCreateBody, reporter: Pick<Columns, "signature" | "params"> = {}, batch = new CaseBatch(w)): Promise<CaseRow> {
  const [cols] = await pipelined(caseColumns(w, body, batch), body.suite_id == null ? batch.readPosition(null) : Promise.resolve(0));
  return insertCaseNumbered(w, caller, body, cols, reporter, batch, await nextNumber(w.tx, w.project.id, "case"));
}

export function createCase(db: Db, caller: Caller, project: ProjectRow, body: CaseCreateBody) {
  return inProject(db, project, async (w) => ({ id: (await insertCase(w, caller, body)).number }));
}

/** An ApiError of the bulk's element `i`, its field named within the request (the client finds it among hundreds). */
function ofElement(e: unknown, i: number): unknown {
  return e instanceof ApiError && e.field ? new ApiError(e.status, e.code, e.message, `cases.${i}.${e.field}`) : e;
}

/** Every case of the bulk validated first, then their numbers in one counter statement (a bad element spends none), then the inserts. */
export function createCasesBulk(db: Db, caller: Caller, project: ProjectRow, bodies: CaseCreateBody[]) {
  return inProject(db, project, async (w) => {
    const budget = new RowBudget();
    for (const b of bodies) budget.spend(1 + (b.steps?.length ?? 0), 1);
    if (bodies.length === 0) return { ids: [] as number[] };
    const batch = new CaseBatch(w);
    const columns: Columns[] = [];
    for (const [i, b] of bodies.entries()) {
      try {
        columns.push(await caseColumns(w, b, batch));
      } catch (e) {
        throw ofElement(e, i);
      }
    }
    const firstNumber = await takeNumbers(w.tx, project.id, "case", bodies.length);
    const ids: number[] = [];
    for (const [i, b] of bodies.entries()) {
      try {
        ids.push((await insertCaseNumbered(w, caller, b, columns[i]!, {}, batch, firstNumber + i)).number);
      } catch (e) {
        throw ofElement(e, i);
      }
    }
    return { ids };
  });
}

export function updateCase(db: Db, project: ProjectRow, number: number, body: CaseUpdateBody) {
  return inProject(db, project, async ({ tx, emit }) => {
    const prev = await requireCase(tx, project.id, number);
    const cols = await columnsFrom(tx, project, body, prev);
    await tx.update(cases).set({ ...cols, revision: prev.revision + 1, updated: isoMicro() }).where(eq(cases.id, prev.id));
    await emit("case.updated", { id: number });
    return { id: number };
  });
}

export function deleteCase(db: Db, project: ProjectRow, number: number) {
  return inProject(db, project, async (w) => {
    await softDeleteCases(w, [await requireCase(w.tx, project.id, number)]);
    return { id: number };
  });
}

/** Soft-deletes cases (runs, results and defects keep their references; their numbers stay taken) and publishes case.deleted for each. */
export async function softDeleteCases({ tx, emit }: ProjectWrite, rows: { id: number; number: number }[]): Promise<void> {
  const now = isoMicro();
  for (const c of rows) {
    await tx.update(cases).set({ deleted: now }).where(eq(cases.id, c.id));
    await emit("case.deleted", { id: c.number });
  }
}

/** Copies a case (steps, fields, attachments) as revision 1 and publishes case.cloned; inside a transaction. */
export async function copyCase({ tx, project: p, emit }: ProjectWrite, caller: Caller, from: CaseRow, into: { suiteId: number | null; title?: string }): Promise<CaseRow> {
  const now = isoMicro();
  const { id: _id, number: _n, created: _c, updated: _u, deleted: _d, ...rest } = from;
  const row = await insertCaseRow(tx, {
    ...rest, number: await nextNumber(tx, p.id, "case"), suiteId: into.suiteId, title: into.title ?? from.title, position: await nextPosition(tx, p.id, into.suiteId),
    revision: 1, authorId: caller.userId, created: now, updated: now,
  });
  await emit("case.cloned", { id: row.number, from_id: from.number });
  return row;
}

export function cloneCase(db: Db, caller: Caller, project: ProjectRow, number: number, body: CaseCloneBody) {
  return inProject(db, project, async (w) => {
    const from = await requireCase(w.tx, project.id, number);
    const suiteId = await optRefId(w.tx, "suite", project.id, body.suite_id, "suite_id");
    return { id: (await copyCase(w, caller, from, { suiteId: suiteId !== undefined ? suiteId : from.suiteId, title: body.title ?? undefined })).number };
  });
}

/** Qase's one `include` part on cases; anything else is a 400 naming `include`. */
function includesExternalIssues(include: string | undefined): boolean {
  checkInclude(include, ["external_issues"]);
  return include !== undefined && csv(include).includes("external_issues");
}

export async function getCase(db: Db, project: ProjectRow, number: number, include?: string) {
  const externalIssues = includesExternalIssues(include);
  return (await caseViews(db, [await requireCase(db, project.id, number)], { externalIssues }))[0]!;
}

type CaseFilters = Omit<typeof CaseListQuery.static, "limit" | "offset">;

/** Qase list filters are comma-separated values; each enum value may be a name or Qase's number. */

export async function listCases(db: Db, p: ProjectRow, q: CaseFilters & { limit: number; offset: number }) {
  const withIssues = includesExternalIssues(q.include);
  const base = and(eq(cases.projectId, p.id), notDeleted)!;
  const filters: SQL[] = [base];
  if (q.search) filters.push(containsText(cases.title, q.search)); // %, _ and \ match themselves
  const linked = externalIssueFilter(db, q["external_issues[type]"], q["external_issues[ids][]"]);
  if (linked) filters.push(linked);
  // Filters name suites and milestones by number; one of no such suite matches no case.
  if (q.suite_id) filters.push(eq(cases.suiteId, (await findRowId(db, "suite", p.id, q.suite_id)) ?? 0));
  if (q.milestone_id) filters.push(eq(cases.milestoneId, (await findRowId(db, "milestone", p.id, q.milestone_id)) ?? 0));
  if (q.severity) filters.push(inArray(cases.severity, csv(q.severity).map((v) => enumName(SEVERITY, v))));
  if (q.priority) filters.push(inArray(cases.priority, csv(q.priority).map((v) => enumName(PRIORITY, v))));
  if (q.type) filters.push(inArray(cases.type, csv(q.type).map((v) => enumName(CASE_TYPE, v))));
  if (q.behavior) filters.push(inArray(cases.behavior, csv(q.behavior).map((v) => enumName(BEHAVIOR, v))));
  if (q.status) filters.push(inArray(cases.status, csv(q.status).map((v) => enumName(CASE_STATUS, v))));
  if (q.automation) {
    // Qase's words: "is-not-automated" is every case that is not automated (planned ones too);
    // a number or state name selects that state only.
    const states = csv(q.automation).map((v) => {
      if (v.trim().toLowerCase() === "is-not-automated") return eq(cases.isAutomated, false);
      const s = enumName(AUTOMATION, v, "automation");
      return s === "automated" ? eq(cases.isAutomated, true) : and(eq(cases.isAutomated, false), eq(cases.toBeAutomated, s === "to_be_automated"))!;
    });
    filters.push(or(...states)!);
  }
  const where = and(...filters);
  const total = (await first(db.select({ n: count() }).from(cases).where(base)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(cases).where(where)))!.n;
  const rows = await db.select().from(cases).where(where).orderBy(cases.number).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: await caseViews(db, rows, { externalIssues: withIssues }) };
}
