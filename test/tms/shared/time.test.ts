import { expect, test } from "bun:test";
import { isoMicro, secondsBetween } from "../../../src/tms/shared/time";

test("isoMicro renders microseconds with a Z suffix", () => {
  expect(isoMicro(new Date(Date.UTC(2026, 10, 22, 10, 0, 0, 123)))).toBe("2026-11-22T10:00:00.123000Z");
  expect(isoMicro(new Date(Date.UTC(2026, 0, 1)))).toBe("2026-01-01T00:00:00.000000Z");
});

test("secondsBetween rounds and never goes negative", () => {
  expect(secondsBetween("2026-11-22T10:00:00.000000Z", "2026-11-22T10:01:30.600000Z")).toBe(91);
  expect(secondsBetween("2026-11-22T10:00:05.000000Z", "2026-11-22T10:00:00.000000Z")).toBe(0);
});
