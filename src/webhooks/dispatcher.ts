import type { AppContext } from "../context";
import { isLockBusy, withoutLockWait } from "../db/lock-wait";
import { DEFAULT_BUCKETS, metricsFor } from "../ops/metrics";
import { DeliveryLedger, type FinishedAttempt, type LeasedDelivery, type SubscriptionTarget, type TickResult } from "./ledger";
import type { AttemptResult } from "./retry";
import { deliveryHeaders, envelopeBody, signatureHeader } from "./signer";
import { hasIpLiteralHost, resolveTarget, type ResolvedTarget } from "./ssrf";
import { deliveryId } from "./tables";
import { onEventsCommitted } from "./wake";

/**
 * The in-process delivery loop: a small state machine over `webhook_deliveries`
 * (pending → delivered | failed), driven by short `BEGIN IMMEDIATE` transactions and HTTP calls
 * made outside any transaction.
 *
 * One "tick" is one write transaction (`DeliveryLedger`, ledger.ts) that (1) records the outcomes
 * of attempts that finished since the last tick and (2) claims due deliveries up to the free
 * concurrency, subscription by subscription, so a slow endpoint only ever holds its own
 * per-subscription slots. This file holds what lives in memory: queues, caps, HTTP. A claim is a
 * lease: `locked_until` moves to now + 2 × timeout + margin, and a leased row is not due before it
 * passes, so after a kill -9 the delivery simply becomes due again then (at-least-once, same webhook-id).
 * Ticks run on publish (woken after commit), when an attempt finishes, and on a poll timer.
 * Ticks commit without waiting for the disk, like every write of the server: the process's group
 * commit (src/db/group-commit.ts) syncs the WAL off the main thread, one sync for many ticks and
 * requests. An outcome counts as recorded only once a sync covers it, and a claim is sent only
 * once the events it carries are on disk (an event never goes out for a change a power loss could
 * still take back); the loop does not stand still while the disk works.
 * Claims wait in per-subscription `ready` queues (up to twice the caps) so a finished attempt starts
 * the next one at once; sent-but-unrecorded attempts never exceed 2 × concurrency, which bounds
 * the duplicates a crash can cause.
 */

const RESPONSE_BODY_LIMIT = 16 * 1024;
const RESPONSE_HEADERS_LIMIT = 8 * 1024;
/** Margin on top of the HTTP timeout for DNS, reading the capped body and recording the outcome. */
const LEASE_MARGIN_MS = 5_000;
/**
 * A first attempt claimed this late (ms after its event) for a subscription that answers within
 * `FAST_SUBSCRIBER_MS` means the loop is short of the main thread: request writes are held
 * (GroupCommit.holdWrites) until claims are fresh again (`CAUGHT_UP_MS`). Slow subscribers are
 * left out: their backlog is theirs, and holding writes would not shorten it.
 */
const BEHIND_MS = 100;
const CAUGHT_UP_MS = 25;
const FAST_SUBSCRIBER_MS = 50;
/** Retention purge cadence; rows go in batches so no transaction is long. */
const PURGE_EVERY_MS = 10 * 60 * 1000;
const PURGE_BATCH = 1000;
/** Delivery ids walked per purge transaction (see `purgeExpired`). */
const PURGE_SPAN = 2000;

export function deliveryBacklog(ctx: Pick<AppContext, "sqlite">): number {
  return (ctx.sqlite.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get() as { n: number }).n;
}

type Outcome =
  | { kind: "attempted"; attempt: FinishedAttempt }
  /** Aborted by shutdown: give the lease back without counting an attempt. */
  | { kind: "released"; claim: LeasedDelivery };

export function startDeliveryLoop(ctx: AppContext): { stop(): Promise<void> } {
  const loop = new DeliveryLoop(ctx);
  loop.start();
  return { stop: () => loop.stop() };
}

class DeliveryLoop {
  private readonly cfg;
  private readonly userAgent: string;
  private stopping = false;
  private tickQueued = false;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private purgeTimer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private inflight = 0;
  private readonly inflightBySub = new Map<number, number>();
  /**
   * Attempts in flight, in the order they started. Every attempt has the same timeout, so this is
   * also deadline order: one sweeper timer aborts the expired ones from the front, instead of a
   * timer armed and cleared per request.
   */
  private readonly running = new Map<number, { promise: Promise<void>; abort: AbortController; deadline: number }>();
  private timeoutSweeper: ReturnType<typeof setInterval> | null = null;
  /** Attempts that finished and wait for the next tick. */
  private finished: FinishedAttempt[] = [];
  /** Leases to give back in the next tick (shutdown, or a subscription disabled meanwhile). */
  private released: number[] = [];
  /** Leased claims not yet started, per subscription (see `DeliveryLedger.claim`). */
  private readonly ready = new Map<number, LeasedDelivery[]>();
  /** Enabled subscriptions as of the last claiming tick: every queued claim's subscription is here. */
  private subscriptions = new Map<number, SubscriptionTarget>();
  private readonly ledger: DeliveryLedger;
  private readonly literalTargets = new Map<string, ResolvedTarget>();
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
  /** Per subscription: attempt duration, smoothed (ms), to tell slow subscribers from a busy thread. */
  private readonly pace = new Map<number, number>();
  /** Set once a WAL sync failed: nothing more is sent (the process is stopping; see `serve`). */
  private syncFailed = false;
  private purging = false;
  private readonly metrics;

  constructor(private readonly ctx: AppContext) {
    this.cfg = ctx.config;
    this.ledger = new DeliveryLedger(ctx.sqlite, {
      retrySchedule: ctx.config.webhookRetrySchedule,
      // A claim may wait in `ready` behind one attempt of its subscription, then run its own: 2 × timeout.
      leaseMs: 2 * ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS,
      perSubscriptionConcurrency: perSubscriptionCap(ctx.config),
    });
    this.userAgent = `Gatehouse-Webhooks/${ctx.version}`;
    const registry = metricsFor(ctx);
    this.metrics = {
      attempts: registry.counter("gatehouse_webhook_attempts_total", "Webhook delivery attempts by outcome (delivered, retry, failed = dead-lettered, gone = 410).", ["outcome"]),
      duration: registry.histogram("gatehouse_webhook_attempt_duration_seconds", "Duration of webhook HTTP attempts.", [], DEFAULT_BUCKETS),
      disabled: registry.counter("gatehouse_webhook_subscriptions_disabled_total", "Subscriptions disabled by the engine (410 Gone or 5 days failing)."),
      inFlight: registry.gauge("gatehouse_webhook_in_flight", "Webhook HTTP requests in flight."),
      backlog: registry.gauge("gatehouse_webhook_backlog", "Pending webhook deliveries (due, scheduled for retry or in flight)."),
    };
    registry.onCollect(() => {
      this.metrics.inFlight.set(undefined, this.inflight);
      try {
        this.metrics.backlog.set(undefined, deliveryBacklog(ctx));
      } catch {
        /* database closed: keep the last value */
      }
    });
  }

  start(): void {
    this.eventsMark = this.ctx.groupCommit.mark();
    this.unsubscribe = onEventsCommitted(() => {
      this.eventsMark = this.ctx.groupCommit.mark();
      this.requestTick();
    });
    this.pollTimer = setInterval(() => this.requestTick(), this.cfg.webhookPollIntervalMs);
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    // Checked ten times per timeout (at most once per second): an attempt is cut off between
    // timeout and timeout + 10% (at most + 1 s), and recorded as timed out after the configured time.
    this.timeoutSweeper = setInterval(() => this.abortExpired(), Math.max(10, Math.min(1000, this.cfg.webhookTimeoutMs / 10)));
    this.requestTick();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    this.ctx.groupCommit.holdWrites(false);
    this.unsubscribe?.();
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    // Let in-flight attempts finish for a moment, then abort the rest; aborted ones give their lease back.
    const grace = Math.min(Math.floor(this.cfg.webhookTimeoutMs / 2), 5_000);
    const all = () => Promise.allSettled([...this.running.values()].map((r) => r.promise));
    let graceTimer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([all(), new Promise((r) => (graceTimer = setTimeout(r, grace)))]);
    clearTimeout(graceTimer);
    for (const r of this.running.values()) r.abort.abort(new ShutdownAbort());
    await all();
    if (this.timeoutSweeper) clearInterval(this.timeoutSweeper);
    // Claims waiting for their events' sync join the ready queues (and are given back below).
    await this.ctx.groupCommit.durable().catch(() => {});
    for (const claims of this.awaitingSync) this.enqueue(claims);
    this.awaitingSync.clear();
    this.tick();
    await this.ctx.groupCommit.durable().catch(() => {}); // the last outcomes, on disk before the database closes
  }

  private requestTick(): void {
    if (this.tickQueued) return;
    this.tickQueued = true;
    // setImmediate: every attempt that finished in this turn of the event loop joins one commit.
    setImmediate(() => {
      this.tickQueued = false;
      this.tick();
    });
  }

  private tick(): void {
    const { finished, released } = this;
    if (this.stopping && finished.length === 0 && released.length === 0 && this.readyTotal === 0) return;
    if (this.stopping) {
      // Leased but never sent → due again now (no attempt counted).
      for (const queue of this.ready.values()) for (const c of queue) released.push(c.id);
      this.ready.clear();
      this.readyTotal = 0;
    }
    const budget = 2 * this.cfg.webhookConcurrency - this.inflight - this.readyTotal;
    let claim: { budget: number; held: Record<number, number> } | null = null;
    if (!this.stopping && budget > 0) {
      const held: Record<number, number> = {};
      for (const [subId, n] of this.inflightBySub) held[subId] = n;
      for (const [subId, queue] of this.ready) held[subId] = (held[subId] ?? 0) + queue.length;
      for (const claims of this.awaitingSync) for (const c of claims) held[c.subscriptionId] = (held[c.subscriptionId] ?? 0) + 1;
      claim = { budget, held };
    }
    if (finished.length === 0 && released.length === 0 && !claim) return;
    let result: TickResult;
    const eventsMark = this.eventsMark;
    try {
      // Never waits for the write lock (another process may hold it for seconds): on busy the
      // tick fails at once, and the outcomes stay queued for the next poll.
      result = withoutLockWait(this.ctx.sqlite, () => this.ledger.tick({ now: Date.now(), finished, released, claim }));
    } catch (e) {
      // Busy or I/O error: nothing was committed; outcomes stay queued and the poll retries.
      if (isLockBusy(e)) this.ctx.log.debug("webhook delivery tick deferred: the database is locked by another connection");
      else this.ctx.log.error("webhook delivery tick failed", { error: String((e as Error)?.message ?? e) });
      return;
    }
    // The tick is synchronous: nothing was appended meanwhile.
    this.finished = [];
    this.released = [];
    if (finished.length > 0) this.awaitSync(finished.length);
    // Metrics once per tick, and only after the commit.
    for (const [outcome, n] of Object.entries(result.verdicts)) this.metrics.attempts.inc({ outcome }, n!);
    for (const f of finished) this.metrics.duration.observe(undefined, f.durationMs / 1000);
    for (const d of result.disabled) {
      this.metrics.disabled.inc();
      this.ctx.log.warn("webhook subscription disabled", { subscriptionId: d.subscriptionId, reason: d.reason });
      this.dropQueued(d.subscriptionId);
    }
    if (result.subscriptions) {
      this.subscriptions = new Map(result.subscriptions.map((s) => [s.id, s]));
      // Claims queued for a subscription that was disabled (410, 5 days failing, admin) or deleted
      // meanwhile are not sent: their leases are given back at the next tick.
      for (const subId of this.ready.keys()) if (!this.subscriptions.has(subId)) this.dropQueued(subId);
    }
    for (const f of finished) this.pace.set(f.subscriptionId, 0.8 * (this.pace.get(f.subscriptionId) ?? f.durationMs) + 0.2 * f.durationMs);
    if (claim) this.reportPace(result.claims, Date.now());
    this.readyTotal += result.claims.length;
    if (result.claims.length > 0) {
      if (this.ctx.groupCommit.isDurable(eventsMark)) this.enqueue(result.claims);
      else this.enqueueWhenSynced(result.claims, eventsMark);
    }
    if (this.released.length > 0) this.requestTick();
    this.pump();
  }

  /** Tells the group commit whether request writes should wait for this loop (see `BEHIND_MS`). */
  private reportPace(claims: LeasedDelivery[], now: number): void {
    let lateness = 0;
    for (const c of claims) {
      if (c.attempts !== 0 || (this.pace.get(c.subscriptionId) ?? 0) >= FAST_SUBSCRIBER_MS) continue;
      lateness = Math.max(lateness, now - c.createdAt);
    }
    if (lateness > BEHIND_MS) this.ctx.groupCommit.holdWrites(true);
    else if (lateness < CAUGHT_UP_MS) this.ctx.groupCommit.holdWrites(false);
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
    const cap = perSubscriptionCap(this.cfg);
    let progressed = true;
    // Sent-but-unrecorded attempts (open + finished awaiting the commit) never exceed 2 × concurrency:
    // that is the most a crash can duplicate, even if ticks keep failing.
    // Outcomes committed but not yet flushed survive a kill -9 (the OS has them) but not a power
    // loss, so they have a bound of their own: at most 2 × concurrency wait for the disk. (Counting
    // them in the bound above instead was measured: it throttled sending by ~10 points of
    // throughput, as a flush takes 1–2 ms under load.) After a power loss, duplicates are therefore
    // bounded by 4 × concurrency; after a kill -9 by 2 × concurrency, as before.
    const unrecordedLimit = this.syncFailed || this.unsynced >= 2 * this.cfg.webhookConcurrency ? 0 : 2 * this.cfg.webhookConcurrency;
    while (progressed && this.readyTotal > 0 && this.inflight < this.cfg.webhookConcurrency && this.inflight + this.finished.length < unrecordedLimit) {
      progressed = false;
      for (const [subId, queue] of this.ready) {
        if (this.inflight >= this.cfg.webhookConcurrency || this.inflight + this.finished.length >= unrecordedLimit) break;
        if ((this.inflightBySub.get(subId) ?? 0) >= cap) continue;
        const c = queue.shift()!;
        if (queue.length === 0) this.ready.delete(subId);
        this.readyTotal--;
        this.launch(c, this.subscriptions.get(subId)!);
        progressed = true;
      }
    }
  }

  private launch(claim: LeasedDelivery, sub: SubscriptionTarget): void {
    this.inflight++;
    this.inflightBySub.set(sub.id, (this.inflightBySub.get(sub.id) ?? 0) + 1);
    const abort = new AbortController();
    const deadline = performance.now() + this.cfg.webhookTimeoutMs;
    const promise = this.attempt(claim, sub, abort).then((outcome) => {
      this.inflight--;
      const n = (this.inflightBySub.get(sub.id) ?? 1) - 1;
      if (n === 0) this.inflightBySub.delete(sub.id);
      else this.inflightBySub.set(sub.id, n);
      this.running.delete(claim.id);
      if (outcome.kind === "attempted") this.finished.push(outcome.attempt);
      else this.released.push(outcome.claim.id);
      this.pump();
      this.requestTick();
    });
    this.running.set(claim.id, { promise, abort, deadline });
  }

  private abortExpired(): void {
    const now = performance.now();
    for (const r of this.running.values()) {
      if (r.deadline > now) break; // started later, expires later
      if (!r.abort.signal.aborted) r.abort.abort(new TimeoutAbort(this.cfg.webhookTimeoutMs));
    }
  }

  /** One HTTP attempt. Never throws: every failure becomes an outcome. */
  private async attempt(claim: LeasedDelivery, sub: SubscriptionTarget, abort: AbortController): Promise<Outcome> {
    const startedAt = Date.now();
    const ts = Math.floor(startedAt / 1000);
    const body = envelopeBody(claim.name, Math.floor(claim.createdAt / 1000), claim.payload);
    const signature = signatureHeader(sub.secrets, claim.uid, ts, body);
    let result: AttemptResult;
    let responseBody: string | null = null;
    let responseHeaders: string | null = null;
    let sent = false;
    try {
      // A cached (IP-literal) target is used without a round through a promise.
      const target = this.literalTargets.get(sub.url) ?? (await this.target(sub.url, abort.signal));
      // Host names the URL's host: we connect to the address the guard checked.
      const headers = deliveryHeaders({ userAgent: this.userAgent, webhookId: claim.uid, timestampSeconds: ts, signature, host: target.hostHeader, workspaceId: claim.workspaceId, projectCode: claim.projectCode });
      let res: Response | undefined;
      sent = true; // past the guard: the request goes out (or at least its connection is tried)
      for (let i = 0; !res; i++) {
        // Connect to the address the guard checked (no second lookup); on a connection error try the next one.
        try {
          const init: RequestInit & { tls?: { serverName: string } } = { method: "POST", headers, body, redirect: "manual", signal: abort.signal };
          if (target.serverName) init.tls = { serverName: target.serverName };
          res = await fetch(target.candidates[i]!.connectUrl, init);
        } catch (e) {
          if (abort.signal.aborted || i + 1 >= target.candidates.length) throw e;
        }
      }
      // Retry-After matters only for 429 and 503 (see retry.ts): no header lookup for the others.
      const status = res.status;
      result = { kind: "response", status, retryAfter: status === 429 || status === 503 ? res.headers.get("retry-after") : null };
      responseHeaders = responseHeadersJson(res.headers);
      responseBody = await readCapped(res, RESPONSE_BODY_LIMIT);
    } catch (e) {
      const reason = abort.signal.aborted ? abort.signal.reason : e;
      if (reason instanceof ShutdownAbort) return { kind: "released", claim };
      result = { kind: "error", error: describeError(reason) };
    }
    return {
      kind: "attempted",
      attempt: {
        deliveryId: claim.id,
        subscriptionId: sub.id,
        attemptsBefore: claim.attempts,
        previousAttemptId: claim.lastAttemptId,
        startedAt,
        durationMs: Date.now() - startedAt,
        url: sub.url,
        // The log shows what was sent: after a refusal before sending, no headers and no signature.
        userAgent: sent ? this.userAgent : null,
        signature: sent ? signature : null,
        result,
        responseBody,
        responseHeaders,
      },
    };
  }

  /**
   * The checked connect target. A URL whose host is an IP literal always resolves the same way,
   * so its (guarded) result is cached; host names are resolved and checked on every attempt.
   */
  private target(url: string, signal: AbortSignal): Promise<ResolvedTarget> {
    const cached = this.literalTargets.get(url);
    if (cached) return Promise.resolve(cached);
    const resolving = resolveTarget(url, this.cfg.webhookAllowPrivateTargets);
    if (!hasIpLiteralHost(url)) return abortable(resolving, signal);
    return resolving.then((t) => {
      if (this.literalTargets.size > 1000) this.literalTargets.clear();
      this.literalTargets.set(url, t);
      return t;
    });
  }

  /** Retention: delivered deliveries, attempts (by age: the log has no foreign key) and orphaned events go, in small batches. */
  private async purge(): Promise<void> {
    if (this.purging || this.stopping) return;
    this.purging = true;
    try {
      await purgeExpired(this.ctx, Date.now(), () => this.stopping);
    } catch (e) {
      if (isLockBusy(e)) this.ctx.log.debug("webhook retention purge deferred: the database is locked by another connection");
      else this.ctx.log.error("webhook retention purge failed", { error: String((e as Error)?.message ?? e) });
    } finally {
      this.purging = false;
    }
  }
}

/**
 * Deletes delivered deliveries, attempts and orphaned events older than the retention, in short
 * transactions with the event loop let through between them. Returns rows deleted.
 *
 * Deliveries have no index on `finished_at` (finishing one would have to move an entry in it on
 * the delivery path). Within one subscription's id range (tables.ts `deliveryId`; the ids from
 * before migration 0004 form one more range) ids grow with creation time, and a delivery finishes
 * after it is created; so every delivery that can go lies below the range's first one created
 * after the cutoff. The purge walks each range upwards in spans of `PURGE_SPAN` ids and stops
 * there. Each run therefore also reads the failed deliveries kept from before the cutoff (a rowid
 * range scan, cheap), and a clock stepped back can leave a delivery for the next run.
 */
export async function purgeExpired(ctx: Pick<AppContext, "sqlite" | "config">, now: number, cancelled: () => boolean = () => false): Promise<number> {
  const cutoff = now - ctx.config.webhookRetentionDays * 86_400_000;
  const db = ctx.sqlite;
  const letThrough = () => new Promise((r) => setImmediate(r)); // deliveries and requests go between batches
  let total = 0;
  const nextDelivery = db.query<{ id: number; created_at: number }, [number, number]>(
    "SELECT id, created_at FROM webhook_deliveries WHERE id > ?1 AND id < ?2 ORDER BY id LIMIT 1",
  );
  const deleteSpan = db.query("DELETE FROM webhook_deliveries WHERE id >= ?1 AND id < ?2 AND status = 'delivered' AND finished_at < ?3");
  const subscriptions = (db.query("SELECT id FROM webhook_subscriptions ORDER BY id").all() as { id: number }[]).map((s) => s.id);
  for (const range of [0, ...subscriptions]) {
    const rangeEnd = deliveryId(range + 1, 0);
    for (let after = deliveryId(range, 0); ; ) {
      if (cancelled()) return total;
      const first = nextDelivery.get(after, rangeEnd);
      if (!first || first.created_at >= cutoff) break;
      const end = Math.min(first.id + PURGE_SPAN, rangeEnd);
      total += withoutLockWait(db, () => db.transaction(() => deleteSpan.run(first.id, end, cutoff).changes).immediate());
      after = end - 1;
      await letThrough();
    }
  }
  const batches = [
    db.query(`DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE started_at < ?1 ORDER BY id LIMIT ${PURGE_BATCH})`),
    db.query(
      `DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e WHERE e.created_at < ?1
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) LIMIT ${PURGE_BATCH})`,
    ),
  ];
  for (const batch of batches) {
    for (;;) {
      if (cancelled()) return total;
      const n = withoutLockWait(db, () => db.transaction(() => batch.run(cutoff).changes).immediate());
      total += n;
      if (n < PURGE_BATCH) break;
      await letThrough();
    }
  }
  return total;
}

/**
 * Requests one subscription may have in flight: as configured, but always at least one global
 * slot short of GATEHOUSE_WEBHOOK_CONCURRENCY, so a hanging endpoint can never hold every slot
 * and delay the other subscriptions' deliveries, however the two keys are set (config.ts
 * refuses a global concurrency below 2).
 */
export function perSubscriptionCap(cfg: Pick<AppContext["config"], "webhookConcurrency" | "webhookPerSubscriptionConcurrency">): number {
  return Math.max(1, Math.min(cfg.webhookPerSubscriptionConcurrency, cfg.webhookConcurrency - 1));
}

class TimeoutAbort extends Error {
  constructor(ms: number) {
    super(`timed out after ${ms} ms`);
  }
}
class ShutdownAbort extends Error {
  constructor() {
    super("aborted by shutdown");
  }
}

function describeError(e: unknown): string {
  if (e instanceof TimeoutAbort) return e.message;
  if (e instanceof Error) {
    const code = (e as { code?: string }).code;
    return code && !e.message.includes(code) ? `${code}: ${e.message}` : e.message;
  }
  return String(e);
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => (signal.removeEventListener("abort", onAbort), resolve(v)),
      (e) => (signal.removeEventListener("abort", onAbort), reject(e)),
    );
  });
}

/** The response headers as a JSON object for the attempt log, cut off after `RESPONSE_HEADERS_LIMIT` characters of names and values. */
export function responseHeadersJson(headers: Headers): string {
  const out: Record<string, string> = {};
  let size = 0;
  for (const [name, value] of headers) {
    size += name.length + value.length;
    if (size > RESPONSE_HEADERS_LIMIT) break;
    out[name] = value;
  }
  return JSON.stringify(out);
}

/** Reads at most `limit` bytes of the body as text, then cancels the rest; never throws. */
async function readCapped(res: Response, limit: number): Promise<string | null> {
  // The common case, a short answer with a length: read it whole (cheaper than a stream reader).
  // Checked before `res.body` is touched: that getter creates a stream object, which the whole
  // read does not need (measured: 0.2–1 µs of the main thread per delivery).
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared >= 0 && declared <= limit) {
    try {
      return await res.text();
    } catch {
      return "";
    }
  }
  if (!res.body) return null;
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    if (size >= limit) await reader.cancel().catch(() => {});
  } catch {
    /* a body cut off by the timeout keeps what arrived */
  }
  if (size === 0) return "";
  const all = new Uint8Array(Math.min(size, limit));
  let off = 0;
  for (const c of chunks) {
    const part = c.subarray(0, Math.min(c.byteLength, all.byteLength - off));
    all.set(part, off);
    off += part.byteLength;
    if (off >= all.byteLength) break;
  }
  return new TextDecoder().decode(all);
}
