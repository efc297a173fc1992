import { expect, test } from "bun:test";
import { evaluateDateFunction, normalizeDateLiteral } from "../../../src/tms/search/dates";

// Wednesday 2026-01-14, 15:30 UTC.
const NOW = new Date(Date.UTC(2026, 0, 14, 15, 30, 0, 250));
const at = (name: string, arg: string | number | null = null) => evaluateDateFunction(name, arg, NOW);

test("now() with no offset, and offsets of days, weeks and months", () => {
  expect(at("now")).toBe("2026-01-14T15:30:00.250000Z");
  expect(at("now", "-7d")).toBe("2026-01-07T15:30:00.250000Z");
  expect(at("now", "+2w")).toBe("2026-01-28T15:30:00.250000Z");
  expect(at("now", "-1m")).toBe("2025-12-14T15:30:00.250000Z");
  // The 31st one month on is the last day of that month, not a day of the month after.
  expect(evaluateDateFunction("now", "+1m", new Date(Date.UTC(2026, 0, 31)))).toBe("2026-02-28T00:00:00.000000Z");
});

test("start and end of a day, a week (Monday to Sunday, UTC) and a month; of now, of an offset, of a given day", () => {
  expect(at("startofday")).toBe("2026-01-14T00:00:00.000000Z");
  expect(at("endofday")).toBe("2026-01-14T23:59:59.999999Z");
  expect(at("startofday", "-1d")).toBe("2026-01-13T00:00:00.000000Z");
  expect(at("startofday", "2025-03-01")).toBe("2025-03-01T00:00:00.000000Z");
  expect(at("startofweek")).toBe("2026-01-12T00:00:00.000000Z");
  expect(at("endofweek")).toBe("2026-01-18T23:59:59.999999Z");
  expect(at("startofweek", "2026-01-18")).toBe("2026-01-12T00:00:00.000000Z"); // a Sunday ends its week
  expect(at("startofmonth", "-1m")).toBe("2025-12-01T00:00:00.000000Z");
  expect(at("endofmonth", "2024-02-10")).toBe("2024-02-29T23:59:59.999999Z");
});

test("what is not a date function or argument", () => {
  expect(at("yesterday")).toBeNull();
  expect(() => at("now", "-3h")).toThrow('Qase takes no "h" offsets');
  expect(() => at("now", "-1y")).toThrow('Qase takes no "y" offsets');
  expect(() => at("now", "last week")).toThrow('"-7d"');
  expect(() => at("now", "2026-01-01")).toThrow("not a day");
  expect(() => at("startofday", 7)).toThrow("not a number");
  expect(() => at("startofday", "2026-02-30")).toThrow("not a day of the calendar");
});

test("date literals are normalized to the stored format; non-dates are null", () => {
  expect(normalizeDateLiteral("2026-01-05")).toBe("2026-01-05T00:00:00.000000Z");
  expect(normalizeDateLiteral("2026-01-05 10:20")).toBe("2026-01-05T10:20:00.000000Z");
  expect(normalizeDateLiteral("2026-01-05T23:00:00-05:00")).toBe("2026-01-06T04:00:00.000000Z");
  expect(normalizeDateLiteral("2026-02-30")).toBeNull();
  expect(normalizeDateLiteral("yesterday")).toBeNull();
  expect(normalizeDateLiteral("2026-1-5")).toBeNull();
});
