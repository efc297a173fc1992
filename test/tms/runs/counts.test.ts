import { expect, test } from "bun:test";
import { runCounts } from "../../../src/tms/runs/counts";

test("counts fold statuses into passed/failed/blocked/untested and always add up", () => {
  expect(runCounts([])).toEqual({ cases: 0, passed: 0, failed: 0, blocked: 0, untested: 0 });
  expect(runCounts(["passed", "failed", "blocked", null])).toEqual({ cases: 4, passed: 1, failed: 1, blocked: 1, untested: 1 });
  // invalid counts as failed; skipped, retest, in_progress and no result are untested
  const c = runCounts(["invalid", "skipped", "retest", "in_progress", null, "passed"]);
  expect(c).toEqual({ cases: 6, passed: 1, failed: 1, blocked: 0, untested: 4 });
  expect(c.passed + c.failed + c.blocked + c.untested).toBe(c.cases);
});
