import type { Tx } from "../db/connection";

export type PublishOptions = {
  /** The project the entity belongs to; subscriptions scoped to another project do not receive it. */
  projectId?: number | null;
};

/**
 * Transactional outbox: records `event` with `payload` in the caller's transaction, so the entity
 * change and its event commit together or not at all, then wakes the delivery loop after commit.
 * Call it inside `db.transaction((tx) => { ...change...; publish(tx, "case.created", payload, { projectId }) }, { behavior: "immediate" })`.
 *
 * PLACEHOLDER until the webhook engine (issue 5) lands: same signature, no effect yet.
 */
export function publish(_tx: Tx, _event: string, _payload: unknown, _opts: PublishOptions = {}): void {}
