import type { Db } from "../db/connection";
import { deliveryQueue, type AttemptRecord, type DeliveryQueue } from "../db/delivery-queue";
import { decide, shouldDisable, type AttemptResult, type Verdict } from "./retry";
import type { DeliveryStatus } from "./tables";
import type { SecretBox } from "../lib/secret-box";

/**
 * The delivery loop's database side: the state machine over `webhook_deliveries`
 * (pending → delivered | failed), one short write transaction ("tick") at a time. A
 * tick (1) records the attempts that finished since the last tick, (2) gives back leases of claims
 * that will not be sent, and (3) claims due deliveries up to the budget the HTTP side has room for,
 * subscription by subscription.
 *
 * The loop (`dispatcher.ts`: queued claims) and the sender (`sender.ts`: attempts in flight) own
 * what is in memory; this class owns the rows' state machine, their SQL is the delivery queue's
 * (src/db/delivery-queue.ts). Everything in and out of a tick is plain data, so the state machine is
 * tested on its own (test/webhooks/ledger.test.ts).
 */

/** Smallest per-subscription claim in a tick's fair-share pass (see `claim`). */
const MIN_CLAIM = 8;

/** A subscription as the HTTP side needs it: where to send, and the secrets to sign with. */
export type SubscriptionTarget = { id: number; url: string; secrets: string[] };

/**
 * A leased delivery, ready to send. `attempts` counts the attempts made before this one in the
 * current cycle; `lastAttemptId` is the delivery's latest logged attempt (the next one links to it).
 */
export type LeasedDelivery = {
  id: number; subscriptionId: number; attempts: number; lastAttemptId: number | null; uid: string; name: string; payload: string; createdAt: number;
  workspaceId: number | null; projectCode: string | null;
};

/** One HTTP attempt that finished, to record in the log and to decide the delivery's next state. */
export type FinishedAttempt = {
  deliveryId: number;
  subscriptionId: number;
  /** `LeasedDelivery.attempts` and `.lastAttemptId` of the claim this attempt sent. */
  attemptsBefore: number;
  previousAttemptId: number | null;
  startedAt: number;
  durationMs: number;
  url: string;
  /**
   * With the URL, the event and the start time these rebuild the request headers (`deliveryHeaders`).
   * Null when nothing was sent (the SSRF guard refused the target, or its name did not resolve).
   */
  userAgent: string | null;
  signature: string | null;
  result: AttemptResult;
  responseBody: string | null;
  /** JSON object of the response headers (`responseHeadersJson`); null without a response. */
  responseHeaders: string | null;
};

export type TickRequest = {
  now: number;
  finished: FinishedAttempt[];
  /** Leases to give back without counting an attempt (shutdown, or a subscription disabled meanwhile). */
  released: number[];
  /** How much to claim; null claims nothing (shutdown). */
  claim: {
    /** Deliveries to lease at most in this tick. */
    budget: number;
    /** Per subscription id: claims the HTTP side already holds (in flight or queued). */
    held: Record<number, number>;
  } | null;
};

export type TickResult = {
  claims: LeasedDelivery[];
  /** The enabled subscriptions, when the tick claimed (their queued claims are sent; others' are given back). */
  subscriptions: SubscriptionTarget[] | null;
  /** Attempts recorded, by verdict (for the metrics). */
  verdicts: Partial<Record<Verdict["next"], number>>;
  /** Subscriptions this tick disabled (410 Gone, 5 days failing), for the log and metrics. */
  disabled: { subscriptionId: number; reason: string }[];
};

export type LedgerOptions = {
  retrySchedule: readonly number[];
  /** How long a claim stays leased (see dispatcher.ts). */
  leaseMs: number;
  perSubscriptionConcurrency: number;
  /** Opens the secrets as stored (sealed at rest, src/lib/secret-box.ts) for signing. */
  secrets: Pick<SecretBox, "open">;
};

export class DeliveryLedger {
  private rotate = 0;
  private readonly q: DeliveryQueue;

  constructor(
    db: Db,
    private readonly options: LedgerOptions,
  ) {
    this.q = deliveryQueue(db);
  }

  /**
   * Runs one tick in its own write transaction, which never waits for another process's write
   * lock. Rejects (nothing committed) on busy or I/O errors. The commit is durable once the
   * process's group commit says so (dispatcher.ts waits for it). The loop runs one tick at a time.
   */
  tick(req: TickRequest): Promise<TickResult> {
    return this.q.transaction(() => this.body(req));
  }

  private async body(req: TickRequest): Promise<TickResult> {
    const { now } = req;
    // Built inside the body: a rolled-back attempt must not leave half a result behind.
    const result: TickResult = { claims: [], subscriptions: null, verdicts: {}, disabled: [] };
    // Sorted by subscription (stable: each subscription's outcomes stay in the order they finished).
    const finished = [...req.finished].sort((a, b) => a.subscriptionId - b.subscriptionId);
    // None of these waits for another's answer, so they go out together: on PostgreSQL the driver
    // pipelines them on the transaction's connection (one round trip, not one each), in this order.
    const [enabled] = await Promise.all([req.claim ? this.q.enabledSubscriptions() : null, this.record(finished, now, result), this.q.release(req.released, now)]);
    if (req.claim) {
      // Read beside the recording: a subscription this tick disabled is still in it.
      const disabled = new Set(result.disabled.map((d) => d.subscriptionId));
      const subs = enabled!.filter((s) => !disabled.has(s.id)).map(
        (s): SubscriptionTarget => ({
          id: s.id,
          url: s.url,
          secrets: (s.previous_secret && (s.previous_secret_expires_at ?? 0) > now ? [s.secret, s.previous_secret] : [s.secret]).map((stored) => this.options.secrets.open(stored)),
        }),
      );
      result.subscriptions = subs;
      result.claims = await this.claim(subs, req.claim.budget, req.claim.held, now);
    }
    return result;
  }

  /**
   * Leases due deliveries, subscription by subscription (rotating who goes first). The HTTP side
   * keeps up to twice the concurrency (and twice the per-subscription cap) leased, so when an
   * attempt finishes the next one starts at once from memory instead of waiting for the next
   * commit. Claims that are leased but not yet sent cannot become duplicates after a crash; they
   * are simply due again when the lease passes.
   */
  private async claim(subs: SubscriptionTarget[], budget: number, held: Record<number, number>, now: number): Promise<LeasedDelivery[]> {
    const claims: LeasedDelivery[] = [];
    if (subs.length === 0 || budget <= 0) return claims;
    const cap = this.options.perSubscriptionConcurrency;
    const start = this.rotate++ % subs.length;
    const leaseUntil = now + this.options.leaseMs;
    const claimedBySub = new Map<number, number>();
    const exhausted = new Set<number>();
    // Fair share first (so with many subscriptions and few slots everyone gets some), then fill.
    // A share is at least MIN_CLAIM rows and at least one per-subscription cap: each due query has
    // a fixed cost whatever it returns, so a tick claims a few good chunks (enough to fill a
    // subscription's slots) instead of a sliver for everyone; the rotating start gives the others
    // their turn on the next ticks. (Measured with 10 subscriptions and a cap of 32: shares of 32
    // instead of 8 used ~8% less main-thread CPU per delivery, in 6 of 8 alternating runs.)
    const share = Math.max(MIN_CLAIM, cap, Math.ceil(budget / subs.length));
    for (const pass of [share, Infinity]) {
      for (let i = 0; i < subs.length && budget > 0; i++) {
        const sub = subs[(start + i) % subs.length]!;
        if (exhausted.has(sub.id)) continue;
        const taken = (held[sub.id] ?? 0) + (claimedBySub.get(sub.id) ?? 0);
        const room = Math.min(budget, 2 * cap - taken, pass);
        if (room <= 0) continue;
        const rows = await this.q.claimDue(sub.id, now, room, leaseUntil);
        if (rows.length < room) exhausted.add(sub.id);
        for (const row of rows) {
          claims.push({
            id: row.id,
            subscriptionId: sub.id,
            attempts: row.attempts,
            lastAttemptId: row.last_attempt_id,
            uid: row.uid,
            name: row.name,
            payload: row.payload,
            createdAt: row.created_at,
            workspaceId: row.workspace_id,
            projectCode: row.project_code,
          });
        }
        claimedBySub.set(sub.id, (claimedBySub.get(sub.id) ?? 0) + rows.length);
        budget -= rows.length;
      }
    }
    return claims;
  }

  /**
   * Records the attempts, then each subscription's state. The attempts go in one step (on
   * PostgreSQL one statement for the batch: delivery-queue.ts `recordAttempts`); each subscription's
   * state follows its outcomes in the order they finished: successes in a row stamp it once; a
   * failure after a success clears `failing_since` first (then sets it again); a failure after a
   * failure leaves it as the first one set it (one statement for a run of failures, not one each).
   * The subscriptions' first statements are sent in id order — every tick (on every node) and every
   * producer (`publish`) takes their rows in that order, so on PostgreSQL two nodes' ticks never
   * deadlock on them — and each one's later statements touch only its own row, so the
   * subscriptions are not waited for one by one.
   */
  private async record(finished: readonly FinishedAttempt[], now: number, result: TickResult): Promise<void> {
    if (finished.length === 0) return;
    const verdicts = finished.map((f) => decide(f.result, f.attemptsBefore + 1, this.options.retrySchedule, now));
    for (const v of verdicts) result.verdicts[v.next] = (result.verdicts[v.next] ?? 0) + 1;
    const steps: Promise<void>[] = [this.q.recordAttempts(finished.map((f, i) => attemptRecord(f, verdicts[i]!, now)), now)];
    for (let i = 0; i < finished.length; ) {
      const from = i;
      const subId = finished[i]!.subscriptionId;
      while (i < finished.length && finished[i]!.subscriptionId === subId) i++;
      steps.push(this.recordSubscription(subId, verdicts.slice(from, i), now, result.disabled));
    }
    await Promise.all(steps);
  }

  /** One subscription's state after `verdicts`, its outcomes in the order they finished (`record`). */
  private async recordSubscription(subId: number, verdicts: readonly Verdict[], now: number, disabled: TickResult["disabled"]): Promise<void> {
    let succeeded = false;
    let failing = false;
    for (const { next } of verdicts) {
      if (next === "delivered") {
        succeeded = true;
        failing = false;
        continue;
      }
      if (succeeded) await this.q.markSubscriptionSucceeded(subId, now); // a success before this failure clears failing_since first
      succeeded = false;
      if (next === "gone") {
        await this.disable(subId, "The endpoint answered 410 Gone", now, disabled);
        continue;
      }
      if (failing) continue; // failing_since as the failure before this one left it: the same answer
      failing = true;
      const failingSince = await this.q.markSubscriptionFailing(subId, now);
      if (failingSince !== null && shouldDisable(failingSince, now))
        await this.disable(subId, `No successful delivery since ${new Date(failingSince).toISOString()} (5 days of failures)`, now, disabled);
    }
    if (succeeded) await this.q.markSubscriptionSucceeded(subId, now);
  }

  private async disable(subId: number, reason: string, now: number, disabled: TickResult["disabled"]): Promise<void> {
    if (await this.q.disableSubscription(subId, reason, now)) disabled.push({ subscriptionId: subId, reason });
  }
}

/** What the log keeps of attempt `f` and where `verdict` leaves its delivery. */
function attemptRecord(f: FinishedAttempt, verdict: Verdict, now: number): AttemptRecord {
  const r = f.result;
  const status = r.kind === "response" ? r.status : null;
  const error = r.kind === "error" ? r.error : status !== null && (status < 200 || status >= 300) ? `HTTP ${status}` : null;
  const [rowStatus, nextAttemptAt, rowError, finishedAt]: [DeliveryStatus, number, string | null, number | null] =
    verdict.next === "delivered" ? ["delivered", now, null, now]
    : verdict.next === "gone" ? ["failed", now, "endpoint answered 410 Gone", now]
    : verdict.next === "retry" ? ["pending", verdict.at, error, null]
    : ["failed", now, error, now];
  return {
    log: {
      deliveryId: f.deliveryId,
      previousAttemptId: f.previousAttemptId,
      startedAt: f.startedAt,
      durationMs: f.durationMs,
      url: f.url,
      userAgent: f.userAgent,
      signature: f.signature,
      statusCode: status,
      error: r.kind === "error" ? loggable(r.error) : null,
      responseBody: f.responseBody === null ? null : loggable(f.responseBody),
      responseHeaders: f.responseHeaders,
      cycleAttempt: f.attemptsBefore + 1,
    },
    outcome: { status: rowStatus, nextAttemptAt, statusCode: status, error: rowError === null ? null : loggable(rowError), finishedAt },
  };
}

/**
 * Text an endpoint chose, as the log can keep it: NUL characters become U+FFFD. PostgreSQL's text
 * cannot hold NUL, and a statement carrying one fails — the whole tick with it, every tick after
 * it, since the outcome stays queued: one odd answer would stop delivery. Both engines keep the same.
 */
function loggable(text: string): string {
  return text.includes("\u0000") ? text.replaceAll("\u0000", "\uFFFD") : text;
}
