import { expect, test } from "bun:test";
import { ApiError } from "../../src/http/errors";
import {
  AUTOMATION, BEHAVIOR, CASE_STATUS, CASE_TYPE, CUSTOM_FIELD_ENTITY, CUSTOM_FIELD_TYPE, enumLegend, enumName, enumNumber, enumSlug, findEnumName, IS_FLAKY, LAYER, PRIORITY, RESULT_STATUS, RUN_STATUS, runStatusWord, SEVERITY,
  type QaseEnum,
} from "../../src/qase/enums";

/** Each enum as number → name, the table docs/tms.md states. */
const EXPECTED: [QaseEnum<string>, Record<number, string>][] = [
  [SEVERITY, { 0: "undefined", 1: "blocked", 2: "critical", 3: "major", 4: "normal", 5: "minor", 6: "trivial" }],
  [PRIORITY, { 0: "undefined", 1: "high", 2: "medium", 3: "low" }],
  [CASE_TYPE, { 1: "other", 2: "smoke", 3: "regression", 4: "security", 5: "usability", 6: "performance", 7: "acceptance", 8: "functional" }],
  [BEHAVIOR, { 1: "undefined", 2: "positive", 3: "negative", 4: "destructive" }],
  [LAYER, { 0: "unknown", 1: "e2e", 2: "api", 3: "unit" }],
  [CASE_STATUS, { 0: "actual", 1: "draft", 2: "deprecated" }],
  [AUTOMATION, { 0: "manual", 1: "to_be_automated", 2: "automated" }],
  [IS_FLAKY, { 0: "no", 1: "yes" }],
  [RESULT_STATUS, { 1: "passed", 2: "failed", 3: "blocked", 4: "retest", 5: "skipped", 7: "in_progress", 8: "invalid" }],
  [RUN_STATUS, { 0: "active", 1: "completed", 2: "aborted" }],
  [CUSTOM_FIELD_TYPE, { 0: "number", 1: "string", 2: "text", 3: "selectbox", 4: "checkbox" }],
  [CUSTOM_FIELD_ENTITY, { 0: "case", 1: "run", 2: "defect" }],
];

test("every enum maps each number to its name and back, and nothing else", () => {
  for (const [e, table] of EXPECTED) {
    expect(Object.fromEntries(e.options.map((o) => [o.id, o.name]))).toEqual(table);
    for (const [id, name] of Object.entries(table)) {
      expect(enumName(e, Number(id))).toBe(name);
      expect(enumName(e, id)).toBe(name); // numeric strings, as query strings carry them
      expect(enumNumber(e, name)).toBe(Number(id));
    }
    expect(new Set(e.ids).size).toBe(e.ids.length);
    expect(e.names).toContain(e.defaultName);
  }
});

test("names are read in any case, by title, and by the aliases Qase clients use", () => {
  expect(enumName(SEVERITY, "Critical")).toBe("critical");
  expect(enumName(SEVERITY, "blocker")).toBe("blocked"); // Qase's UI word; §6.3 says "blocked"
  expect(enumName(SEVERITY, "Not set")).toBe("undefined");
  expect(enumName(CASE_STATUS, "Active")).toBe("actual");
  expect(enumName(AUTOMATION, "is-not-automated")).toBe("manual");
  expect(enumName(AUTOMATION, "To be automated")).toBe("to_be_automated");
  expect(enumName(RESULT_STATUS, "In progress")).toBe("in_progress");
  expect(enumName(LAYER, "E2E")).toBe("e2e");
});

test("an unknown number or name is a 400 naming the field and listing the values", () => {
  for (const bad of [7, -1, 1.5, "huge", "", "9"]) expect(findEnumName(SEVERITY, bad)).toBeNull();
  expect(findEnumName(CASE_TYPE, 0)).toBeNull(); // types start at 1
  expect(findEnumName(RESULT_STATUS, 6)).toBeNull(); // 6 is Qase's "deleted", not a result status
  try {
    enumName(SEVERITY, "huge", "cases.3.severity");
    throw new Error("no error");
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    expect((e as ApiError).status).toBe(400);
    expect((e as ApiError).field).toBe("cases.3.severity");
    expect((e as ApiError).message).toContain("2 = critical");
  }
});

test("the legend lists each number with its name and aliases", () => {
  expect(enumLegend(PRIORITY)).toBe('0 = undefined or "not_set", 1 = high, 2 = medium, 3 = low');
  expect(enumLegend(SEVERITY)).toContain('1 = blocked or "blocker"');
});

test("Qase's spelling of a name, where its models declare strings", () => {
  expect(enumSlug(SEVERITY, "blocked")).toBe("blocker");
  expect(enumSlug(SEVERITY, "critical")).toBe("critical");
  expect(enumSlug(RESULT_STATUS, "in_progress")).toBe("in_progress");
});

test("a stored name outside the table is a programming error, not a silent number", () => {
  expect(() => enumNumber(SEVERITY, "huge" as never)).toThrow(/severity/);
});

test("run status words: Qase's outcome words select completed runs by outcome; names, aliases and numbers select a status", () => {
  expect(runStatusWord("Failed")).toEqual({ status: "completed", outcome: "failed" });
  expect(runStatusWord("passed")).toEqual({ status: "completed", outcome: "passed" });
  expect(runStatusWord("In progress")).toEqual({ status: "active" });
  expect(runStatusWord("abort")).toEqual({ status: "aborted" });
  expect(runStatusWord(1)).toEqual({ status: "completed" });
  expect(runStatusWord("finished")).toBeNull();
});
