import type { Statement } from "bun:sqlite";
import type { AppContext } from "../context";
import { DEFAULT_BUCKETS, metricsFor } from "../ops/metrics";
import { decide, shouldDisable, type AttemptResult } from "./retry";
import { envelopeBody, signatureHeader } from "./signer";
import { hasIpLiteralHost, resolveTarget, type ResolvedTarget } from "./ssrf";
import type { DeliveryStatus } from "./tables";
import { onEventsCommitted } from "./wake";

/**
 * The in-process delivery loop: a small state machine over `webhook_deliveries`
 * (pending → delivered | failed), driven by short `BEGIN IMMEDIATE` transactions and HTTP calls
 * made outside any transaction.
 *
 * One "tick" is one write transaction that (1) records the outcomes of attempts that finished
 * since the last tick and (2) claims due deliveries up to the free concurrency, subscription by
 * subscription, so a slow endpoint only ever holds its own per-subscription slots. A claim is a
 * lease: `locked_until` moves to now + 2 × timeout + margin, and a leased row is not due before it
 * passes, so after a kill -9 the delivery simply becomes due again then (at-least-once, same webhook-id).
 * Ticks run on publish (woken after commit), when an attempt finishes, and on a poll timer.
 * Batching outcomes into the next tick is group commit: under load one fsync covers many attempts.
 * Claims wait in per-subscription `ready` queues (up to twice the caps) so a finished attempt starts
 * the next one at once; sent-but-unrecorded attempts never exceed 2 × concurrency, which bounds
 * the duplicates a crash can cause.
 */

const RESPONSE_BODY_LIMIT = 16 * 1024;
/** Margin on top of the HTTP timeout for DNS, reading the capped body and recording the outcome. */
const LEASE_MARGIN_MS = 5_000;
/** Retention purge cadence; rows go in batches so no transaction is long. */
const PURGE_EVERY_MS = 10 * 60 * 1000;
const PURGE_BATCH = 1000;
/** Smallest per-subscription claim in a tick's fair-share pass (see `claim`). */
const MIN_CLAIM = 8;

export function deliveryBacklog(ctx: Pick<AppContext, "sqlite">): number {
  return (ctx.sqlite.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'").get() as { n: number }).n;
}

type Subscription = { id: number; url: string; secrets: string[] };
type Claim = { id: number; attempts: number; uid: string; name: string; payload: string; createdAt: number; sub: Subscription };
type Outcome =
  | { kind: "attempted"; claim: Claim; startedAt: number; durationMs: number; url: string; headers: Record<string, string>; result: AttemptResult; responseBody: string | null }
  /** Aborted by shutdown: give the lease back without counting an attempt. */
  | { kind: "released"; claim: Claim };

type SubRow = { id: number; url: string; secret: string; previous_secret: string | null; previous_secret_expires_at: number | null };
type DueRow = { id: number; attempts: number; uid: string; name: string; payload: string; created_at: number };

export function startDeliveryLoop(ctx: AppContext): { stop(): Promise<void> } {
  const loop = new DeliveryLoop(ctx);
  loop.start();
  return { stop: () => loop.stop() };
}

class DeliveryLoop {
  private readonly cfg;
  private readonly leaseMs: number;
  private readonly userAgent: string;
  private stopping = false;
  private tickQueued = false;
  private pollTimer: ReturnType<typeof setInterval> | null = null;
  private purgeTimer: ReturnType<typeof setInterval> | null = null;
  private unsubscribe: (() => void) | null = null;
  private inflight = 0;
  private readonly inflightBySub = new Map<number, number>();
  private readonly running = new Map<number, { promise: Promise<void>; abort: AbortController }>();
  private outcomes: Outcome[] = [];
  private rotate = 0;
  /** Leased claims not yet started, per subscription (see `claim`). */
  private readonly ready = new Map<number, Claim[]>();
  private readonly literalTargets = new Map<string, ResolvedTarget>();
  private readyTotal = 0;
  private purging = false;
  private readonly metrics;

  private readonly q: {
    subs: Statement<SubRow>;
    due: Statement<DueRow>;
    lease: Statement;
    attempt: Statement;
    finish: Statement;
    release: Statement;
    subSuccess: Statement;
    subFailing: Statement;
    subDisable: Statement;
  };

  constructor(private readonly ctx: AppContext) {
    this.cfg = ctx.config;
    // A claim may wait in `ready` behind one attempt of its subscription, then run its own: 2 × timeout.
    this.leaseMs = 2 * ctx.config.webhookTimeoutMs + LEASE_MARGIN_MS;
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
    const db = ctx.sqlite;
    this.q = {
      subs: db.query("SELECT id, url, secret, previous_secret, previous_secret_expires_at FROM webhook_subscriptions WHERE enabled = 1 ORDER BY id"),
      due: db.query(
        `SELECT d.id, d.attempts, e.uid, e.name, e.payload, e.created_at
           FROM webhook_deliveries d JOIN webhook_events e ON e.id = d.event_id
          WHERE d.subscription_id = ?1 AND d.status = 'pending' AND d.next_attempt_at <= ?2
            AND (d.locked_until IS NULL OR d.locked_until <= ?2)
          ORDER BY d.next_attempt_at LIMIT ?3`,
      ),
      // The lease touches only the row, not the due index (next_attempt_at stays): leased rows are
      // skipped by the due query's locked_until test — at most 2 × the cap of them per subscription.
      lease: db.query("UPDATE webhook_deliveries SET locked_until = ?2, updated_at = ?3 WHERE id = ?1"),
      // Run only after `finish` changed the delivery row, so the row exists (see `record`).
      attempt: db.query(
        `INSERT INTO webhook_attempts (delivery_id, started_at, duration_ms, url, request_headers, status_code, error, response_body)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)`,
      ),
      finish: db.query(
        `UPDATE webhook_deliveries SET status = ?2, attempts = attempts + 1, next_attempt_at = ?3, locked_until = NULL,
                last_status_code = ?4, last_error = ?5, updated_at = ?6, finished_at = ?7 WHERE id = ?1`,
      ),
      release: db.query("UPDATE webhook_deliveries SET locked_until = NULL, updated_at = ?2 WHERE id = ?1 AND status = 'pending'"),
      subSuccess: db.query("UPDATE webhook_subscriptions SET failing_since = NULL, last_success_at = ?2 WHERE id = ?1"),
      subFailing: db.query("UPDATE webhook_subscriptions SET failing_since = coalesce(failing_since, ?2) WHERE id = ?1 RETURNING failing_since"),
      subDisable: db.query("UPDATE webhook_subscriptions SET enabled = 0, disabled_reason = ?2, updated_at = ?3 WHERE id = ?1 AND enabled = 1"),
    };
  }

  start(): void {
    this.unsubscribe = onEventsCommitted(() => this.requestTick());
    this.pollTimer = setInterval(() => this.requestTick(), this.cfg.webhookPollIntervalMs);
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.requestTick();
  }

  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
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
    this.tick();
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
    const outcomes = this.outcomes;
    if (this.stopping && outcomes.length === 0 && this.readyTotal === 0) return;
    const now = Date.now();
    let claims: Claim[];
    // Attempt counts by verdict, applied to the metrics once per tick and only after the commit.
    const verdicts = new Map<string, number>();
    try {
      claims = this.ctx.sqlite
        .transaction(() => {
          verdicts.clear(); // bun:sqlite does not retry, but a rolled-back body must not count twice
          const succeeded = new Set<number>();
          for (const o of outcomes) {
            const next = this.record(o, now, succeeded);
            if (next) verdicts.set(next, (verdicts.get(next) ?? 0) + 1);
          }
          for (const subId of succeeded) this.q.subSuccess.run(subId, now);
          if (!this.stopping) return this.claim(now);
          this.releaseReady(now);
          return [];
        })
        .immediate();
      this.outcomes = []; // the tick is synchronous: nothing was appended meanwhile
      for (const [outcome, n] of verdicts) this.metrics.attempts.inc({ outcome }, n);
      for (const o of outcomes) if (o.kind === "attempted") this.metrics.duration.observe(undefined, o.durationMs / 1000);
    } catch (e) {
      // Busy or I/O error: nothing was committed; outcomes stay queued and the poll retries.
      this.ctx.log.error("webhook delivery tick failed", { error: String((e as Error)?.message ?? e) });
      return;
    }
    if (this.stopping) {
      this.ready.clear();
      this.readyTotal = 0;
    }
    for (const c of claims) {
      let queue = this.ready.get(c.sub.id);
      if (!queue) this.ready.set(c.sub.id, (queue = []));
      queue.push(c);
    }
    this.readyTotal += claims.length;
    this.pump();
  }

  /**
   * Claims due deliveries into the local `ready` queues, subscription by subscription (rotating who
   * goes first). It leases up to twice the concurrency (and twice the per-subscription cap), so
   * when an attempt finishes the next one starts at once from memory instead of waiting for the
   * next commit: the HTTP pipeline stays full while outcomes are group-committed. Claims that are
   * leased but not yet sent cannot become duplicates after a crash; they are simply due again.
   */
  private claim(now: number): Claim[] {
    const cap = this.cfg.webhookPerSubscriptionConcurrency;
    let budget = 2 * this.cfg.webhookConcurrency - this.inflight - this.readyTotal;
    if (budget <= 0) return [];
    const subs = this.q.subs.all().map(
      (s): Subscription => ({
        id: s.id,
        url: s.url,
        secrets: s.previous_secret && (s.previous_secret_expires_at ?? 0) > now ? [s.secret, s.previous_secret] : [s.secret],
      }),
    );
    // Claims queued for a subscription that was disabled (410, 5 days failing, admin) or deleted
    // meanwhile are not sent: their leases are given back.
    const enabled = new Set(subs.map((s) => s.id));
    for (const [subId, queue] of this.ready) {
      if (enabled.has(subId)) continue;
      for (const c of queue) this.q.release.run(c.id, now);
      this.readyTotal -= queue.length;
      this.ready.delete(subId);
    }
    if (subs.length === 0) return [];
    const start = this.rotate++ % subs.length;
    const leaseUntil = now + this.leaseMs;
    const claims: Claim[] = [];
    const claimedBySub = new Map<number, number>();
    const exhausted = new Set<number>();
    // Fair share first (so with many subscriptions and few slots everyone gets some), then fill.
    // A share is at least MIN_CLAIM rows: each due query has a fixed cost (tens of µs) whatever it
    // returns, so a tick claims a few good chunks instead of a sliver for everyone; the rotating
    // start gives the others their turn on the next ticks.
    const share = Math.max(MIN_CLAIM, Math.ceil(budget / subs.length));
    for (const pass of [share, Infinity]) {
      for (let i = 0; i < subs.length && budget > 0; i++) {
        const sub = subs[(start + i) % subs.length]!;
        if (exhausted.has(sub.id)) continue;
        const held = (this.inflightBySub.get(sub.id) ?? 0) + (this.ready.get(sub.id)?.length ?? 0) + (claimedBySub.get(sub.id) ?? 0);
        const room = Math.min(budget, 2 * cap - held, pass);
        if (room <= 0) continue;
        const rows = this.q.due.all(sub.id, now, room);
        if (rows.length < room) exhausted.add(sub.id);
        for (const row of rows) {
          this.q.lease.run(row.id, leaseUntil, now);
          claims.push({ id: row.id, attempts: row.attempts, uid: row.uid, name: row.name, payload: row.payload, createdAt: row.created_at, sub });
        }
        claimedBySub.set(sub.id, (claimedBySub.get(sub.id) ?? 0) + rows.length);
        budget -= rows.length;
      }
    }
    return claims;
  }

  /** Starts ready attempts, round-robin over subscriptions, within the global and per-subscription caps. */
  private pump(): void {
    if (this.stopping) return;
    const cap = this.cfg.webhookPerSubscriptionConcurrency;
    let progressed = true;
    // Sent-but-unrecorded attempts (open + finished awaiting the commit) never exceed 2 × concurrency:
    // that is the most a crash can duplicate, even if ticks keep failing.
    const unrecordedLimit = 2 * this.cfg.webhookConcurrency;
    while (progressed && this.readyTotal > 0 && this.inflight < this.cfg.webhookConcurrency && this.inflight + this.outcomes.length < unrecordedLimit) {
      progressed = false;
      for (const [subId, queue] of this.ready) {
        if (this.inflight >= this.cfg.webhookConcurrency || this.inflight + this.outcomes.length >= unrecordedLimit) break;
        if ((this.inflightBySub.get(subId) ?? 0) >= cap) continue;
        const c = queue.shift()!;
        if (queue.length === 0) this.ready.delete(subId);
        this.readyTotal--;
        this.launch(c);
        progressed = true;
      }
    }
  }

  /** On shutdown: leased but never sent → due again now (no attempt counted). */
  private releaseReady(now: number): void {
    for (const queue of this.ready.values()) for (const c of queue) this.q.release.run(c.id, now);
  }

  /**
   * Records one outcome; returns the verdict (for the metrics), or null for a given-back lease.
   * Successes only mark `succeeded` (one subscription update per tick, not per delivery).
   */
  private record(o: Outcome, now: number, succeeded: Set<number>): string | null {
    const { claim } = o;
    if (o.kind === "released") {
      this.q.release.run(claim.id, now);
      return null;
    }
    const r = o.result;
    const status = r.kind === "response" ? r.status : null;
    const error = r.kind === "error" ? r.error : status !== null && (status < 200 || status >= 300) ? `HTTP ${status}` : null;
    const attemptsMade = claim.attempts + 1;
    const verdict = decide(r, attemptsMade, this.cfg.webhookRetrySchedule, now);
    const subId = claim.sub.id;
    if (verdict.next !== "delivered" && succeeded.delete(subId)) this.q.subSuccess.run(subId, now); // keep the order within the batch
    // The delivery row first: if it is gone (its subscription was deleted meanwhile) there is
    // nothing to log the attempt against, and the attempt insert needs no existence check of its own.
    const [rowStatus, nextAttemptAt, rowError, finishedAt]: [DeliveryStatus, number, string | null, number | null] =
      verdict.next === "delivered" ? ["delivered", now, null, now]
      : verdict.next === "gone" ? ["failed", now, "endpoint answered 410 Gone", now]
      : verdict.next === "retry" ? ["pending", verdict.at, error, null]
      : ["failed", now, error, now];
    const finished = this.q.finish.run(claim.id, rowStatus, nextAttemptAt, status, rowError, now, finishedAt);
    if (finished.changes > 0)
      this.q.attempt.run(claim.id, o.startedAt, o.durationMs, o.url, JSON.stringify(o.headers), status, r.kind === "error" ? r.error : null, o.responseBody);
    if (verdict.next === "delivered") {
      succeeded.add(subId);
      return verdict.next;
    }
    if (verdict.next === "gone") {
      this.disable(subId, "The endpoint answered 410 Gone", now);
      return verdict.next;
    }
    const row = this.q.subFailing.get(subId, now) as { failing_since: number } | null;
    if (row && shouldDisable(row.failing_since, now))
      this.disable(subId, `No successful delivery since ${new Date(row.failing_since).toISOString()} (5 days of failures)`, now);
    return verdict.next;
  }

  private disable(subId: number, reason: string, now: number): void {
    const changed = this.q.subDisable.run(subId, reason, now).changes;
    if (changed > 0) {
      this.metrics.disabled.inc();
      this.ctx.log.warn("webhook subscription disabled", { subscriptionId: subId, reason });
    }
  }

  private launch(claim: Claim): void {
    this.inflight++;
    this.inflightBySub.set(claim.sub.id, (this.inflightBySub.get(claim.sub.id) ?? 0) + 1);
    const abort = new AbortController();
    const promise = this.attempt(claim, abort).then((outcome) => {
      this.inflight--;
      const n = (this.inflightBySub.get(claim.sub.id) ?? 1) - 1;
      if (n === 0) this.inflightBySub.delete(claim.sub.id);
      else this.inflightBySub.set(claim.sub.id, n);
      this.running.delete(claim.id);
      this.outcomes.push(outcome);
      this.pump();
      this.requestTick();
    });
    this.running.set(claim.id, { promise, abort });
  }

  /** One HTTP attempt. Never throws: every failure becomes an outcome. */
  private async attempt(claim: Claim, abort: AbortController): Promise<Outcome> {
    const startedAt = Date.now();
    const ts = Math.floor(startedAt / 1000);
    const body = envelopeBody(claim.name, Math.floor(claim.createdAt / 1000), claim.payload);
    const headers: Record<string, string> = {
      "content-type": "application/json",
      "user-agent": this.userAgent,
      "webhook-id": claim.uid,
      "webhook-timestamp": String(ts),
      "webhook-signature": signatureHeader(claim.sub.secrets, claim.uid, ts, body),
    };
    const timeoutMs = this.cfg.webhookTimeoutMs;
    const timer = setTimeout(() => abort.abort(new TimeoutAbort(timeoutMs)), timeoutMs);
    let result: AttemptResult;
    let responseBody: string | null = null;
    try {
      // A cached (IP-literal) target is used without a round through a promise.
      const target = this.literalTargets.get(claim.sub.url) ?? (await this.target(claim.sub.url, abort.signal));
      // The one headers object is both sent and logged (it holds no secret); Host names the URL's host.
      headers.host = target.hostHeader;
      let res: Response | undefined;
      for (let i = 0; !res; i++) {
        // Connect to the address the guard checked (no second lookup); on a connection error try the next one.
        try {
          res = await fetch(target.candidates[i]!.connectUrl, {
            method: "POST",
            headers,
            body,
            redirect: "manual",
            signal: abort.signal,
            ...(target.serverName ? { tls: { serverName: target.serverName } } : {}),
          });
        } catch (e) {
          if (abort.signal.aborted || i + 1 >= target.candidates.length) throw e;
        }
      }
      result = { kind: "response", status: res.status, retryAfter: res.headers.get("retry-after") };
      responseBody = await readCapped(res, RESPONSE_BODY_LIMIT);
    } catch (e) {
      const reason = abort.signal.aborted ? abort.signal.reason : e;
      if (reason instanceof ShutdownAbort) {
        clearTimeout(timer);
        return { kind: "released", claim };
      }
      result = { kind: "error", error: describeError(reason) };
    } finally {
      clearTimeout(timer);
    }
    return { kind: "attempted", claim, startedAt, durationMs: Date.now() - startedAt, url: claim.sub.url, headers, result, responseBody };
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

  /** Retention: delivered deliveries (their attempts cascade), old attempts and orphaned events go, in small batches. */
  private async purge(): Promise<void> {
    if (this.purging || this.stopping) return;
    this.purging = true;
    try {
      await purgeExpired(this.ctx, Date.now(), () => this.stopping);
    } catch (e) {
      this.ctx.log.error("webhook retention purge failed", { error: String((e as Error)?.message ?? e) });
    } finally {
      this.purging = false;
    }
  }
}

/** Deletes delivered deliveries, attempts and orphaned events older than the retention. Returns rows deleted. */
export async function purgeExpired(ctx: Pick<AppContext, "sqlite" | "config">, now: number, cancelled: () => boolean = () => false): Promise<number> {
  const cutoff = now - ctx.config.webhookRetentionDays * 86_400_000;
  const db = ctx.sqlite;
  const steps = [
    db.query(`DELETE FROM webhook_deliveries WHERE id IN (SELECT id FROM webhook_deliveries WHERE status = 'delivered' AND finished_at < ?1 LIMIT ${PURGE_BATCH})`),
    db.query(`DELETE FROM webhook_attempts WHERE id IN (SELECT id FROM webhook_attempts WHERE started_at < ?1 ORDER BY id LIMIT ${PURGE_BATCH})`),
    db.query(
      `DELETE FROM webhook_events WHERE id IN (SELECT e.id FROM webhook_events e WHERE e.created_at < ?1
         AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = e.id) LIMIT ${PURGE_BATCH})`,
    ),
  ];
  let total = 0;
  for (const step of steps) {
    for (;;) {
      if (cancelled()) return total;
      const n = db.transaction(() => step.run(cutoff).changes).immediate();
      total += n;
      if (n < PURGE_BATCH) break;
      await new Promise((r) => setImmediate(r)); // let deliveries and requests through between batches
    }
  }
  return total;
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

/** Reads at most `limit` bytes of the body as text, then cancels the rest; never throws. */
async function readCapped(res: Response, limit: number): Promise<string | null> {
  if (!res.body) return null;
  // The common case, a short answer with a length: read it whole (cheaper than a stream reader).
  const declared = Number(res.headers.get("content-length") ?? NaN);
  if (declared >= 0 && declared <= limit) {
    try {
      return await res.text();
    } catch {
      return "";
    }
  }
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
