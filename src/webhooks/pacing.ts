import type { AppContext } from "../context";
import type { GroupCommit } from "../db/group-commit";
import type { FinishedAttempt, LeasedDelivery } from "./ledger";

/**
 * How hard the delivery loop may push, per subscription and against request writes: the
 * per-subscription cap, and a smoothed attempt duration per subscription that tells a busy main
 * thread (hold request writes until claims are fresh again) from a slow subscriber (its backlog is
 * its own).
 */

/**
 * A first attempt claimed this late (ms after its event) for a subscription that answers within
 * `FAST_SUBSCRIBER_MS` means the loop is short of the main thread: request writes are held
 * (GroupCommit.holdWrites) until claims are fresh again (`CAUGHT_UP_MS`). Slow subscribers are
 * left out: their backlog is theirs, and holding writes would not shorten it.
 */
const BEHIND_MS = 100;
const CAUGHT_UP_MS = 25;
const FAST_SUBSCRIBER_MS = 50;

/**
 * Requests one subscription may have in flight: as configured, but always at least one global
 * slot short of GATEHOUSE_WEBHOOK_CONCURRENCY, so a hanging endpoint can never hold every slot
 * and delay the other subscriptions' deliveries, however the two keys are set (config.ts
 * refuses a global concurrency below 2).
 */
export function perSubscriptionCap(cfg: Pick<AppContext["config"], "webhookConcurrency" | "webhookPerSubscriptionConcurrency">): number {
  return Math.max(1, Math.min(cfg.webhookPerSubscriptionConcurrency, cfg.webhookConcurrency - 1));
}

export class DeliveryPacer {
  /** Per subscription: attempt duration, smoothed (ms). */
  private readonly durations = new Map<number, number>();

  constructor(private readonly writes: Pick<GroupCommit, "holdWrites">) {}

  observe(finished: readonly FinishedAttempt[]): void {
    for (const f of finished) this.durations.set(f.subscriptionId, 0.8 * (this.durations.get(f.subscriptionId) ?? f.durationMs) + 0.2 * f.durationMs);
  }

  /** Tells the group commit whether request writes should wait for the loop (see `BEHIND_MS`), from the claims of one tick. */
  claimed(claims: readonly LeasedDelivery[], now: number): void {
    let lateness = 0;
    for (const c of claims) {
      if (c.attempts !== 0 || (this.durations.get(c.subscriptionId) ?? 0) >= FAST_SUBSCRIBER_MS) continue;
      lateness = Math.max(lateness, now - c.createdAt);
    }
    if (lateness > BEHIND_MS) this.writes.holdWrites(true);
    else if (lateness < CAUGHT_UP_MS) this.writes.holdWrites(false);
  }

  /** The loop stops: request writes no longer wait for it. */
  release(): void {
    this.writes.holdWrites(false);
  }
}
