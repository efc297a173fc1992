import { and, eq, isNull, or, sql } from "drizzle-orm";
import type { Tx } from "../db/connection";
import { preparedQuery } from "../db/statement";
import { badRequest } from "../http/errors";
import { webhookSubscriptions } from "./tables";

/**
 * A subscription limited to a project (docs/webhooks.md, "Project scope"). The project is named by
 * its code, which travels in the `gatehouse-project` header and is matched on every publish, so the
 * rule is kept where the code is written: on create, on a PATCH of `project`, `workspace` or
 * `enabled: true`, and when the project is deleted.
 */

/** Project codes are upper-case (as projects store them); a subscription's is kept and sent the same way. */
export const projectCodeOf = (code: string | null | undefined) => code?.toUpperCase() ?? null;

/** What POST /project takes as a code (src/tms/projects/model.ts); a subscription names one the same way. */
const PROJECT_CODE = /^[A-Z][A-Z0-9]{1,9}$/;

const projectWorkspace = preparedQuery<{ workspace_id: number }, [string]>("SELECT workspace_id FROM tms_projects WHERE code = ?1");

/**
 * `code` names an existing project of `workspaceId` (of any workspace when the subscription is not
 * limited to one), else 400 naming `project`. Called inside the write transaction, so a project
 * deleted concurrently cannot slip between the check and the write (its delete takes the same lock
 * and disables what names it, below).
 */
export async function checkProject(tx: Tx, code: string | null, workspaceId: number | null): Promise<void> {
  if (code === null) return;
  if (!PROJECT_CODE.test(code)) throw badRequest(`project: ${JSON.stringify(code)} is not a project code (2–10 letters and digits, starting with a letter)`, "project");
  const found = await projectWorkspace.get(tx, code);
  if (!found) throw badRequest(`project: there is no project ${code}${workspaceId === null ? "" : ` in workspace ${workspaceId}`}; create the project first, or leave project empty`, "project");
  if (workspaceId !== null && found.workspace_id !== workspaceId) throw badRequest(`project: ${code} belongs to another workspace than this subscription's (${workspaceId})`, "project");
}

/**
 * Called in the transaction that deletes a project: the subscriptions limited to it are disabled,
 * saying why. Not kept enabled: the code is free again, and a later project under it (in any
 * workspace, for a subscription of every workspace) must not inherit them. Not deleted: their
 * delivery log and secret stay for the operator, who re-points (PATCH `project`) or deletes them.
 */
export async function disableSubscriptionsOfDeletedProject(tx: Tx, code: string, workspaceId: number, now = Date.now()): Promise<void> {
  await tx
    .update(webhookSubscriptions)
    .set({ enabled: false, disabledReason: `Project ${code} was deleted`, updatedAt: now })
    .where(and(sql`upper(${webhookSubscriptions.projectCode}) = ${code.toUpperCase()}`, or(isNull(webhookSubscriptions.workspaceId), eq(webhookSubscriptions.workspaceId, workspaceId))));
}
