import type { AppContext } from "../context";
import { preparedQuery } from "../db/statement";
import { DEFAULT_BUCKETS, metricsFor } from "../lib/metrics";
import type { FinishedAttempt, TickResult } from "./ledger";

/** The delivery loop's Prometheus series, counted once per committed tick. */

// The literal 'pending' lets the count use the partial index of pending deliveries.
const pendingCount = preparedQuery<{ n: number }, []>("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'");

export async function deliveryBacklog(ctx: Pick<AppContext, "db">): Promise<number> {
  return (await pendingCount.get(ctx.db))!.n;
}

export class DeliveryMetrics {
  private readonly attempts;
  private readonly duration;
  private readonly disabled;

  /** `inFlight` is read at each scrape. */
  constructor(ctx: AppContext, inFlight: () => number) {
    const registry = metricsFor(ctx);
    this.attempts = registry.counter("gatehouse_webhook_attempts_total", "Webhook delivery attempts by outcome (delivered, retry, failed = dead-lettered, gone = 410).", ["outcome"]);
    this.duration = registry.histogram("gatehouse_webhook_attempt_duration_seconds", "Duration of webhook HTTP attempts.", [], DEFAULT_BUCKETS);
    this.disabled = registry.counter("gatehouse_webhook_subscriptions_disabled_total", "Subscriptions disabled by the engine (410 Gone or 5 days failing).");
    const inFlightGauge = registry.gauge("gatehouse_webhook_in_flight", "Webhook HTTP requests in flight.");
    const backlog = registry.gauge("gatehouse_webhook_backlog", "Pending webhook deliveries (due, scheduled for retry or in flight).");
    registry.onCollect(async () => {
      inFlightGauge.set(undefined, inFlight());
      try {
        backlog.set(undefined, await deliveryBacklog(ctx));
      } catch {
        /* database closed: keep the last value */
      }
    });
  }

  /** A committed tick: the attempts it recorded (`finished`) and what it decided. */
  committed(result: TickResult, finished: readonly FinishedAttempt[]): void {
    for (const [outcome, n] of Object.entries(result.verdicts)) this.attempts.inc({ outcome }, n!);
    for (const f of finished) this.duration.observe(undefined, f.durationMs / 1000);
    for (let i = 0; i < result.disabled.length; i++) this.disabled.inc();
  }
}
