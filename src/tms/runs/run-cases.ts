import { eq, max } from "drizzle-orm";
import type { Tx } from "../../db/connection";
import { first } from "../../db/transaction";
import { runCases } from "./tables";

/**
 * A run's case list, written by both ends of the plan–run link: a run created from a plan takes
 * the plan's cases (runs/service.ts), and cases added to a plan join its runs (plans/service.ts).
 * Its own file so neither service imports the other both ways.
 */

/** Adds cases not yet in the run (at the end); returns how many were added. Inside a transaction. */
export async function addCasesToRun(tx: Tx, runId: number, caseIds: number[]): Promise<number> {
  const pos = (await first(tx.select({ m: max(runCases.position) }).from(runCases).where(eq(runCases.runId, runId))))?.m ?? 0;
  let added = 0;
  // Multi-row inserts in chunks: one statement per 500 cases instead of one per case.
  for (let i = 0; i < caseIds.length; i += 500) {
    const rows = caseIds.slice(i, i + 500).map((caseId, k) => ({ runId, caseId, position: pos + i + k + 1 }));
    added += (await tx.insert(runCases).values(rows).onConflictDoNothing().returning({ caseId: runCases.caseId })).length;
  }
  return added;
}
