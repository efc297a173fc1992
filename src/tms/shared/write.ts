import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { writeTransaction } from "../../db/transaction";
import { notFound } from "../../http/errors";
import type { EventName, EventPayload } from "../../webhooks/catalog";
import { publish } from "../../webhooks/publish";
import { projects, type ProjectRow } from "../projects/tables";
import { NUMBERED_TABLES, requireNumbered } from "./numbers";

/** What a write to one project works with: its transaction, the project, and `emit` for the project's events. */
export type ProjectWrite = {
  tx: Tx;
  project: ProjectRow;
  /** Publishes an event of this project in this transaction (the outbox: it commits with the change or not at all). */
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => void;
};

/** The project's writer inside an open transaction (for work that already has one, e.g. a savepoint). */
export function projectWrite(tx: Tx, project: ProjectRow): ProjectWrite {
  const scope = { projectCode: project.code, workspaceId: project.workspaceId };
  return { tx, project, emit: (event, payload) => publish(tx, event, payload, scope) };
}

/**
 * Every test-management write: one write transaction (src/db/transaction.ts) in the project the
 * route resolved (`projectApi`), whose events are published in the same transaction. The project
 * was resolved before BEGIN, so it is confirmed here by key: one deleted in between is a 404,
 * never a foreign-key failure half way through the work.
 */
export function inProject<T>(db: Db, project: ProjectRow, work: (w: ProjectWrite) => T): T {
  return writeTransaction(db, (tx) => {
    if (!tx.select({ id: projects.id }).from(projects).where(eq(projects.id, project.id)).get()) throw notFound(`Project "${project.code}"`);
    return work(projectWrite(tx, project));
  });
}

/** The entities whose delete is only that: the row goes (dependents by their foreign keys' rules) and `<kind>.deleted` says which. */
const DELETED_EVENT = { milestone: "milestone.deleted", run: "run.deleted", defect: "defect.deleted" } as const;

/** Deletes the project's `kind` numbered `number` (404 when there is none) and publishes its `.deleted` event. */
export function deleteNumbered(db: Db, project: ProjectRow, kind: keyof typeof DELETED_EVENT, number: number) {
  return inProject(db, project, ({ tx, emit }) => {
    const table = NUMBERED_TABLES[kind];
    tx.delete(table).where(eq(table.id, requireNumbered(tx, kind, project.id, number).id)).run();
    emit(DELETED_EVENT[kind], { id: number });
    return { id: number };
  });
}
