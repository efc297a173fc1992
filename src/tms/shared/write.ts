import { eq } from "drizzle-orm";
import type { Db, Tx } from "../../db/connection";
import { writeTransaction, type WriteOptions } from "../../db/transaction";
import { preparedQuery } from "../../db/statement";
import { notFound } from "../../http/errors";
import type { EventName, EventPayload } from "../../webhooks/catalog";
import { publish } from "../../webhooks/publish";
import type { ProjectRow } from "../projects/tables";
import { NUMBERED_TABLES, Numbers, requireNumbered } from "./numbers";

/** What a write to one project works with: its transaction, the project, and `emit` for the project's events. */
export type ProjectWrite = {
  tx: Tx;
  project: ProjectRow;
  /** Publishes an event of this project in this transaction (the outbox: it commits with the change or not at all). */
  emit: <E extends EventName>(event: E, payload: EventPayload<E>) => Promise<void>;
  /** The numbers this write read for its event payloads (bulk writes repeat them; a rolled-back write's keys may be reused, so they live no longer than it). */
  numbers: Numbers;
};

/** The project's writer inside an open transaction (for work that already has one, e.g. a savepoint). */
export function projectWrite(tx: Tx, project: ProjectRow): ProjectWrite {
  const scope = { projectCode: project.code, workspaceId: project.workspaceId };
  return { tx, project, emit: async (event, payload) => publish(tx, event, payload, scope), numbers: Numbers.empty(tx) };
}

/** The project's confirmation at the start of every write, prepared once (it runs on every write). */
const projectExists = preparedQuery<{ id: number }, [number]>("SELECT id FROM tms_projects WHERE id = ?1");

/**
 * Every test-management write: one write transaction (src/db/transaction.ts) in the project the
 * route resolved (`projectApi`), whose events are published in the same transaction. The project
 * was resolved before BEGIN, so it is confirmed here by key: one deleted in between is a 404,
 * never a foreign-key failure half way through the work. The confirmation goes out with the
 * work's first statements (on PostgreSQL one round trip, not one more before them) and its answer
 * wins over the work's: whatever the work did or failed at in a project that is gone is rolled
 * back and answered 404 (a counter statement there fails on its foreign key: no number is spent).
 */
export function inProject<T>(db: Db, project: ProjectRow, work: (w: ProjectWrite) => T | Promise<T>, options?: WriteOptions): Promise<T> {
  return writeTransaction(db, async (tx) => {
    const [found, done] = await Promise.allSettled([projectExists.get(tx, project.id), (async () => work(projectWrite(tx, project)))()]);
    if (found.status === "rejected") throw found.reason;
    if (!found.value) throw notFound(`Project "${project.code}"`);
    if (done.status === "rejected") throw done.reason;
    return done.value;
  }, options);
}

/** The entities whose delete is only that: the row goes (dependents by their foreign keys' rules) and `<kind>.deleted` says which. */
const DELETED_EVENT = { milestone: "milestone.deleted", run: "run.deleted", defect: "defect.deleted" } as const;

/** Deletes the project's `kind` numbered `number` (404 when there is none) and publishes its `.deleted` event. */
export function deleteNumbered(db: Db, project: ProjectRow, kind: keyof typeof DELETED_EVENT, number: number) {
  return inProject(db, project, async ({ tx, emit }) => {
    const table = NUMBERED_TABLES[kind];
    await tx.delete(table).where(eq(table.id, (await requireNumbered(tx, kind, project.id, number)).id));
    await emit(DELETED_EVENT[kind], { id: number });
    return { id: number };
  });
}
