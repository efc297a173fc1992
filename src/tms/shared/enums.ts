import { t } from "elysia";
import { badRequest } from "../../http/errors";

/**
 * Case attribute enums, spelled exactly as webhook payloads carry them (spec §6.3). The Qase v1
 * API sends them as numbers; index = Qase's numeric code. Requests may send either form.
 */
export const SEVERITIES = ["undefined", "blocked", "critical", "major", "normal", "minor", "trivial"] as const;
export const PRIORITIES = ["undefined", "high", "medium", "low"] as const;
/** Qase numbers types from 1 (`other`); index 0 is unused. */
export const TYPES = [null, "other", "functional", "smoke", "regression", "security", "usability", "performance", "acceptance"] as const;
/** Qase numbers behaviors from 1 (`undefined`); index 0 is unused. */
export const BEHAVIORS = [null, "undefined", "positive", "negative", "destructive"] as const;
export const LAYERS = ["unknown", "e2e", "api", "unit"] as const;
export const CASE_STATUSES = ["actual", "draft", "deprecated"] as const;

/** A number or a name in request bodies. */
export const EnumInput = t.Union([t.Integer({ minimum: 0, maximum: 20 }), t.String({ minLength: 1, maxLength: 32 })]);

/** Normalises a numeric code or a name (any case) to the name; 400 naming `field` otherwise. */
export function enumValue<T extends string>(table: readonly (T | null)[], input: number | string, field: string): T {
  if (typeof input === "number") {
    const v = table[input];
    if (v) return v;
  } else {
    const lower = input.trim().toLowerCase();
    const v = table.find((x) => x === lower) ?? (/^\d+$/.test(lower) ? table[Number(lower)] : undefined);
    if (v) return v;
    // Qase's own UI spells the top severity "blocker"; the webhook enum says "blocked".
    if (lower === "blocker" && table.includes("blocked" as T)) return "blocked" as T;
  }
  throw badRequest(`Invalid value for "${field}": expected one of ${table.filter(Boolean).join(", ")} (or its number)`, field);
}
