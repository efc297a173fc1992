import { RESULT_STATUS } from "../../qase/enums";

/**
 * Result statuses accepted on /result (v1) and /v2 results, lower-case. Custom statuses are not
 * supported (see docs/tms.md).
 */
export const RESULT_STATUSES = RESULT_STATUS.names;
export type ResultStatus = (typeof RESULT_STATUSES)[number];

export type RunCounts = { cases: number; passed: number; failed: number; blocked: number; untested: number };

/**
 * Counts of a run from the status of each case's latest result (null = no result). The payload
 * fields are passed/failed/blocked/untested, so the other statuses fold into them: `invalid`
 * counts as failed (the test could not prove the behaviour), and a case whose latest result is
 * `skipped`, `retest` or `in_progress` — or that has none — is untested. Hence always
 * cases = passed + failed + blocked + untested.
 */
export function runCounts(latest: (string | null)[]): RunCounts {
  const c: RunCounts = { cases: latest.length, passed: 0, failed: 0, blocked: 0, untested: 0 };
  for (const s of latest) {
    if (s === "passed") c.passed++;
    else if (s === "failed" || s === "invalid") c.failed++;
    else if (s === "blocked") c.blocked++;
    else c.untested++;
  }
  return c;
}
