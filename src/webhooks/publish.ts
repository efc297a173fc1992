import type { Tx } from "../db/connection";

export type PublishOptions = {
  /** Code of the project the entity belongs to (e.g. "DEMO"); subscriptions scoped to another project do not receive it. */
  projectCode?: string | null;
};

/**
 * Transactional outbox: records `event` with `payload` in the caller's transaction, so the entity
 * change and its event commit together or not at all, then wakes the delivery loop after commit.
 * Call it inside `db.transaction((tx) => { ...change...; publish(tx, "case.created", payload, { projectCode }) }, { behavior: "immediate" })`.
 *
 * PLACEHOLDER until the webhook engine (issue 5) lands: same signature, no effect yet.
 */
export function publish(_tx: Tx, _event: string, _payload: unknown, _opts: PublishOptions = {}): void {}
