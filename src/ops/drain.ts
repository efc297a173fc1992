/**
 * Draining: once `serve` is told to stop, /readyz answers 503 so load balancers send new requests
 * elsewhere, while this node still serves what reaches it (docs/operations.md, "Stopping a node").
 * Kept per app context (its `db` handle), so several apps in one process drain apart.
 */
const draining = new WeakSet<object>();

export function startDraining(ctx: { db: object }): void {
  draining.add(ctx.db);
}

export function isDraining(ctx: { db: object }): boolean {
  return draining.has(ctx.db);
}
