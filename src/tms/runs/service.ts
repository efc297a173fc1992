import { randomBytes } from "node:crypto";
import { and, count, desc, eq, gte, inArray, isNull, lte, max, not, or, sql, sum, type SQL } from "drizzle-orm";
import { containsText } from "../../db/contains";
import { checkInclude, csv, flagOf, integersOf, timeOf } from "../shared/list-filters";
import type { Db, Tx } from "../../db/connection";
import { perEngine, preparedQuery } from "../../db/statement";
import { first } from "../../db/transaction";
import { insertionOrder, insertionOrderText } from "../../db/dialect";
import { ApiError, badRequest, conflict } from "../../http/errors";
import { CaseBatch, insertCase } from "../cases/service";
import { ensureSuitePath } from "../suites/service";
import { cases } from "../cases/tables";
import { insertDefect } from "../defects/service";
import { casesOfPlan } from "../plans/service";
import type { ProjectRow } from "../projects/service";
import type { Caller } from "../shared/auth";
import { attachmentIds } from "../shared/envelope";
import type { Reader } from "../shared/lookup";
import { findRowId, nextNumber, Numbers, optRefId, refId, refIds, requireNumbered } from "../shared/numbers";
import { RowBudget } from "../shared/row-budget";
import { customFieldValues, customFieldViews, fieldsFor, liveFieldIds } from "../custom-fields/service";
import { inProject, type ProjectWrite } from "../shared/write";
import { isoMicro, secondsBetween } from "../shared/time";
import { runCounts, type ResultStatus } from "./counts";
import { addCasesToRun } from "./run-cases";
import { enumName, enumNumber, LAYER, NEGATIVE_RESULT_STATUSES, PRIORITY, RESULT_STATUS, RUN_STATUS, RUN_STATUS_WORDS, runStatusWord, SEVERITY, type QaseEnum } from "../../qase/enums";
import type { CaseCreateBody } from "../cases/model";
import { requireConfigurationIds } from "../configurations/service";
import { environmentBySlug } from "../environments/service";
import { environments } from "../environments/tables";
import { milestones } from "../milestones/tables";
import type { ResultCreateBody, ResultListFilters, ResultUpdateBody, RunCreateBody, RunExternalIssuesBody, RunListFilters, RunUpdateBody } from "./model";
import { results, runCases, runs, type ResultStep } from "./tables";

type RunRow = typeof runs.$inferSelect;

export const requireRun = (db: Reader, projectId: number, number: number) => requireNumbered(db, "run", projectId, number);

/** Latest-result status of each case of the run, in run order. */
const latestStatuses = async (db: Reader, runId: number) =>
  (await db.select({ status: runCases.status }).from(runCases).where(eq(runCases.runId, runId))).map((r) => r.status);


/** The run's environment as the API shows it: the linked entity, or the free-form slug it was started with. */
type RunEnvironment = { id: number | null; title: string; slug: string; description: string; host: string } | null;

/**
 * What a run's view reads beyond its row: its cases (their numbers, in run order, with their
 * latest status), time spent, environment, and its plan's and milestone's numbers.
 */
type RunDetail = { cases: { caseNumber: number; status: string | null }[]; timeSpentMs: number; environment: RunEnvironment; plan: number | null; milestone: RunMilestone | null; liveFields: ReadonlySet<number> };
/** Qase's RunMilestone (title, description) with the milestone's number. */
type RunMilestone = { id: number; title: string; description: string | null };

/**
 * Cases, time spent, environments, plans and milestones of many runs: one query for all their
 * cases, one for all their results' time, one for their environments, one each for their plans'
 * and milestones' numbers.
 */
export async function runDetails(db: Reader, rows: RunRow[]): Promise<Map<number, RunDetail>> {
  const envIds = [...new Set(rows.flatMap((r) => (r.environmentId != null ? [r.environmentId] : [])))];
  const envs = new Map(envIds.length ? (await db.select().from(environments).where(inArray(environments.id, envIds))).map((e) => [e.id, e] as const) : []);
  const environmentOf = (r: RunRow): RunEnvironment => {
    const e = r.environmentId != null ? envs.get(r.environmentId) : undefined;
    if (e) return { id: e.id, title: e.title, slug: e.slug, description: e.description ?? "", host: e.host ?? "" };
    return r.environment ? { id: null, title: r.environment, slug: r.environment, description: "", host: "" } : null;
  };
  const numbers = await Numbers.load(db, { plan: rows.map((r) => r.planId) });
  const milestoneIds = [...new Set(rows.flatMap((r) => (r.milestoneId != null ? [r.milestoneId] : [])))];
  const milestoneRows = new Map(milestoneIds.length
    ? (await db.select({ id: milestones.id, number: milestones.number, title: milestones.title, description: milestones.description }).from(milestones).where(inArray(milestones.id, milestoneIds))).map((m) => [m.id, m] as const)
    : []);
  const milestoneOf = (r: RunRow): RunMilestone | null => {
    const m = r.milestoneId != null ? milestoneRows.get(r.milestoneId) : undefined;
    return m ? { id: m.number, title: m.title, description: m.description ?? null } : null;
  };
  const liveFields = await liveFieldIds(db, rows.flatMap((r) => r.customFields));
  const out = new Map<number, RunDetail>(rows.map((r) => [r.id, {
    cases: [], timeSpentMs: 0, environment: environmentOf(r), plan: numbers.of("plan", r.planId), milestone: milestoneOf(r), liveFields,
  }]));
  const ids = rows.map((r) => r.id);
  if (ids.length === 0) return out;
  for (const x of await db.select({ runId: runCases.runId, caseNumber: cases.number, status: runCases.status }).from(runCases).innerJoin(cases, eq(cases.id, runCases.caseId))
    .where(inArray(runCases.runId, ids)).orderBy(runCases.runId, runCases.position))
    out.get(x.runId)!.cases.push({ caseNumber: x.caseNumber, status: x.status });
  for (const x of await db.select({ runId: results.runId, ms: sum(results.timeMs) }).from(results).where(inArray(results.runId, ids)).groupBy(results.runId))
    out.get(x.runId)!.timeSpentMs = Number(x.ms ?? 0);
  return out;
}

/** Views of many runs of one project: their details loaded in batches. */
export async function runViews(db: Reader, rows: RunRow[], baseUrl: string, projectCode: string) {
  const details = await runDetails(db, rows);
  return rows.map((r) => runView(r, details.get(r.id)!, baseUrl, projectCode));
}

/**
 * Qase's run status word (`status_text`, and what `GET /run?status=` filters by): `in_progress`
 * while active, `aborted`, and for a completed run its outcome — `failed` when any case's latest
 * result is negative, else `passed`. A completed run still takes results (as Qase's does), so its
 * outcome follows them. Pure.
 */
export function runStatusText(status: RunRow["status"], latest: (string | null)[]): "in_progress" | "passed" | "failed" | "aborted" {
  if (status === "active") return "in_progress";
  if (status === "aborted") return "aborted";
  return latest.some((s) => (NEGATIVE_RESULT_STATUSES as readonly (string | null)[]).includes(s)) ? "failed" : "passed";
}

/** The Qase run shape. Pure. */
export function runView(r: RunRow, d: RunDetail, baseUrl: string, projectCode: string) {
  const rows = d.cases;
  // Qase-style stats: one counter per latest status, `untested` = no result yet. (The webhook
  // payloads fold these into passed/failed/blocked/untested, see runCounts.)
  const per = (s: string | null) => rows.filter((x) => x.status === s).length;
  return {
    id: r.number, run_id: r.number, title: r.title, description: r.description,
    status: enumNumber(RUN_STATUS, r.status), status_text: runStatusText(r.status, rows.map((x) => x.status)),
    start_time: r.startTime, end_time: r.endTime, public: r.isPublic,
    public_url: r.isPublic && r.publicToken ? publicReportUrl(baseUrl, r.publicToken) : null,
    stats: { total: rows.length, statuses: {}, untested: per(null), passed: per("passed"), failed: per("failed"), blocked: per("blocked"), skipped: per("skipped"), retest: per("retest"), in_progress: per("in_progress"), invalid: per("invalid") },
    time_spent: d.timeSpentMs, elapsed_time: secondsBetween(r.startTime, r.endTime ?? isoMicro()),
    environment: d.environment,
    configurations: r.configurations,
    external_issue: r.externalIssue ? { id: r.externalIssue.link, type: r.externalIssue.type, link: r.externalIssue.link } : null,
    milestone: d.milestone, milestone_id: d.milestone?.id ?? null, plan_id: d.plan, cases: rows.map((x) => x.caseNumber), tags: r.tags.map((title) => ({ title })),
    is_autotest: r.isAutotest, author_id: r.authorId, custom_fields: customFieldViews(r.customFields, d.liveFields),
  };
}

export function createRun(db: Db, caller: Caller, p: ProjectRow, body: RunCreateBody) {
  return inProject(db, p, async ({ tx, emit }) => {
    const customFields = customFieldValues(await fieldsFor(tx, p, "run"), body.custom_field, null, "run");
    let ids: number[] = [];
    const planId = (await optRefId(tx, "plan", p.id, body.plan_id, "plan_id")) ?? null;
    if (planId !== null) ids.push(...(await casesOfPlan(tx, planId)).map((c) => c.id));
    if (body.cases?.length) ids.push(...(await refIds(tx, "case", p.id, body.cases, "cases", isNull(cases.deleted))).ids);
    if (body.include_all_cases)
      ids.push(...(await tx.select({ id: cases.id }).from(cases).where(and(eq(cases.projectId, p.id), isNull(cases.deleted))).orderBy(cases.number)).map((r) => r.id));
    ids = [...new Set(ids)];
    const milestoneId = (await optRefId(tx, "milestone", p.id, body.milestone_id, "milestone_id")) ?? null;
    const environment = await runEnvironment(tx, p.id, body);
    const configurationIds = await requireConfigurationIds(tx, p.id, body.configurations ?? []);
    const [run] = await tx.insert(runs).values({
      projectId: p.id, number: await nextNumber(tx, p.id, "run"), planId, milestoneId, title: body.title,
      description: body.description ?? "", environment: environment?.slug ?? null, environmentId: environment?.id ?? null,
      configurations: configurationIds, isAutotest: body.is_autotest ?? false,
      tags: body.tags ?? [], customFields, authorId: caller.userId, startTime: isoMicro(),
    }).returning();
    await addCasesToRun(tx, run!.id, ids);
    await emit("run.started", {
      id: run!.number, title: run!.title, description: run!.description, plan_id: body.plan_id ?? null, cases_count: ids.length, environment: run!.environment,
    });
    return { id: run!.number };
  });
}

/**
 * The environment a run create or update names: `environment_id` must be an environment of the
 * project; a slug links one when it exists and is kept as given otherwise (runs could name
 * environments before they were an entity). Null when the body names none.
 */
async function runEnvironment(tx: Tx, projectId: number, body: { environment_id?: number | null; environment_slug?: string | null }): Promise<{ id: number | null; slug: string } | null> {
  if (body.environment_id != null) {
    const e = await first(tx.select().from(environments).where(and(eq(environments.id, body.environment_id), eq(environments.projectId, projectId))));
    if (!e) throw badRequest(`Environment ${body.environment_id} does not exist in this project`, "environment_id");
    return { id: e.id, slug: e.slug };
  }
  if (body.environment_slug != null) return { id: (await environmentBySlug(tx, projectId, body.environment_slug))?.id ?? null, slug: body.environment_slug };
  return null;
}

/**
 * Qase's `PATCH /run`: title, description, environment, milestone, tags, configurations of a run
 * in any state. No event: the catalog has none for it (`run.updated` is a plan adding cases).
 */
export function updateRun(db: Db, p: ProjectRow, number: number, body: RunUpdateBody) {
  return inProject(db, p, async ({ tx }) => {
    const run = await requireRun(tx, p.id, number);
    const set: Partial<RunRow> = {};
    if (body.custom_field != null) set.customFields = customFieldValues(await fieldsFor(tx, p, "run"), body.custom_field, run.customFields, "run");
    if (body.title != null) set.title = body.title;
    if (body.description != null) set.description = body.description;
    const environment = await runEnvironment(tx, p.id, body);
    if (environment) Object.assign(set, { environment: environment.slug, environmentId: environment.id });
    if (body.milestone_id != null) set.milestoneId = await refId(tx, "milestone", p.id, body.milestone_id, "milestone_id");
    if (body.tags != null) set.tags = body.tags;
    if (body.configurations != null) set.configurations = await requireConfigurationIds(tx, p.id, body.configurations);
    if (Object.keys(set).length) await tx.update(runs).set(set).where(eq(runs.id, run.id));
    return { id: number };
  });
}

/**
 * Ends an active run — completed or aborted (aborting is a Gatehouse extension: Qase v1 has no
 * abort endpoint) — and publishes run.completed / run.aborted with the counts of the latest
 * result per case (run.aborted also says how many stayed untested). Completing a completed run
 * changes nothing and answers as the first time: every shard of a CI job that reports into one
 * run completes it at its end (the reporters' default), and a shard must not fail because
 * another finished first.
 */
export function endRun(db: Db, p: ProjectRow, number: number, end: "completed" | "aborted") {
  return inProject(db, p, async ({ tx, emit }) => {
    const run = await requireRun(tx, p.id, number);
    const endTime = isoMicro();
    // The transition is the row update (only from active): of two concurrent ends one changes the
    // row and announces it; the other reads the state the first left (READ COMMITTED) and answers by it.
    const ended = await tx.update(runs).set({ status: end, endTime }).where(and(eq(runs.id, run.id), eq(runs.status, "active"))).returning({ id: runs.id });
    if (!ended.length) {
      const status = (await first(tx.select({ status: runs.status }).from(runs).where(eq(runs.id, run.id))))?.status ?? run.status;
      if (end === "completed" && status === "completed") return { id: number };
      throw conflict(`Run ${run.number} is ${status}; cannot ${end === "completed" ? "complete it" : "abort it"}`);
    }
    const c = runCounts(await latestStatuses(tx, run.id));
    const payload = { id: number, cases: c.cases, passed: c.passed, failed: c.failed, blocked: c.blocked, duration: secondsBetween(run.startTime, endTime) };
    if (end === "completed") await emit("run.completed", payload);
    else await emit("run.aborted", { ...payload, untested: c.untested });
    return { id: number };
  });
}

/**
 * Links runs to issues in an external tracker (Qase `RunExternalIssues`): each link replaces the
 * run's previous one; an empty `external_issue` removes it. Every run must exist in the project.
 */
export function setRunExternalIssues(db: Db, p: ProjectRow, body: RunExternalIssuesBody) {
  return inProject(db, p, async ({ tx }) => {
    const runIds: number[] = [];
    for (const [i, l] of body.links.entries()) runIds.push(await refId(tx, "run", p.id, l.run_id, `links.${i}.run_id`));
    for (const [i, l] of body.links.entries()) {
      const link = l.external_issue?.trim();
      await tx.update(runs).set({ externalIssue: link ? { type: body.type, link } : null }).where(eq(runs.id, runIds[i]!));
    }
    return {};
  });
}

export const publicReportUrl = (baseUrl: string, token: string) => `${baseUrl}/public/report/${token}`;

/**
 * Toggles the public report; run.report_changed only when visibility actually changes. Making a
 * report public issues a new random address; making it private forgets it, so a shared link
 * stops working and is never valid again.
 */
export function setRunPublic(db: Db, baseUrl: string, p: ProjectRow, number: number, visible: boolean) {
  return inProject(db, p, async ({ tx, emit }) => {
    const run = await requireRun(tx, p.id, number);
    // The change of visibility is the row update (only from the other visibility): of two
    // concurrent toggles one changes the row and announces it, the other finds it done.
    const changed = await tx.update(runs).set({ isPublic: visible, publicToken: visible ? randomBytes(24).toString("base64url") : null })
      .where(and(eq(runs.id, run.id), eq(runs.isPublic, !visible))).returning({ id: runs.id });
    if (changed.length) await emit("run.report_changed", { id: number, visible });
    // A public run without an address (none issued yet) gets one.
    else if (visible) await tx.update(runs).set({ publicToken: randomBytes(24).toString("base64url") }).where(and(eq(runs.id, run.id), isNull(runs.publicToken)));
    const token = visible ? (await first(tx.select({ token: runs.publicToken }).from(runs).where(eq(runs.id, run.id))))?.token : null;
    return visible && token ? { url: publicReportUrl(baseUrl, token) } : {};
  });
}

export async function getRun(db: Db, baseUrl: string, p: ProjectRow, number: number) {
  return (await runViews(db, [await requireRun(db, p.id, number)], baseUrl, p.code))[0]!;
}

/** A run has a case whose latest result is negative (see runStatusText). */
const hasNegativeCase = sql`exists (select 1 from ${runCases} where ${runCases.runId} = ${runs.id} and ${inArray(runCases.status, [...NEGATIVE_RESULT_STATUSES])})`;

/**
 * One `GET /run?status=` word as SQL: Qase's outcome words (`passed`, `failed` — completed runs by
 * outcome; `in_progress`; `aborted`) or a status name or number (`active`, `complete`, `1`, …).
 */
function runStatusFilter(word: string): SQL {
  const w = runStatusWord(word);
  if (w === null) throw badRequest(`Invalid value ${JSON.stringify(word)} for "status": expected ${RUN_STATUS_WORDS}`, "status");
  const status = eq(runs.status, w.status);
  return w.outcome === undefined ? status : and(status, w.outcome === "failed" ? hasNegativeCase : not(hasNegativeCase))!;
}

/** `GET /run` filters (see RunListQuery); each narrows the list or is a 400 naming it. */
export async function listRuns(db: Db, baseUrl: string, p: ProjectRow, q: { limit: number; offset: number } & RunListFilters) {
  checkInclude(q.include, ["cases"]);
  const base = eq(runs.projectId, p.id);
  const filters: (SQL | undefined)[] = [base];
  const wanted = q.status?.split(",").map((x) => x.trim()).filter(Boolean).map(runStatusFilter);
  if (wanted?.length) filters.push(or(...wanted));
  if (q.search) filters.push(containsText(runs.title, q.search));
  // A number naming no milestone (or an environment of another project) matches no run.
  if (q.milestone) {
    const keys: number[] = [];
    for (const n of integersOf(q.milestone, "milestone")) keys.push((await findRowId(db, "milestone", p.id, n)) ?? 0);
    filters.push(inArray(runs.milestoneId, keys));
  }
  if (q.environment) filters.push(inArray(runs.environmentId, integersOf(q.environment, "environment")));
  if (q.from_start_time) filters.push(gte(runs.startTime, timeOf(q.from_start_time, "from_start_time")));
  if (q.to_start_time) filters.push(lte(runs.startTime, timeOf(q.to_start_time, "to_start_time")));
  const where = and(...filters);
  const total = (await first(db.select({ n: count() }).from(runs).where(base)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(runs).where(where)))!.n;
  const rows = await db.select().from(runs).where(where).orderBy(runs.number).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: await runViews(db, rows, baseUrl, p.code) };
}

// ---- results -------------------------------------------------------------------------------

/** One result, normalised from the v1 or v2 request shape. */
export type ResultInput = {
  /** The number of the case it names (v1 `case_id`, v2 `testops_id`), if any. */
  caseNumber: number | null;
  /** Title used to find or create the case when there is no id (reporters' unlinked tests). */
  caseTitle: string | null;
  /** Suite path (root first) for a case created from an unlinked result. */
  suitePath?: string[];
  /**
   * v2 only: what an unlinked result is matched by (the reporter's `signature`, else suite path +
   * title + parameters). Null (v1): matched by exact title.
   */
  signature: string | null;
  /** v2 `id`: a result already stored under it in this run is not stored again. */
  clientId: string | null;
  /** Case fields (severity, description…) for a case this result creates. */
  caseFields: CaseCreateBody | null;
  params: Record<string, string>;
  status: string;
  timeMs: number | null;
  comment: string | null;
  stacktrace: string | null;
  steps: ResultStep[];
  attachments: number[];
  defect: boolean;
};

/** A result or step status: its name (any case, "In progress" too) or Qase's number. */
export const statusOf = (raw: string | number, field: string): ResultStatus => enumName(RESULT_STATUS, raw, field);

/** Qase's ResultCreateCase: the texts and enum slugs of the case a v1 result creates (a bad slug is a 400 naming it). */
function v1CaseFields(c: NonNullable<ResultCreateBody["case"]>, field: string): CaseCreateBody {
  const pick = <N extends string>(e: QaseEnum<N>, v: string | null | undefined) => (v != null ? enumName(e, v, `${field}${e.field}`) : undefined);
  return {
    title: c.title ?? "", description: c.description, preconditions: c.preconditions, postconditions: c.postconditions,
    severity: pick(SEVERITY, c.severity), priority: pick(PRIORITY, c.priority), layer: pick(LAYER, c.layer),
  };
}

export function fromV1(b: ResultCreateBody, field: string): ResultInput {
  return {
    caseNumber: b.case_id ?? null, caseTitle: b.case?.title ?? null, signature: null, clientId: null, caseFields: b.case ? v1CaseFields(b.case, `${field}case.`) : null, params: b.param ?? {},
    status: statusOf(b.status, `${field}status`),
    timeMs: b.time_ms != null ? Math.round(b.time_ms) : b.time != null ? Math.round(b.time * 1000) : null,
    comment: b.comment ?? null, stacktrace: b.stacktrace ?? null,
    steps: (b.steps ?? []).map((s, i) => ({
      position: s.position ?? i + 1, status: statusOf(s.status, `${field}steps.${i}.status`), comment: s.comment ?? null,
      action: s.action ?? "", expected_result: s.expected_result ?? null, data: s.data ?? null, attachments: attachmentIds(s.attachments), steps: [],
    })),
    attachments: attachmentIds(b.attachments), defect: b.defect ?? false,
  };
}

/** Where a result landed: its case (by number), its hash, and why it is not on the case it named (if so). */
export type StoredResult = { case_id: number; hash: string; unlinked_reason: string | null; duplicate: boolean };

/** A case a result resolved to: its key, its number, its title. */
type ResolvedCase = { id: number; number: number; title: string };

/** A failed (or invalid) result sent with `defect: true` also creates a defect. */
const makesDefect = (r: ResultInput) => r.defect && (r.status === "failed" || r.status === "invalid");

/**
 * The case a result is for: by id (must be live in the project); else, for v2, by signature, then
 * by exact title among cases no reporter has signed yet (the case adopts the signature), else
 * created (case.created) with the result's fields and parameters; for v1 by exact title, else created.
 * A v2 result naming a case id that does not exist is matched as unlinked and says so
 * (`unlinkedReason`): a reporter's batch must not be lost over one stale annotation.
 */
async function resolveCase(w: ProjectWrite, q: ResultStatements, caller: Caller, r: ResultInput, field: string, budget: RowBudget, newCases: CaseBatch): Promise<ResolvedCase & { unlinkedReason: string | null }> {
  const { tx, project: p } = w;
  let unlinkedReason: string | null = null;
  if (r.caseNumber != null) {
    const c = await q.caseByNumber.get(tx, p.id, r.caseNumber);
    if (c) return { ...c, unlinkedReason };
    if (r.signature === null) throw badRequest(`Test case ${r.caseNumber} does not exist in this project`, `${field}case_id`);
    unlinkedReason = `Test case ${r.caseNumber} does not exist in this project; the result was matched by its signature instead`;
  }
  if (!r.caseTitle) throw badRequest("A result needs `case_id` (or a case title to find or create the case)", `${field}case_id`);
  if (r.signature !== null) {
    const signed = await q.caseBySignature.get(tx, p.id, r.signature);
    if (signed) return { ...signed, unlinkedReason };
    const unsigned = await q.caseByTitleUnsigned.get(tx, p.id, r.caseTitle);
    if (unsigned) {
      await q.adoptSignature.run(tx, r.signature, unsigned.id);
      return { ...unsigned, unlinkedReason };
    }
  } else {
    const found = await q.caseByTitle.get(tx, p.id, r.caseTitle);
    if (found) return { ...found, unlinkedReason };
  }
  const suite = r.suitePath?.length ? await ensureSuitePath(w, caller, r.suitePath, () => budget.spend(1, 1)) : null;
  budget.spend(1, 1);
  const params = Object.fromEntries(Object.entries(r.params).map(([k, v]) => [k, [v]]));
  const c = await insertCase(w, caller, { ...r.caseFields, title: r.caseTitle, is_automated: true, suite_id: suite?.number ?? null }, { signature: r.signature, params }, newCases);
  return { id: c.id, number: c.number, title: c.title, unlinkedReason };
}

/**
 * The per-result statements of the results hot path, prepared once (per connection on SQLite,
 * named on PostgreSQL). They run in the caller's transaction; going around the ORM here is what
 * makes a batch of 200 results cost one fsync and a few ms. Built on first use: one holds a
 * dialect fragment, known once the engine is picked.
 */
function buildResultStatements() {
  return {
    caseByNumber: preparedQuery<ResolvedCase, [number, number]>("SELECT id, number, title FROM tms_cases WHERE project_id = ?1 AND number = ?2 AND deleted IS NULL"),
    caseByTitle: preparedQuery<ResolvedCase, [number, string]>("SELECT id, number, title FROM tms_cases WHERE project_id = ?1 AND title = ?2 AND deleted IS NULL ORDER BY id LIMIT 1"),
    caseBySignature: preparedQuery<ResolvedCase, [number, string]>("SELECT id, number, title FROM tms_cases WHERE project_id = ?1 AND signature = ?2 AND deleted IS NULL ORDER BY id LIMIT 1"),
    caseByTitleUnsigned: preparedQuery<ResolvedCase, [number, string]>("SELECT id, number, title FROM tms_cases WHERE project_id = ?1 AND title = ?2 AND signature IS NULL AND deleted IS NULL ORDER BY id LIMIT 1"),
    adoptSignature: preparedQuery<unknown, [string, number]>("UPDATE tms_cases SET signature = ?1 WHERE id = ?2"),
    resultByClientId: preparedQuery<{ hash: string; case_number: number; unlinked_reason: string | null }, [number, string]>(
      `SELECT r.hash, c.number AS case_number, r.unlinked_reason FROM tms_results r JOIN tms_cases c ON c.id = r.case_id WHERE r.run_id = ?1 AND r.client_id = ?2 ORDER BY ${insertionOrderText("r")}`),
    insertResult: preparedQuery<unknown, [string, number, number, string, number | null, string | null, string | null, string, string, string, string | null, string | null, number | null, string]>(
      "INSERT INTO tms_results (hash, run_id, case_id, status, time_ms, comment, stacktrace, steps, attachments, params, client_id, unlinked_reason, author_id, created) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)"),
    setLatest: preparedQuery<unknown, [string, number, number]>("UPDATE tms_run_cases SET status = ?1 WHERE run_id = ?2 AND case_id = ?3"),
    addToRun: preparedQuery<unknown, [number, number, number, string]>("INSERT INTO tms_run_cases (run_id, case_id, position, status) VALUES (?1, ?2, ?3, ?4)"),
    lastPosition: preparedQuery<{ m: number | null }, [number]>("SELECT max(position) AS m FROM tms_run_cases WHERE run_id = ?1"),
    // Takes the run's row lock unless the run is aborted (see lockRunTakingResults).
    lockUnlessAborted: preparedQuery<{ id: number }, [number]>("UPDATE tms_runs SET status = status WHERE id = ?1 AND status <> 'aborted' RETURNING id"),
  };
}

export type ResultStatements = ReturnType<typeof buildResultStatements>;
/** Per engine: `resultByClientId` holds the engine's insertion-order column. */
export const resultStatements: () => ResultStatements = perEngine(buildResultStatements);

/**
 * Holds the run as taking results until the transaction ends: a row update only of a run that is
 * not aborted, so an abort committed first is seen (409) and one arriving later waits for this
 * transaction (the row lock) — results never land in a run aborted meanwhile.
 */
async function lockRunTakingResults(tx: Tx, run: RunRow, doing: string): Promise<void> {
  if (!(await resultStatements().lockUnlessAborted.get(tx, run.id))) throw conflict(`Run ${run.number} is aborted; cannot ${doing}`);
}

/**
 * The run (numbered `runNumber`) results go into; inside the caller's transaction.
 * An active or a completed run takes results — Qase's completion is a reporting state, not a lock,
 * and sharded CI jobs and reruns report into a run an earlier job completed. An aborted run (a
 * Gatehouse extension: someone decided the run is void) refuses them.
 */
export async function requireRunTakingResults(tx: Tx, p: ProjectRow, runNumber: number) {
  const run = await requireRun(tx, p.id, runNumber);
  await lockRunTakingResults(tx, run, "add results");
  return run;
}

/**
 * What result writes serialize on: finding or creating a project's cases and suites by title or
 * signature, and a v2 result id stored once per run, are checked before the write with no
 * constraint to hold them (a signature is not unique; the client-id index would fail the second
 * writer instead of answering it as a duplicate).
 */
export const resultWrites = (p: ProjectRow) => ({ serializeOn: [`project-cases:${p.id}`] });

/**
 * Stores the results of one posted item inside the caller's transaction: each result row is kept
 * (history) and its case's latest status is overwritten (latest result per case wins). Cases not
 * yet in the run join it. A failed result with `defect: true` also creates a defect
 * (defect.created). Results whose `clientId` is already stored in the run are answered from
 * the stored rows and not stored again. What the results write is counted on `budget` first;
 * cases and suites they create are counted as they are created.
 */
export async function storeResults(w: ProjectWrite, q: ResultStatements, caller: Caller, runId: number, items: ResultInput[], field: string, budget: RowBudget, newCases: CaseBatch): Promise<StoredResult[]> {
  const { tx } = w;
  const clientId = items[0]?.clientId ?? null;
  if (clientId !== null) {
    const stored = await q.resultByClientId.all(tx, runId, clientId);
    if (stored.length) return stored.map((s) => ({ case_id: s.case_number, hash: s.hash, unlinked_reason: s.unlinked_reason, duplicate: true }));
  }
  for (const r of items) budget.spend(2 + r.steps.length + (makesDefect(r) ? 1 : 0), makesDefect(r) ? 1 : 0);
  const now = isoMicro();
  const out: StoredResult[] = [];
  for (const r of items) {
    const c = await resolveCase(w, q, caller, r, field, budget, newCases);
    const hash = randomBytes(20).toString("hex");
    await q.insertResult.run(tx, hash, runId, c.id, r.status, r.timeMs, r.comment, r.stacktrace, JSON.stringify(r.steps), JSON.stringify(r.attachments), JSON.stringify(r.params), r.clientId, c.unlinkedReason, caller.userId, now);
    if ((await q.setLatest.run(tx, r.status, runId, c.id)).changes === 0) await q.addToRun.run(tx, runId, c.id, ((await q.lastPosition.get(tx, runId))?.m ?? 0) + 1, r.status);
    if (makesDefect(r)) {
      const failedStep = r.steps.find((s) => s.status === "failed" || s.status === "invalid");
      await insertDefect(w, caller, {
        title: `${c.title}: ${r.status}`, actualResult: r.comment ?? r.stacktrace ?? `Result ${hash} ${r.status}`,
        severity: "normal", caseId: c.id, step: failedStep?.position ?? 0, runId, resultHash: hash, attachments: r.attachments,
      });
    }
    out.push({ case_id: c.number, hash, unlinked_reason: c.unlinkedReason, duplicate: false });
  }
  return out;
}

/**
 * The checks of `resolveCase` that need nothing of the batch stored first, run on every v1 item
 * before any is stored when the batch creates cases or defects: a bad item refuses the batch
 * before earlier items take numbers (a number taken is spent, even when the write rolls back:
 * src/tms/shared/numbers.ts). One item alone is checked by `resolveCase` before it takes any.
 */
async function checkV1ItemsBeforeNumbers({ tx, project: p }: ProjectWrite, q: ResultStatements, items: ResultInput[]): Promise<void> {
  if (items.length < 2 || !items.some((r) => r.caseNumber == null || makesDefect(r))) return;
  for (const [i, r] of items.entries()) {
    const field = `results.${i}.`;
    if (r.caseNumber == null) {
      if (!r.caseTitle) throw badRequest("A result needs `case_id` (or a case title to find or create the case)", `${field}case_id`);
    } else if (!(await q.caseByNumber.get(tx, p.id, r.caseNumber))) {
      throw badRequest(`Test case ${r.caseNumber} does not exist in this project`, `${field}case_id`);
    }
  }
}

/** Records v1 results into a run (numbered `runNumber`) that takes them, in one transaction (one bad item rejects the request). */
export function recordResults(db: Db, caller: Caller, p: ProjectRow, runNumber: number, inputs: (field: string) => ResultInput[]) {
  const q = resultStatements();
  return inProject(db, p, async (w) => {
    const run = await requireRunTakingResults(w.tx, p, runNumber);
    const items = inputs("");
    await checkV1ItemsBeforeNumbers(w, q, items);
    const budget = new RowBudget();
    const newCases = new CaseBatch(w);
    const stored: StoredResult[] = [];
    for (const [i, r] of items.entries()) stored.push(...(await storeResults(w, q, caller, run.id, [r], items.length > 1 ? `results.${i}.` : "", budget, newCases)));
    return stored;
  }, resultWrites(p));
}

/** Steps as Qase's TestStepResult: `status` is the number (1 passed, 2 failed…), sub-steps alike. */
type StepView = Omit<ResultStep, "status" | "steps"> & { status: number; steps: StepView[] };
const stepView = (s: ResultStep): StepView => ({ ...s, status: enumNumber(RESULT_STATUS, s.status), steps: s.steps.map(stepView) });

type ResultRow = typeof results.$inferSelect;

/** The API view of a result: `status` the name (Qase's Result.status is a string), step statuses numbers; `numbers` gives its run's and case's. Pure. */
export function resultView(r: ResultRow, numbers: Numbers) {
  return {
    hash: r.hash, run_id: numbers.of("run", r.runId), case_id: numbers.of("case", r.caseId), status: r.status, time_spent_ms: r.timeMs, comment: r.comment,
    stacktrace: r.stacktrace, steps: r.steps.map(stepView), attachments: r.attachments, param: r.params, author_id: r.authorId, end_time: r.created,
    id: r.clientId, unlinked_reason: r.unlinkedReason,
  };
}

/** Views of many results: their runs' and cases' numbers in one query each. */
export async function resultViews(db: Reader, rows: ResultRow[]) {
  const numbers = await Numbers.load(db, { run: rows.map((r) => r.runId), case: rows.map((r) => r.caseId) });
  return rows.map((r) => resultView(r, numbers));
}

export async function getResult(db: Db, p: ProjectRow, hash: string) {
  const r = await first(db.select({ r: results }).from(results).innerJoin(runs, eq(runs.id, results.runId)).where(and(eq(results.hash, hash), eq(runs.projectId, p.id))));
  if (!r) throw new ApiError(404, "not_found", `Result ${hash} not found`);
  return (await resultViews(db, [r.r]))[0]!;
}

/** A result of a run of the project by its hash, or 404. */
async function requireRunResult(tx: Reader, p: ProjectRow, runNumber: number, hash: string) {
  const run = await requireRun(tx, p.id, runNumber);
  const r = await first(tx.select().from(results).where(and(eq(results.hash, hash), eq(results.runId, run.id))));
  if (!r) throw new ApiError(404, "not_found", `Result ${hash} not found in run ${runNumber}`);
  return { run, r };
}

/** The case's latest status in the run follows its newest remaining result (none: untested). */
async function refreshLatest(tx: Tx, runId: number, caseId: number) {
  const newest = await first(tx.select({ status: results.status }).from(results).where(and(eq(results.runId, runId), eq(results.caseId, caseId))).orderBy(desc(results.created), desc(insertionOrder())).limit(1));
  await tx.update(runCases).set({ status: newest?.status ?? null }).where(and(eq(runCases.runId, runId), eq(runCases.caseId, caseId)));
}

/**
 * Qase's `PATCH /result/{code}/{run}/{hash}`: status, time, comment, stacktrace, attachments, steps
 * of a stored result; the case's latest status in the run follows. No event (results have none).
 */
export function updateResult(db: Db, p: ProjectRow, runNumber: number, hash: string, body: ResultUpdateBody) {
  return inProject(db, p, async ({ tx }) => {
    const { run, r } = await requireRunResult(tx, p, runNumber, hash);
    await lockRunTakingResults(tx, run, "change its results");
    const set: Partial<ResultRow> = {};
    if (body.status != null) set.status = statusOf(body.status, "status");
    if (body.time_ms != null) set.timeMs = body.time_ms;
    if (body.comment != null) set.comment = body.comment;
    if (body.stacktrace != null) set.stacktrace = body.stacktrace;
    if (body.attachments != null) set.attachments = attachmentIds(body.attachments);
    // Steps are read exactly as a v1 result's are.
    if (body.steps != null) set.steps = fromV1({ status: set.status ?? r.status, steps: body.steps }, "").steps;
    if (Object.keys(set).length) await tx.update(results).set(set).where(eq(results.hash, r.hash));
    await refreshLatest(tx, run.id, r.caseId);
    return { hash };
  });
}

/** Qase's `DELETE /result/{code}/{run}/{hash}`: the result leaves the history; the case's latest status follows. No event. */
export function deleteResult(db: Db, p: ProjectRow, runNumber: number, hash: string) {
  return inProject(db, p, async ({ tx }) => {
    const { run, r } = await requireRunResult(tx, p, runNumber, hash);
    await tx.delete(results).where(eq(results.hash, r.hash));
    await refreshLatest(tx, run.id, r.caseId);
    return { hash };
  });
}

/** Results of the project, narrowed by ResultsApi.getResults' filters (see ResultListQuery); each narrows or is a 400 naming it. */
export async function listResults(db: Db, p: ProjectRow, q: { limit: number; offset: number } & ResultListFilters) {
  const base = eq(runs.projectId, p.id);
  const filters: (SQL | undefined)[] = [base];
  if (q.status) filters.push(inArray(results.status, csv(q.status).map((v) => statusOf(v, "status"))));
  if (q.run) filters.push(inArray(runs.number, integersOf(q.run, "run")));
  if (q.case_id) {
    const keys: number[] = [];
    for (const n of integersOf(q.case_id, "case_id")) keys.push((await findRowId(db, "case", p.id, n)) ?? 0);
    filters.push(inArray(results.caseId, keys));
  }
  if (q.member) filters.push(inArray(results.authorId, integersOf(q.member, "member")));
  // Every result here is recorded through the API (there is no manual entry).
  if (q.api !== undefined && !flagOf(q.api, "api")) filters.push(sql`FALSE`);
  if (q.from_end_time) filters.push(gte(results.created, timeOf(q.from_end_time, "from_end_time")));
  if (q.to_end_time) filters.push(lte(results.created, timeOf(q.to_end_time, "to_end_time")));
  const where = and(...filters);
  const total = (await first(db.select({ n: count() }).from(results).innerJoin(runs, eq(runs.id, results.runId)).where(base)))!.n;
  const filtered = (await first(db.select({ n: count() }).from(results).innerJoin(runs, eq(runs.id, results.runId)).where(where)))!.n;
  const rows = await db.select({ r: results }).from(results).innerJoin(runs, eq(runs.id, results.runId)).where(where).orderBy(results.created, results.hash).limit(q.limit).offset(q.offset);
  return { total, filtered, entities: await resultViews(db, rows.map((x) => x.r)) };
}
