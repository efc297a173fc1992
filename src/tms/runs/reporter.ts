/**
 * The Qase v2 results the reporters post (qase-javascript-commons and friends): reading one
 * result into `ResultInput`s (steps with their texts and sub-steps, fields and parameters for
 * the case it may create, the signature it is matched by) and storing a batch so that no good
 * item is lost over a bad one.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { Db } from "../../db/connection";
import { ApiError, badRequest } from "../../http/errors";
import type { Logger } from "../../log";
import { own } from "../../lib/own";
import type { CaseCreateBody } from "../cases/model";
import { CaseBatch } from "../cases/service";
import type { Caller } from "../shared/auth";
import { RowBudget } from "../shared/row-budget";
import { inProject, projectWrite } from "../shared/write";
import type { ProjectRow } from "../projects/service";
import { attachmentIds } from "../shared/envelope";
import { BEHAVIOR, CASE_STATUS, CASE_TYPE, enumName, LAYER, PRIORITY, SEVERITY, type QaseEnum } from "../../qase/enums";
import { V2ResultCreate, V2Step, type V2ResultCreateBody, type V2StepBody } from "./model";
import { requireRunTakingResults, resultStatements, resultWrites, statusOf, storeResults, type ResultInput, type StoredResult } from "./service";
import { writeTransaction } from "../../db/transaction";
import type { ResultStep } from "./tables";

/** A problem with one item of a request: which item, which field, what. */
export type ItemProblem = { index: number; field?: string; message: string };

const checkResult = TypeCompiler.Compile(V2ResultCreate);
const checkStep = TypeCompiler.Compile(V2Step);
const MAX_STEP_DEPTH = 10;

/** Reporter `fields` that are case attributes; anything else is reported as ignored. */
const CASE_TEXT_FIELDS = ["description", "preconditions", "postconditions"] as const;
const CASE_ENUM_FIELDS: Record<string, QaseEnum<string>> = { severity: SEVERITY, priority: PRIORITY, type: CASE_TYPE, behavior: BEHAVIOR, layer: LAYER, status: CASE_STATUS };

/**
 * The case a result's `fields` describe. Reporters send strings ("critical", "true", "a,b");
 * a value the case would reject is left out and reported, never fatal to the result.
 */
export function caseFieldsOf(fields: Record<string, unknown> | null | undefined, index: number, warn: (p: ItemProblem) => void): CaseCreateBody | null {
  if (!fields) return null;
  const out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(fields)) {
    const name = key.trim().toLowerCase();
    const value = raw == null ? "" : String(raw);
    if ((CASE_TEXT_FIELDS as readonly string[]).includes(name)) out[name] = value.slice(0, 100000);
    else if (own(CASE_ENUM_FIELDS, name)) {
      try {
        out[name] = enumName(own(CASE_ENUM_FIELDS, name)!, value, name);
      } catch (e) {
        warn({ index, field: `results.${index}.fields.${key}`, message: `${(e as Error).message}; ignored` });
      }
    }
    else if (name === "is_flaky") out.is_flaky = value === "true" || value === "1";
    else if (name === "tags") out.tags = value.split(",").map((x) => x.trim()).filter(Boolean).slice(0, 100);
    else warn({ index, field: `results.${index}.fields.${key}`, message: `"${key}" is not a test case field; ignored` });
  }
  return out as CaseCreateBody;
}

/** Suite path + title + parameters, the way qase-javascript-commons spells its signatures. */
export function signatureOf(suitePath: string[], title: string, params: Record<string, string>): string {
  const norm = (s: string) => s.trim().replace(/\s+/g, "_").toLowerCase();
  const parts = [[...suitePath, title].map(norm).join("::")];
  const p = Object.entries(params).map(([k, v]) => `{'${k.toLowerCase()}':'${v.toLowerCase()}'}`).join("::");
  if (p) parts.push(p);
  return parts.join("::");
}

function stepsOf(input: V2StepBody[], field: string, depth: number): ResultStep[] {
  return input.map((s, i) => {
    const f = `${field}${i}.`;
    const nested = (s.steps ?? []) as unknown[];
    if (nested.length && depth >= MAX_STEP_DEPTH) throw badRequest(`Steps nest at most ${MAX_STEP_DEPTH} levels deep`, `${f}steps`);
    nested.forEach((n, k) => {
      if (!checkStep.Check(n)) {
        const e = checkStep.Errors(n).First();
        throw badRequest(`Invalid step: ${e?.message ?? "invalid"}`, `${f}steps.${k}${e?.path.replace(/\//g, ".") ?? ""}`);
      }
    });
    return {
      position: i + 1,
      status: s.execution?.status ? statusOf(s.execution.status, `${f}execution.status`) : "skipped",
      comment: s.execution?.comment ?? null,
      action: s.data?.action ?? "",
      expected_result: s.data?.expected_result ?? null,
      data: s.data?.input_data ?? null,
      // The same attachment in both `data` and `execution` is one attachment.
      attachments: [...new Set([...attachmentIds(s.data?.attachments), ...attachmentIds(s.execution?.attachments)])],
      steps: stepsOf(nested as V2StepBody[], `${f}steps.`, depth + 1),
    };
  });
}

/**
 * The suite path (root first) of `relations.suite.data`. A title holding tabs is a path itself:
 * the reporters document `qase.suite("Suite A\tSub B")` for nested suites and send it as one title.
 */
export function suitePathOf(relations: unknown): string[] {
  const data = (relations as { suite?: { data?: { title?: unknown }[] } } | null | undefined)?.suite?.data ?? [];
  return data
    .flatMap((d) => (typeof d?.title === "string" ? d.title.split("\t") : []))
    .map((title) => title.trim().slice(0, 255))
    .filter(Boolean);
}

/** A v2 result may name several cases (`testops_ids`, numbers within the project); it is recorded once per case. */
export function fromV2(b: V2ResultCreateBody, index: number, field: string, warn: (p: ItemProblem) => void): ResultInput[] {
  const ids = b.testops_ids?.length ? b.testops_ids : b.testops_id != null ? [b.testops_id] : [null];
  const suitePath = suitePathOf(b.relations);
  const params = b.params ?? {};
  const base: Omit<ResultInput, "caseNumber"> = {
    caseTitle: b.title, suitePath,
    signature: b.signature?.trim() || signatureOf(suitePath, b.title, params),
    clientId: b.id?.trim() || null,
    caseFields: caseFieldsOf(b.fields, index, warn),
    params,
    status: statusOf(b.execution.status, `${field}execution.status`),
    timeMs: b.execution.duration != null ? Math.round(b.execution.duration) : null,
    comment: b.message ?? null, stacktrace: b.execution.stacktrace ?? null,
    steps: stepsOf(b.steps ?? [], `${field}steps.`, 1),
    attachments: attachmentIds(b.attachments), defect: b.defect ?? false,
  };
  return ids.map((caseNumber) => ({ ...base, caseNumber }));
}

/** The field path of a schema error, in the API's dotted form. */
const dotted = (path: string) => path.replace(/^\//, "").replace(/\//g, ".");

/**
 * Stores a batch of v2 results in one transaction, each item in its own savepoint: an item that
 * fails its schema or its checks is reported in `errors` (with its index and field) and leaves
 * nothing behind; every other item is stored. A result naming a case id that does not exist is
 * stored, matched by its signature, and carries `unlinked_reason`. The project and run must
 * exist and the run take results (not aborted), or the whole request is refused (nothing could be stored).
 */
export async function recordV2Results(db: Db, log: Logger, caller: Caller, p: ProjectRow, runNumber: number, items: unknown[]) {
  const q = resultStatements();
  const errors: ItemProblem[] = [];
  const warnings: ItemProblem[] = [];
  const out = await inProject(db, p, async (w) => {
    const { tx } = w;
    const run = await requireRunTakingResults(tx, p, runNumber);
    const budget = new RowBudget();
    // Positions taken by a rolled-back item leave a gap, never a duplicate.
    const newCases = new CaseBatch(w);
    const stored: (StoredResult[] | null)[] = [];
    for (const [index, item] of items.entries()) {
      const field = `results.${index}.`;
      if (!checkResult.Check(item)) {
        const e = checkResult.Errors(item).First();
        errors.push({ index, field: `${field}${dotted(e?.path ?? "")}`.replace(/\.$/, ""), message: e?.message ?? "invalid result" });
        stored.push(null);
        continue;
      }
      const itemWarnings: ItemProblem[] = [];
      try {
        // Each item in its own savepoint (a nested write transaction): a bad one leaves nothing behind.
        stored.push(await writeTransaction(tx, (sp) => storeResults(projectWrite(sp, p), q, caller, run.id, fromV2(item, index, field, (w) => itemWarnings.push(w)), field, budget, newCases)));
        warnings.push(...itemWarnings);
      } catch (e) {
        // Over the row budget the whole request is refused (413, nothing written), as for every bulk write.
        if (!(e instanceof ApiError) || e.status === 413) throw e;
        errors.push({ index, field: e.field, message: e.message });
        stored.push(null);
      }
    }
    return stored;
  }, resultWrites(p));
  if (errors.length) log.warn("v2 results: items not stored", { project: p.code, run: runNumber, rejected: errors.length, of: items.length, first: errors[0] });
  // An item naming several cases (`testops_ids`) stored one result per case: each is answered, under the item's index.
  const stored = out.flatMap((r, index) => (r ?? []).map((x) => ({ index, ...x })));
  return { stored: stored.filter((r) => !r.duplicate).length, results: stored, errors, warnings };
}
