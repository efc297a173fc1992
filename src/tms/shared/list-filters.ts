/**
 * Query-string filters of the list routes, read the way Qase's clients send them. Every filter a
 * route documents either narrows the list or is a 400 naming it: a filter silently ignored hands
 * scripts and dashboards wrong data with a 200. Pure.
 */
import { t } from "elysia";
import { badRequest } from "../../http/errors";
import { Limit, Offset } from "./envelope";
import { isoMicro } from "./time";

/** `a, b,,c` → `["a", "b", "c"]` (qase-api-client joins arrays with commas). */
export const csv = (v: string) => v.split(",").map((x) => x.trim()).filter(Boolean);

/** A comma-separated list of positive integers (entity numbers, user ids), else a 400 naming `field`. */
export function integersOf(value: string | number, field: string): number[] {
  const out = csv(String(value)).map((x) => (/^\d{1,15}$/.test(x) ? Number(x) : NaN));
  if (out.length === 0 || out.some((n) => !Number.isSafeInteger(n) || n < 1)) throw badRequest(`"${field}" must be one or more positive integers separated by commas`, field);
  return out;
}

/**
 * A point in time as Qase's list filters take it — Unix seconds (`from_start_time`), or
 * `YYYY-MM-DD HH:MM:SS` / ISO 8601 (`from_end_time`), read as UTC — as the stored timestamp format,
 * so it compares with `created`, `start_time`… as text. Anything else is a 400 naming `field`.
 */
export function timeOf(value: string | number, field: string): string {
  const s = String(value).trim();
  let ms = NaN;
  const m = /^(\d{4}-\d{2}-\d{2})(?:[ T](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?(Z|[+-]\d{2}:?\d{2})?$/.exec(s);
  if (/^\d{1,12}$/.test(s)) ms = Number(s) * 1000;
  else if (m) ms = Date.parse(`${m[1]}T${m[2] ?? "00:00"}:${m[3] ?? "00"}.${(m[4] ?? "").padEnd(3, "0").slice(0, 3)}${m[5] ?? "Z"}`);
  if (!Number.isFinite(ms)) throw badRequest(`"${field}" must be Unix seconds or a time as YYYY-MM-DD HH:MM:SS (UTC)`, field);
  return isoMicro(new Date(ms));
}

/** `true`/`false`/`1`/`0` as a query string carries a boolean, else a 400 naming `field`. */
export function flagOf(value: string | boolean, field: string): boolean {
  const s = String(value).trim().toLowerCase();
  if (s === "true" || s === "1") return true;
  if (s === "false" || s === "0") return false;
  throw badRequest(`"${field}" must be true or false`, field);
}

/**
 * Qase's `include` (extra parts of an entity in the answer). `allowed` are the parts Gatehouse
 * always answers (so asking for them changes nothing); any other part is a 400 naming `include`.
 */
export function checkInclude(value: string | undefined, allowed: readonly string[]): void {
  for (const part of value ? csv(value) : []) {
    if (!allowed.includes(part)) throw badRequest(`"include" takes ${allowed.length ? allowed.join(", ") : "nothing here"}; "${part}" is not supported`, "include");
  }
}

/** A query-string filter as the schema declares it: text (the service reads and checks it). */
export const FilterText = (description: string) => t.Optional(t.String({ maxLength: 2000, description }));

/** Paging plus Qase's `search` (part of the title, case-insensitive): suites, milestones, shared steps. */
export const SearchPaging = t.Object({ limit: Limit, offset: Offset, search: FilterText("Part of the title (case-insensitive)") });
