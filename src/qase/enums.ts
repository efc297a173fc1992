import { badRequest } from "../http/errors";
import { own } from "../lib/own";

/**
 * Qase's enumerations, each option once with its **number** (what the Qase v1 models declare:
 * `qase-api-client`'s TestCase.severity is a number, and what v1 answers carry) and its **name**
 * (what the database stores and webhook payloads carry, spelled as spec §6.3 spells it).
 * Requests may send either; `enumName` turns both into the name, `enumNumber` the name into the
 * number. The request and response schemas (src/tms/shared/enum-schemas.ts), the views,
 * `/system_field`, QQL, the webhook catalog's payload schemas and docs/tms.md all read these
 * tables; they live in src/qase/, below both src/tms and src/webhooks, so neither imports the other for them.
 *
 * Numbers follow Qase's defaults (docs/tms.md "Enums" lists each with the source it was taken from).
 */
/** `slug` is Qase's own spelling, where it differs from the name (severity 1: Qase "blocker", §6.3 "blocked"). */
export type EnumOption<N extends string> = { readonly id: number; readonly name: N; readonly title: string; readonly slug: string };
export type QaseEnum<N extends string> = {
  /** The request/response field, used in error messages. */
  readonly field: string;
  readonly options: readonly EnumOption<N>[];
  readonly names: readonly [N, ...N[]];
  readonly ids: readonly [number, ...number[]];
  /** What a case gets when the field is not given. */
  readonly defaultName: N;
  /** Other spellings clients use for a name ("Not set", Qase's filter words). */
  readonly aliases: Readonly<Record<string, N>>;
};

function qaseEnum<const N extends string>(field: string, options: readonly (readonly [id: number, name: N, title: string, slug?: string])[], defaultName: N, aliases: Record<string, N> = {}): QaseEnum<N> {
  const opts = options.map(([id, name, title, slug]) => ({ id, name, title, slug: slug ?? name }));
  return {
    field, options: opts, defaultName, aliases,
    names: opts.map((o) => o.name) as unknown as [N, ...N[]],
    ids: opts.map((o) => o.id) as unknown as [number, ...number[]],
  };
}

export const SEVERITY = qaseEnum("severity", [
  [0, "undefined", "Not set"], [1, "blocked", "Blocker", "blocker"], [2, "critical", "Critical"], [3, "major", "Major"],
  [4, "normal", "Normal"], [5, "minor", "Minor"], [6, "trivial", "Trivial"],
], "normal", { not_set: "undefined" });

export const PRIORITY = qaseEnum("priority", [
  [0, "undefined", "Not set"], [1, "high", "High"], [2, "medium", "Medium"], [3, "low", "Low"],
], "undefined", { not_set: "undefined" });

/** Qase numbers `functional` 8 (added after the others); the rest keep their original order from 1. */
export const CASE_TYPE = qaseEnum("type", [
  [1, "other", "Other"], [2, "smoke", "Smoke"], [3, "regression", "Regression"], [4, "security", "Security"],
  [5, "usability", "Usability"], [6, "performance", "Performance"], [7, "acceptance", "Acceptance"], [8, "functional", "Functional"],
], "other");

/** Qase numbers behaviors from 1 (`undefined`, "Not set"). */
export const BEHAVIOR = qaseEnum("behavior", [
  [1, "undefined", "Not set"], [2, "positive", "Positive"], [3, "negative", "Negative"], [4, "destructive", "Destructive"],
], "undefined", { not_set: "undefined" });

export const LAYER = qaseEnum("layer", [
  [0, "unknown", "Unknown"], [1, "e2e", "E2E"], [2, "api", "API"], [3, "unit", "Unit"],
], "unknown", { end_to_end: "e2e" });

/** Qase's UI calls `actual` "Active". */
export const CASE_STATUS = qaseEnum("status", [
  [0, "actual", "Actual"], [1, "draft", "Draft"], [2, "deprecated", "Deprecated"],
], "actual", { active: "actual" });

/** Qase's `automation` (deprecated there in favour of `isManual` + `isToBeAutomated`, which carry the same three states). */
export const AUTOMATION = qaseEnum("automation", [
  [0, "manual", "Manual"], [1, "to_be_automated", "To be automated"], [2, "automated", "Automated"],
], "manual", { is_not_automated: "manual", not_automated: "manual" });

export const IS_FLAKY = qaseEnum("is_flaky", [[0, "no", "No"], [1, "yes", "Yes"]], "no");

/** Result statuses: taken and answered by name (Qase's Result.status is a string); steps of a v1 result answer the number (TestStepResult.status). 6 is Qase's `deleted`, not a status a result can have. */
export const RESULT_STATUS = qaseEnum("status", [
  [1, "passed", "Passed"], [2, "failed", "Failed"], [3, "blocked", "Blocked"], [4, "retest", "Retest"],
  [5, "skipped", "Skipped"], [7, "in_progress", "In progress"], [8, "invalid", "Invalid"],
], "passed");

/** Latest result statuses Qase counts against a run ("a negative result"): one of them makes a completed run `failed`. */
export const NEGATIVE_RESULT_STATUSES = ["failed", "blocked", "invalid"] as const;

/** Runs answer both: `status` (the number) and `status_text` (Qase's run status word, see runStatusText). The aliases are Qase's filter words. */
export const RUN_STATUS = qaseEnum("status", [[0, "active", "Active"], [1, "completed", "Completed"], [2, "aborted", "Aborted"]], "active",
  { in_progress: "active", complete: "completed", abort: "aborted" });

/** Custom fields: requests take the number (`CustomFieldCreate.type`/`entity` are numbers) or the name; answers and payloads carry the name (Qase's CustomField declares strings). Qase's types 5–9 (radio … datetime) are not supported. */
export const CUSTOM_FIELD_TYPE = qaseEnum("type", [
  [0, "number", "Number"], [1, "string", "String"], [2, "text", "Text"], [3, "selectbox", "Selectbox"], [4, "checkbox", "Checkbox"],
], "string");
export const CUSTOM_FIELD_ENTITY = qaseEnum("entity", [[0, "case", "Test case"], [1, "run", "Test run"], [2, "defect", "Defect"]], "case");

/** Names compare case-insensitively, with spaces and hyphens read as underscores ("In progress", "to-be-automated"). */
const slug = (s: string) => s.trim().toLowerCase().replace(/[\s-]+/g, "_");

/** "0 = undefined or \"not_set\", 1 = blocked or \"blocker\", …": the legend error messages and the OpenAPI descriptions show. */
export function enumLegend<N extends string>(e: QaseEnum<N>): string {
  const others = (o: EnumOption<N>) => [...(o.slug !== o.name ? [o.slug] : []), ...Object.keys(e.aliases).filter((a) => e.aliases[a] === o.name)];
  return e.options.map((o) => `${o.id} = ${o.name}${others(o).map((a) => ` or "${a}"`).join("")}`).join(", ");
}

/** The name for a request value: a number (or numeric string) by Qase's number, a string by name, Qase's slug, title or alias (any case); null when it is none of them. */
export function findEnumName<N extends string>(e: QaseEnum<N>, input: number | string): N | null {
  if (typeof input === "number" || /^\s*\d+\s*$/.test(input)) return e.options.find((o) => o.id === Number(input))?.name ?? null;
  const s = slug(input);
  return e.options.find((o) => o.name === s || o.slug === s || slug(o.title) === s)?.name ?? own(e.aliases, s) ?? null;
}

/** As `findEnumName`, but an unknown value is a 400 naming `field` and listing what it takes. */
export function enumName<N extends string>(e: QaseEnum<N>, input: number | string, field: string = e.field): N {
  const name = findEnumName(e, input);
  if (name === null) throw badRequest(`Invalid value ${JSON.stringify(input)} for "${field}": expected one of ${enumLegend(e)} (the number or the name)`, field);
  return name;
}

/**
 * What one of Qase's run status words selects (`GET /run?status=`, QQL's run `status`): a stored
 * status, and for `passed`/`failed` the outcome of a completed run (see runStatusText). Stored
 * names, Qase's aliases and numbers select a status alone; anything else is null.
 */
export type RunStatusWord = { status: (typeof RUN_STATUS.names)[number]; outcome?: "passed" | "failed" };
export function runStatusWord(input: string | number): RunStatusWord | null {
  const word = typeof input === "string" ? slug(input) : null;
  if (word === "passed" || word === "failed") return { status: "completed", outcome: word };
  const status = findEnumName(RUN_STATUS, input);
  return status === null ? null : { status };
}
/** What a run status filter takes, for error messages. */
export const RUN_STATUS_WORDS = `in_progress, passed, failed or aborted (Qase's run statuses), or one of ${enumLegend(RUN_STATUS)}`;

/** Qase's spelling of a stored name (where its model declares a string). */
export function enumSlug<N extends string>(e: QaseEnum<N>, name: N): string {
  return optionOf(e, name).slug;
}

/** Qase's number for a stored name. */
export function enumNumber<N extends string>(e: QaseEnum<N>, name: N): number {
  return optionOf(e, name).id;
}

function optionOf<N extends string>(e: QaseEnum<N>, name: N): EnumOption<N> {
  const o = e.options.find((x) => x.name === name);
  if (!o) throw new Error(`${e.field}: no option "${name}"`); // a stored name is always one of the table's
  return o;
}
