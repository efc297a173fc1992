/**
 * A compile-time bound on what a filter makes SQLite do (pure). bun:sqlite exposes neither
 * `sqlite3_progress_handler` nor `sqlite3_interrupt`, and a statement runs synchronously on the
 * only thread, so a query cannot be stopped once started: the bound has to come before it runs.
 *
 * Model: a filter whose top-level `and` chain holds an equality on an indexed attribute
 * ("anchored": `userName eq`, `externalId eq`, `id eq`, `emails.value eq`) touches at most the
 * few rows that probe finds. Any other filter scans every row of the table and evaluates each
 * of its terms on it (a multi-valued term scans the child table once): its cost is
 * `terms × rows`. Legal filters above the budget are refused with 400 `invalidFilter` saying why.
 */
import { ScimError } from "../errors";
import type { FilterNode } from "./parser";

/** Row × term evaluations one list request may cost: ≈ 50–100 ms of SQLite work. */
export const FILTER_COST_BUDGET = 200_000;

/** The `compare` nodes that are an index probe for this resource (an equality on a key column). */
export type IsIndexProbe = (node: Extract<FilterNode, { op: "compare" }>) => boolean;

export function countTerms(node: FilterNode): number {
  switch (node.op) {
    case "and":
    case "or":
      return countTerms(node.left) + countTerms(node.right);
    case "not":
      return countTerms(node.filter);
    case "valuePath":
      return countTerms(node.filter);
    default:
      return 1;
  }
}

/** True when the top-level `and` chain holds an index probe (the filter never scans). */
export function isAnchored(node: FilterNode, isProbe: IsIndexProbe): boolean {
  if (node.op === "and") return isAnchored(node.left, isProbe) || isAnchored(node.right, isProbe);
  return node.op === "compare" && isProbe(node);
}

/** Throws 400 invalidFilter when an unanchored filter would cost more than the budget over `rows` rows. */
export function assertFilterCost(node: FilterNode, rows: number, isProbe: IsIndexProbe, budget = FILTER_COST_BUDGET): void {
  if (isAnchored(node, isProbe)) return;
  const terms = countTerms(node);
  if (terms * rows <= budget) return;
  const maxTerms = Math.max(1, Math.floor(budget / Math.max(rows, 1)));
  throw new ScimError(
    400,
    `The filter is too costly: ${terms} term(s) evaluated on each of ~${rows} rows exceeds the budget of ${budget} evaluations; ` +
      `use at most ${maxTerms} term(s), or anchor it with an equality on userName, externalId, id or emails.value`,
    "invalidFilter",
  );
}
