import { ApiError } from "../../http/errors";

/**
 * Rows one request may write. The process is single-threaded over SQLite: a write request holds
 * everyone else for as long as its transaction runs, so bulk requests are bounded by what they
 * produce, not by the items in their body (one v2 result can name 100 cases, one case can carry
 * 500 steps).
 */
export const MAX_ROWS_PER_REQUEST = 2000;

/**
 * An event counts as this many rows: it is validated, stored, and fanned out to one delivery per
 * matching subscription — a few times the work of a plain row (docs/benchmarks/hardening.md).
 */
export const EVENT_ROWS = 4;

/**
 * Counts what a request writes (results, linked run cases, steps, defects, cases, suites and
 * events) and stops it with 413 `row_budget_exceeded` before the transaction grows past the
 * limit. Thrown inside the transaction, it rolls everything back: nothing is half-written.
 */
export class RowBudget {
  private used = 0;

  /** Adds `rows` plain rows and `events` events; throws once the total passes the limit. */
  spend(rows: number, events = 0): void {
    this.used += rows + events * EVENT_ROWS;
    if (this.used > MAX_ROWS_PER_REQUEST)
      throw new ApiError(
        413,
        "row_budget_exceeded",
        `This request would write more than ${MAX_ROWS_PER_REQUEST} rows (results, run cases, steps, defects, cases, suites; each webhook event counts as ${EVENT_ROWS}); send it in smaller batches`,
      );
  }
}
