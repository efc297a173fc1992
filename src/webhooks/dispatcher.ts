import type { AppContext } from "../context";
import { outageLog } from "../db/availability";
import { isLockBusy } from "../db/lock-wait";
import { DeliveryMetrics } from "./delivery-metrics";
import { DeliveryLedger, type FinishedAttempt, type LeasedDelivery, type SubscriptionTarget, type TickResult } from "./ledger";
import { DeliveryPacer, perSubscriptionCap } from "./pacing";
import { startRetentionPurge } from "./retention";
import { DeliverySender, type AttemptOutcome } from "./sender";
import { onEventsCommitted } from "./wake";
import { listenForEvents } from "../db/event-signal";

/**
 * The in-process delivery loop, and only its scheduling: when to tick, what to claim, which claim
 * goes out next. A delivery's path: `publish` wakes the loop → a tick claims it (ledger.ts) → it
 * waits in its subscription's `ready` queue until its event is on disk and a slot is free → the
 * sender POSTs it (sender.ts) → the next tick records the outcome (ledger.ts, retry.ts).
 * Beside the loop: pacing.ts (caps, holding request writes), retention.ts (purge), delivery-metrics.ts.
 *
 * One tick is one short write transaction (`DeliveryLedger.tick`) that records the attempts that
 * finished since the last tick and claims due deliveries up to the free concurrency, subscription
 * by subscription, so a slow endpoint only ever holds its own per-subscription slots. A claim is a
 * lease: `locked_until` moves to now + 2 × timeout + margin, and a leased row is not due before it
 * passes, so after a kill -9 the delivery simply becomes due again then (at-least-once, same webhook-id).
 * Ticks run on publish (woken after commit: by `publish` in this process, by a NOTIFY from
 * another node on PostgreSQL), when an attempt finishes, and on a poll timer.
 * Ticks commit without waiting for the disk, like every write of the server: the process's group
 * commit (src/db/group-commit.ts) syncs the WAL off the main thread, one sync for many ticks and
 * requests. An outcome counts as recorded only once a sync covers it, and a claim is sent only
 * once the events it carries are on disk (an event never goes out for a change a power loss could
 * still take back); the loop does not stand still while the disk works.
 * Claims wait in per-subscription `ready` queues (up to twice the caps) so a finished attempt starts
 * the next one at once; sent-but-unrecorded attempts never exceed 2 × concurrency, which bounds
 * the duplicates a crash can cause.
 */

/** Margin on top of the HTTP timeout for DNS, reading the capped body and recording the outcome. */
const LEASE_MARGIN_MS = 5_000;

/** How long a loop that could not LISTEN waits before trying again (it polls meanwhile). */
const LISTEN_RETRY_MS = 5_000;

export function startDeliveryLoop(ctx: AppContext): { stop(): Promise<void> } {
  const loop = new DeliveryLoop(ctx);
  loop.start();
  return { stop: () => loop.stop() };
}

class DeliveryLoop {
  private readonly cfg;
  private stopping = false;
  private tickQueued = false;
  /** The tick running now (one at a time: a tick's transaction awaits, and attempts finish meanwhile). */
  private ticking: Promise<void> | null = null;
  /** A tick was requested while one ran: it runs again right after. */
  private tickAgain = false;
  /** Outcomes the running tick records: sent but not yet recorded, like `finished` (see `pump`). */
  private recording = 0;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private retention: { stop(): void } | null = null;
  private unsubscribe: (() => void) | null = null;
  private stopListening: (() => Promise<void>) | null = null;
  private listenRetry: ReturnType<typeof setTimeout> | null = null;
  /** Attempts that finished and wait for the next tick. */
  private finished: FinishedAttempt[] = [];
  /** Leases to give back in the next tick (shutdown, or a subscription disabled meanwhile). */
  private released: number[] = [];
  /** Leased claims not yet started, per subscription (see `DeliveryLedger.claim`). */
  private readonly ready = new Map<number, LeasedDelivery[]>();
  /** Enabled subscriptions as of the last claiming tick: every queued claim's subscription is here. */
  private subscriptions = new Map<number, SubscriptionTarget>();
  private readyTotal = 0;
  /** Outcomes committed but not yet on disk (see `pump`). */
  private unsynced = 0;
  /** Claimed ticks whose events are not on disk yet: their claims wait here, counted in `readyTotal`. */
  private readonly awaitingSync = new Set<LeasedDelivery[]>();
  /**
   * The group commit's mark just after the latest commit that published events (the wake runs
   * right after COMMIT): a claim is sent only once everything up to it is on disk. Events are only
   * written by `publish`, which wakes the loop; events from before the start are on disk already
   * (`useGroupCommit` syncs once).
   */
  private eventsMark = 0;
  /** Set once a WAL sync failed: nothing more is sent (the process is stopping; see `serve`). */
  private syncFailed = false;
  private readonly perSubscriptionCap: number;
  private readonly ledger: DeliveryLedger;
  private readonly sender: DeliverySender;
  private readonly pacer: DeliveryPacer;
  private readonly metrics: DeliveryMetrics;
  /** A database away (failover, restart) is one warn and one info, not an error every poll. */
  private readonly tickFailures;

  constructor(private readonly ctx: AppContext) {
    this.cfg = ctx.config;
    this.perSubscriptionCap = perSubscriptionCap(ctx.config);
    this.ledger = new DeliveryLedger(ctx.db, {
      retrySchedule: ctx.config.webhookRetrySchedule,
      // A claim may wait in `ready` behind one attempt of its subscription, then run its own: 2 × timeout.
      leaseMs: 2 * ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS,
      perSubscriptionConcurrency: this.perSubscriptionCap,
      secrets: ctx.secrets,
    });
    this.sender = new DeliverySender(
      { timeoutMs: ctx.config.webhookTimeoutMs, allowPrivateTargets: ctx.config.webhookAllowPrivateTargets, userAgent: `Gatehouse-Webhooks/${ctx.version}` },
      (outcome) => this.onAttemptDone(outcome),
    );
    this.pacer = new DeliveryPacer(ctx.groupCommit);
    this.metrics = new DeliveryMetrics(ctx, () => this.sender.inFlight);
    this.tickFailures = outageLog(ctx.log, "webhook delivery tick");
  }

  start(): void {
    this.eventsMark = this.ctx.groupCommit.mark();
    const woken = () => {
      this.eventsMark = this.ctx.groupCommit.mark();
      this.requestTick();
    };
    this.unsubscribe = onEventsCommitted(woken);
    this.listenToOtherNodes(woken);
    this.pollTimer = setInterval(() => this.requestTick(), this.cfg.webhookPollIntervalMs);
    this.retention = startRetentionPurge(this.ctx);
    this.sender.start();
    this.requestTick();
  }

  /**
   * On PostgreSQL, events other nodes commit wake this loop too (src/db/event-signal.ts; the poll
   * stays the fallback). A LISTEN that fails at start (the server briefly away) is tried again
   * every few seconds; once listening, the driver re-listens after a dropped connection itself.
   */
  private listenToOtherNodes(woken: () => void): void {
    listenForEvents(this.ctx.db, woken).then(
      (stop) => {
        if (this.stopping) void stop(); // settles on its own: the loop stopped while LISTEN was under way
        else this.stopListening = stop;
      },
      (e) => {
        if (this.stopping) return;
        this.ctx.log.warn("webhook delivery loop: cannot LISTEN for other nodes' events; polling meanwhile", { error: String((e as Error)?.message ?? e) });
        this.listenRetry = setTimeout(() => this.listenToOtherNodes(woken), LISTEN_RETRY_MS);
      },
    );
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.pacer.release();
    this.unsubscribe?.();
    if (this.listenRetry) clearTimeout(this.listenRetry);
    await this.stopListening?.();
    if (this.pollTimer) clearInterval(this.pollTimer);
    this.retention?.stop();
    // Let in-flight attempts finish for a moment, then abort the rest; aborted ones give their lease back.
    await this.sender.drain(Math.min(Math.floor(this.cfg.webhookTimeoutMs / 2), 5_000));
    // Claims waiting for their events' sync join the ready queues (and are given back below).
    await this.ctx.groupCommit.durable().catch(() => {});
    for (const claims of this.awaitingSync) this.enqueue(claims);
    this.awaitingSync.clear();
    while (this.ticking) await this.ticking;
    await this.runTick();
    await this.ctx.groupCommit.durable().catch(() => {}); // the last outcomes, on disk before the database closes
  }

  private requestTick(): void {
    if (this.tickQueued) return;
    this.tickQueued = true;
    // setImmediate: every attempt that finished in this turn of the event loop joins one commit.
    setImmediate(() => {
      this.tickQueued = false;
      if (this.ticking) this.tickAgain = true;
      else void this.runTick(); // settles on its own: it logs its errors
    });
  }

  /** Runs one tick, then another if one was requested meanwhile. */
  private runTick(): Promise<void> {
    const running = (async () => {
      try {
        await this.tick();
      } catch (e) {
        this.tickFailures.failed(e);
      } finally {
        this.ticking = null;
      }
      if (this.tickAgain) {
        this.tickAgain = false;
        this.requestTick();
      }
    })();
    this.ticking = running;
    return running;
  }

  private async tick(): Promise<void> {
    const { finished, released } = this;
    if (this.stopping && finished.length === 0 && released.length === 0 && this.readyTotal === 0) return;
    if (this.stopping) {
      // Leased but never sent → due again now (no attempt counted).
      for (const queue of this.ready.values()) for (const c of queue) released.push(c.id);
      this.ready.clear();
      this.readyTotal = 0;
    }
    const claim = this.stopping ? null : this.claimRequest();
    if (finished.length === 0 && released.length === 0 && !claim) return;
    let result: TickResult;
    const eventsMark = this.eventsMark;
    // Attempts that finish while the tick's transaction runs queue up for the next tick.
    this.finished = [];
    this.released = [];
    this.recording = finished.length;
    try {
      // Never waits for the write lock (another process may hold it for seconds): on busy the
      // tick fails at once, and the outcomes stay queued for the next poll.
      result = await this.ledger.tick({ now: Date.now(), finished, released, claim });
    } catch (e) {
      // Busy or I/O error: nothing was committed; outcomes go back in front of the queue and the poll retries.
      this.finished = finished.concat(this.finished);
      this.released = released.concat(this.released);
      if (isLockBusy(e)) this.ctx.log.debug("webhook delivery tick deferred: the database is locked by another connection");
      else this.tickFailures.failed(e);
      return;
    } finally {
      this.recording = 0;
    }
    this.tickFailures.succeeded();
    if (finished.length > 0) this.awaitSync(finished.length);
    this.metrics.committed(result, finished); // only after the commit
    for (const d of result.disabled) {
      this.ctx.log.warn("webhook subscription disabled", { subscriptionId: d.subscriptionId, reason: d.reason });
      this.dropQueued(d.subscriptionId);
    }
    if (result.subscriptions) {
      this.subscriptions = new Map(result.subscriptions.map((s) => [s.id, s]));
      // Claims queued for a subscription that was disabled (410, 5 days failing, admin) or deleted
      // meanwhile are not sent: their leases are given back at the next tick.
      for (const subId of this.ready.keys()) if (!this.subscriptions.has(subId)) this.dropQueued(subId);
    }
    this.pacer.observe(finished);
    if (claim) this.pacer.claimed(result.claims, Date.now());
    this.readyTotal += result.claims.length;
    if (result.claims.length > 0) {
      if (this.ctx.groupCommit.isDurable(eventsMark)) this.enqueue(result.claims);
      else this.enqueueWhenSynced(result.claims, eventsMark);
    }
    if (this.released.length > 0) this.requestTick();
    this.pump();
  }

  /** How much this tick may claim: room under 2 × concurrency, and per subscription what is already held (in flight, queued, awaiting sync). */
  private claimRequest(): { budget: number; held: Record<number, number> } | null {
    const budget = 2 * this.cfg.webhookConcurrency - this.sender.inFlight - this.readyTotal;
    if (budget <= 0) return null;
    const held: Record<number, number> = {};
    for (const [subId, n] of this.sender.inFlightBySubscription()) held[subId] = n;
    for (const [subId, queue] of this.ready) held[subId] = (held[subId] ?? 0) + queue.length;
    for (const claims of this.awaitingSync) for (const c of claims) held[c.subscriptionId] = (held[c.subscriptionId] ?? 0) + 1;
    return { budget, held };
  }

  /** Queues claims for sending (already counted in `readyTotal`); those of subscriptions gone meanwhile are given back. */
  private enqueue(claims: LeasedDelivery[]): void {
    for (const c of claims) {
      if (!this.subscriptions.has(c.subscriptionId)) {
        this.readyTotal--;
        this.released.push(c.id);
        continue;
      }
      let queue = this.ready.get(c.subscriptionId);
      if (!queue) this.ready.set(c.subscriptionId, (queue = []));
      queue.push(c);
    }
    if (this.released.length > 0) this.requestTick();
  }

  private enqueueWhenSynced(claims: LeasedDelivery[], mark: number): void {
    this.awaitingSync.add(claims);
    this.ctx.groupCommit.durable(mark).then(
      () => {
        if (!this.awaitingSync.delete(claims)) return; // shutdown took them
        this.enqueue(claims);
        this.pump();
      },
      (e) => this.onSyncFailed(e),
    );
  }

  /**
   * Counts `n` committed outcomes as unrecorded until the WAL sync covering them returns. Syncs
   * are shared with every other write of the process, so a busy loop does not add syncs of its
   * own: its outcomes ride on the ones requests trigger, and vice versa.
   */
  private awaitSync(n: number): void {
    this.unsynced += n;
    this.ctx.groupCommit.durable().then(
      () => {
        this.unsynced -= n;
        this.pump();
      },
      (e) => this.onSyncFailed(e),
    );
  }

  /**
   * The disk refused a sync: what it covered may be lost on a power loss, so nothing more is sent —
   * the outcomes stay counted as unrecorded, which closes the sending window, and queued claims stay
   * leased (due again after their lease). `serve` stops the process; a restart recovers.
   */
  private onSyncFailed(e: unknown): void {
    if (this.syncFailed) return;
    this.syncFailed = true;
    this.ctx.log.error("webhook delivery stopped: WAL sync failed", { error: String((e as Error)?.message ?? e) });
  }

  private dropQueued(subId: number): void {
    const queue = this.ready.get(subId);
    if (!queue) return;
    for (const c of queue) this.released.push(c.id);
    this.readyTotal -= queue.length;
    this.ready.delete(subId);
  }

  /** Starts ready attempts, round-robin over subscriptions, within the global and per-subscription caps. */
  private pump(): void {
    if (this.stopping) return;
    const cap = this.perSubscriptionCap;
    const concurrency = this.cfg.webhookConcurrency;
    const sender = this.sender;
    let progressed = true;
    // Sent-but-unrecorded attempts (open + finished awaiting the commit) never exceed 2 × concurrency:
    // that is the most a crash can duplicate, even if ticks keep failing.
    // Outcomes committed but not yet flushed survive a kill -9 (the OS has them) but not a power
    // loss, so they have a bound of their own: at most 2 × concurrency wait for the disk. (Counting
    // them in the bound above instead was measured: it throttled sending by ~10 points of
    // throughput, as a flush takes 1–2 ms under load.) After a power loss, duplicates are therefore
    // bounded by 4 × concurrency; after a kill -9 by 2 × concurrency, as before.
    const unrecordedLimit = this.syncFailed || this.unsynced >= 2 * concurrency ? 0 : 2 * concurrency;
    const unrecorded = () => sender.inFlight + this.finished.length + this.recording;
    while (progressed && this.readyTotal > 0 && sender.inFlight < concurrency && unrecorded() < unrecordedLimit) {
      progressed = false;
      for (const [subId, queue] of this.ready) {
        if (sender.inFlight >= concurrency || unrecorded() >= unrecordedLimit) break;
        if (sender.inFlightFor(subId) >= cap) continue;
        const c = queue.shift()!;
        if (queue.length === 0) this.ready.delete(subId);
        this.readyTotal--;
        sender.send(c, this.subscriptions.get(subId)!);
        progressed = true;
      }
    }
  }

  private onAttemptDone(outcome: AttemptOutcome): void {
    if (outcome.kind === "attempted") this.finished.push(outcome.attempt);
    else this.released.push(outcome.claim.id);
    this.pump();
    this.requestTick();
  }
}
