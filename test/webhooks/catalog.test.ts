import { describe, expect, test } from "bun:test";
import { assertValidPayload, EVENT_NAMES, EVENTS, InvalidEventError, isoMicros, openApiWebhooks } from "../../src/webhooks/catalog";

const SPEC_EVENTS = [
  "case.created", "case.updated", "case.deleted", "case.cloned",
  "suite.created", "suite.updated", "suite.deleted", "suite.cloned",
  "milestone.created", "milestone.updated", "milestone.deleted",
  "shared_step.created", "shared_step.updated", "shared_step.deleted",
  "plan.created", "plan.updated", "plan.deleted",
  "run.started", "run.updated", "run.aborted", "run.completed", "run.deleted", "run.report_changed",
  "defect.created", "defect.resolved", "defect.deleted",
  "custom_field.created", "custom_field.updated", "custom_field.deleted",
];

test("the catalog has exactly the 29 events of spec §6.2", () => {
  expect(SPEC_EVENTS.length).toBe(29);
  expect([...EVENT_NAMES as string[]].sort()).toEqual([...SPEC_EVENTS].sort());
});

describe.each(SPEC_EVENTS)("%s", (name) => {
  const example = (EVENTS as Record<string, { example: unknown }>)[name]!.example as Record<string, unknown>;

  test("its example payload is valid", () => {
    expect(() => assertValidPayload(name, example)).not.toThrow();
  });

  test("a payload missing a required field throws", () => {
    const key = Object.keys(example)[0]!;
    const { [key]: _removed, ...broken } = example;
    expect(() => assertValidPayload(name, broken)).toThrow(InvalidEventError);
  });

  test("a payload with an unknown field throws", () => {
    expect(() => assertValidPayload(name, { ...example, surprise: 1 })).toThrow(InvalidEventError);
  });

  test("a payload with a wrongly typed field throws", () => {
    const key = Object.keys(example)[0]!;
    const wrong = typeof example[key] === "string" ? 42 : "not-a-number";
    expect(() => assertValidPayload(name, { ...example, [key]: wrong })).toThrow(InvalidEventError);
  });
});

test("unknown events and non-object payloads throw", () => {
  expect(() => assertValidPayload("case.exploded", { id: 1 })).toThrow(/unknown webhook event/);
  expect(() => assertValidPayload("case.updated", null)).toThrow(InvalidEventError);
  expect(() => assertValidPayload("case.updated", { id: 0 })).toThrow(/\/id/);
});

test("case.created enforces enums, nullables and the timestamp format", () => {
  const base = EVENTS["case.created"].example;
  expect(() => assertValidPayload("case.created", { ...base, severity: "catastrophic" })).toThrow(/severity/);
  expect(() => assertValidPayload("case.created", { ...base, priority: "urgent" })).toThrow(/priority/);
  expect(() => assertValidPayload("case.created", { ...base, type: "exploratory" })).toThrow(/type/);
  expect(() => assertValidPayload("case.created", { ...base, behavior: "neutral" })).toThrow(/behavior/);
  expect(() => assertValidPayload("case.created", { ...base, suite_id: null, milestone_id: 3 })).not.toThrow();
  expect(() => assertValidPayload("case.created", { ...base, title: null })).toThrow(/title/);
  expect(() => assertValidPayload("case.created", { ...base, created: "2026-11-22T09:15:42Z" })).toThrow(/created/);
  expect(() => assertValidPayload("case.created", { ...base, steps: [{ position: 1, action: "x", expected_result: "" }] })).toThrow(/steps/);
  expect(() => assertValidPayload("case.created", { ...base, custom_fields: [{ field_id: 4, value: "x" }] })).toThrow(/custom_fields/);
});

test("other nullables and spec choices", () => {
  expect(() => assertValidPayload("run.started", { ...EVENTS["run.started"].example, plan_id: null, environment: null })).not.toThrow();
  expect(() => assertValidPayload("suite.created", { ...EVENTS["suite.created"].example, parent_id: 3 })).not.toThrow();
  expect(() => assertValidPayload("plan.deleted", { id: 9 })).not.toThrow();
  expect(() => assertValidPayload("run.updated", { id: 1, cases_added: [1, 2] })).toThrow(/cases_added/);
  expect(() => assertValidPayload("custom_field.created", { ...EVENTS["custom_field.created"].example, type: "number", value: null })).not.toThrow();
  expect(() => assertValidPayload("custom_field.created", { ...EVENTS["custom_field.created"].example, type: "date" })).toThrow(/type/);
  expect(() => assertValidPayload("shared_step.updated", { id: 5 })).toThrow(InvalidEventError);
});

test("isoMicros renders the spec's microsecond timestamps", () => {
  expect(isoMicros(Date.UTC(2026, 10, 22, 9, 15, 42, 123))).toBe("2026-11-22T09:15:42.123000Z");
  expect(() => assertValidPayload("case.created", { ...EVENTS["case.created"].example, created: isoMicros(Date.now()) })).not.toThrow();
});

test("the OpenAPI webhooks section documents every event", () => {
  const w = openApiWebhooks();
  expect(Object.keys(w).sort()).toEqual([...SPEC_EVENTS].sort());
});

test("numbers and booleans are never accepted as strings", () => {
  expect(() => assertValidPayload("case.updated", { id: "7" })).toThrow(InvalidEventError);
  expect(() => assertValidPayload("run.report_changed", { id: 1, visible: "true" })).toThrow(InvalidEventError);
  expect(() => assertValidPayload("case.updated", { id: 7.5 })).toThrow(InvalidEventError);
});
