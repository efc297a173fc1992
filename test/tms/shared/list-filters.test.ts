import { expect, test } from "bun:test";
import { checkInclude, flagOf, integersOf, timeOf } from "../../../src/tms/shared/list-filters";

const fieldOf = (f: () => unknown) => {
  try {
    f();
    return null;
  } catch (e: any) {
    return [e.status, e.field];
  }
};

test("times: Unix seconds, Qase's 'YYYY-MM-DD HH:MM:SS' (UTC), a date, ISO with a zone → the stored format; else 400 naming the field", () => {
  expect(timeOf("1700000000", "t")).toBe("2023-11-14T22:13:20.000000Z");
  expect(timeOf("2026-11-27 08:00:00", "t")).toBe("2026-11-27T08:00:00.000000Z");
  expect(timeOf("2026-11-27", "t")).toBe("2026-11-27T00:00:00.000000Z");
  expect(timeOf("2026-11-27T08:00+02:00", "t")).toBe("2026-11-27T06:00:00.000000Z");
  for (const bad of ["yesterday", "2026-13-45", "", "1e9"]) expect(fieldOf(() => timeOf(bad, "from_end_time"))).toEqual([400, "from_end_time"]);
});

test("integer lists, flags and include parts", () => {
  expect(integersOf("1, 2,3", "run")).toEqual([1, 2, 3]);
  for (const bad of ["", "0", "-1", "1.5", "a", "99999999999999999"]) expect(fieldOf(() => integersOf(bad, "run"))).toEqual([400, "run"]);
  expect([flagOf("true", "api"), flagOf("0", "api")]).toEqual([true, false]);
  expect(fieldOf(() => flagOf("maybe", "api"))).toEqual([400, "api"]);
  expect(fieldOf(() => checkInclude("cases", ["cases"]))).toBeNull();
  expect(fieldOf(() => checkInclude("cases,defects", ["cases"]))).toEqual([400, "include"]);
});
