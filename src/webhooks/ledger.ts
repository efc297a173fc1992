import type { Database, Statement } from "bun:sqlite";
import { decide, shouldDisable, type AttemptResult, type Verdict } from "./retry";
import type { DeliveryStatus } from "./tables";

/**
 * The delivery loop's database side: the state machine over `webhook_deliveries`
 * (pending → delivered | failed), one short `BEGIN IMMEDIATE` transaction ("tick") at a time. A
 * tick (1) records the attempts that finished since the last tick, (2) gives back leases of claims
 * that will not be sent, and (3) claims due deliveries up to the budget the HTTP side has room for,
 * subscription by subscription.
 *
 * It runs in the delivery loop's worker thread (`ledger-worker.ts`) on a connection of its own, so
 * the commit's fsync (`synchronous=FULL`) and the SQL never stop the thread that runs the HTTP
 * client and the API. Everything in and out of a tick is plain data (it crosses `postMessage`).
 */

/** Smallest per-subscription claim in a tick's fair-share pass (see `claim`). */
const MIN_CLAIM = 8;

/** A subscription as the HTTP side needs it: where to send, and the secrets to sign with. */
export type SubscriptionTarget = { id: number; url: string; secrets: string[] };

/** A leased delivery, ready to send. `attempts` counts the attempts made before this one in the current cycle. */
export type LeasedDelivery = { id: number; subscriptionId: number; attempts: number; uid: string; name: string; payload: string; createdAt: number };

/** One HTTP attempt that finished, to record in the log and to decide the delivery's next state. */
export type FinishedAttempt = {
  deliveryId: number;
  subscriptionId: number;
  /** `LeasedDelivery.attempts` of the claim this attempt sent. */
  attemptsBefore: number;
  startedAt: number;
  durationMs: number;
  url: string;
  /** JSON object of the headers sent (they hold no secret). */
  requestHeaders: string;
  result: AttemptResult;
  responseBody: string | null;
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
};

type SubRow = { id: number; url: string; secret: string; previous_secret: string | null; previous_secret_expires_at: number | null };
type DueRow = { id: number; attempts: number; uid: string; name: string; payload: string; created_at: number };

export class DeliveryLedger {
  private rotate = 0;
  private readonly q: {
    subs: Statement<SubRow>;
    due: Statement<DueRow>;
    lease: Statement;
    attempt: Statement;
    finish: Statement;
    release: Statement;
    subSuccess: Statement;
    subFailing: Statement<{ failing_since: number }>;
    subDisable: Statement;
  };
  private readonly transaction: { immediate(req: TickRequest): TickResult };

  constructor(
    db: Database,
    private readonly options: LedgerOptions,
  ) {
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
    this.transaction = db.transaction((req: TickRequest) => this.body(req));
  }

  /** Runs one tick in its own `BEGIN IMMEDIATE` transaction. Throws (nothing committed) on busy or I/O errors. */
  tick(req: TickRequest): TickResult {
    return this.transaction.immediate(req);
  }

  private body(req: TickRequest): TickResult {
    const { now } = req;
    // Built inside the body: a rolled-back attempt must not leave half a result behind.
    const result: TickResult = { claims: [], subscriptions: null, verdicts: {}, disabled: [] };
    const succeeded = new Set<number>();
    for (const f of req.finished) {
      const verdict = this.record(f, now, succeeded, result.disabled);
      result.verdicts[verdict] = (result.verdicts[verdict] ?? 0) + 1;
    }
    for (const subId of succeeded) this.q.subSuccess.run(subId, now);
    for (const id of req.released) this.q.release.run(id, now);
    if (req.claim) {
      const subs = this.q.subs.all().map(
        (s): SubscriptionTarget => ({
          id: s.id,
          url: s.url,
          secrets: s.previous_secret && (s.previous_secret_expires_at ?? 0) > now ? [s.secret, s.previous_secret] : [s.secret],
        }),
      );
      result.subscriptions = subs;
      result.claims = this.claim(subs, req.claim.budget, req.claim.held, now);
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
  private claim(subs: SubscriptionTarget[], budget: number, held: Record<number, number>, now: number): LeasedDelivery[] {
    const claims: LeasedDelivery[] = [];
    if (subs.length === 0 || budget <= 0) return claims;
    const cap = this.options.perSubscriptionConcurrency;
    const start = this.rotate++ % subs.length;
    const leaseUntil = now + this.options.leaseMs;
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
        const taken = (held[sub.id] ?? 0) + (claimedBySub.get(sub.id) ?? 0);
        const room = Math.min(budget, 2 * cap - taken, pass);
        if (room <= 0) continue;
        const rows = this.q.due.all(sub.id, now, room);
        if (rows.length < room) exhausted.add(sub.id);
        for (const row of rows) {
          this.q.lease.run(row.id, leaseUntil, now);
          claims.push({ id: row.id, subscriptionId: sub.id, attempts: row.attempts, uid: row.uid, name: row.name, payload: row.payload, createdAt: row.created_at });
        }
        claimedBySub.set(sub.id, (claimedBySub.get(sub.id) ?? 0) + rows.length);
        budget -= rows.length;
      }
    }
    return claims;
  }

  /**
   * Records one attempt and moves its delivery on; returns the verdict. Successes only mark
   * `succeeded` (one subscription update per tick, not per delivery).
   */
  private record(f: FinishedAttempt, now: number, succeeded: Set<number>, disabled: TickResult["disabled"]): Verdict["next"] {
    const r = f.result;
    const status = r.kind === "response" ? r.status : null;
    const error = r.kind === "error" ? r.error : status !== null && (status < 200 || status >= 300) ? `HTTP ${status}` : null;
    const verdict = decide(r, f.attemptsBefore + 1, this.options.retrySchedule, now);
    const subId = f.subscriptionId;
    if (verdict.next !== "delivered" && succeeded.delete(subId)) this.q.subSuccess.run(subId, now); // keep the order within the batch
    // The delivery row first: if it is gone (its subscription was deleted meanwhile) there is
    // nothing to log the attempt against, and the attempt insert needs no existence check of its own.
    const [rowStatus, nextAttemptAt, rowError, finishedAt]: [DeliveryStatus, number, string | null, number | null] =
      verdict.next === "delivered" ? ["delivered", now, null, now]
      : verdict.next === "gone" ? ["failed", now, "endpoint answered 410 Gone", now]
      : verdict.next === "retry" ? ["pending", verdict.at, error, null]
      : ["failed", now, error, now];
    const finished = this.q.finish.run(f.deliveryId, rowStatus, nextAttemptAt, status, rowError, now, finishedAt);
    if (finished.changes > 0)
      this.q.attempt.run(f.deliveryId, f.startedAt, f.durationMs, f.url, f.requestHeaders, status, r.kind === "error" ? r.error : null, f.responseBody);
    if (verdict.next === "delivered") {
      succeeded.add(subId);
      return verdict.next;
    }
    if (verdict.next === "gone") {
      this.disable(subId, "The endpoint answered 410 Gone", now, disabled);
      return verdict.next;
    }
    const row = this.q.subFailing.get(subId, now);
    if (row && shouldDisable(row.failing_since, now))
      this.disable(subId, `No successful delivery since ${new Date(row.failing_since).toISOString()} (5 days of failures)`, now, disabled);
    return verdict.next;
  }

  private disable(subId: number, reason: string, now: number, disabled: TickResult["disabled"]): void {
    if (this.q.subDisable.run(subId, reason, now).changes > 0) disabled.push({ subscriptionId: subId, reason });
  }
}

/*
 * Wire format between the threads. `postMessage` copies with the structured clone algorithm, which
 * is several times slower for arrays of objects than for flat arrays of numbers and strings
 * (measured: ~2.2 vs ~0.6 µs per finished attempt), and the main thread pays for it on every
 * delivery: so attempts and claims cross as flat arrays, a fixed number of slots per item.
 */

const FINISHED_SLOTS = 11;

export function encodeFinished(list: readonly FinishedAttempt[]): unknown[] {
  const out: unknown[] = new Array(list.length * FINISHED_SLOTS);
  let i = 0;
  for (const f of list) {
    const r = f.result;
    out[i++] = f.deliveryId;
    out[i++] = f.subscriptionId;
    out[i++] = f.attemptsBefore;
    out[i++] = f.startedAt;
    out[i++] = f.durationMs;
    out[i++] = f.url;
    out[i++] = f.requestHeaders;
    out[i++] = f.responseBody;
    // A response: its status and Retry-After; an error: null and the message.
    out[i++] = r.kind === "response" ? r.status : null;
    out[i++] = r.kind === "response" ? r.retryAfter : r.error;
    out[i++] = r.kind;
  }
  return out;
}

export function decodeFinished(flat: readonly unknown[]): FinishedAttempt[] {
  const out: FinishedAttempt[] = [];
  for (let i = 0; i < flat.length; i += FINISHED_SLOTS) {
    const kind = flat[i + 10];
    out.push({
      deliveryId: flat[i] as number,
      subscriptionId: flat[i + 1] as number,
      attemptsBefore: flat[i + 2] as number,
      startedAt: flat[i + 3] as number,
      durationMs: flat[i + 4] as number,
      url: flat[i + 5] as string,
      requestHeaders: flat[i + 6] as string,
      responseBody: flat[i + 7] as string | null,
      result:
        kind === "response"
          ? { kind: "response", status: flat[i + 8] as number, retryAfter: flat[i + 9] as string | null }
          : { kind: "error", error: flat[i + 9] as string },
    });
  }
  return out;
}

const CLAIM_SLOTS = 7;

export function encodeClaims(list: readonly LeasedDelivery[]): unknown[] {
  const out: unknown[] = new Array(list.length * CLAIM_SLOTS);
  let i = 0;
  for (const c of list) {
    out[i++] = c.id;
    out[i++] = c.subscriptionId;
    out[i++] = c.attempts;
    out[i++] = c.uid;
    out[i++] = c.name;
    out[i++] = c.payload;
    out[i++] = c.createdAt;
  }
  return out;
}

export function decodeClaims(flat: readonly unknown[]): LeasedDelivery[] {
  const out: LeasedDelivery[] = [];
  for (let i = 0; i < flat.length; i += CLAIM_SLOTS)
    out.push({
      id: flat[i] as number,
      subscriptionId: flat[i + 1] as number,
      attempts: flat[i + 2] as number,
      uid: flat[i + 3] as string,
      name: flat[i + 4] as string,
      payload: flat[i + 5] as string,
      createdAt: flat[i + 6] as number,
    });
  return out;
}

/**
 * What the HTTP side reports with each batch it hands over: how many more deliveries it has room
 * for, and what it holds per subscription, as of the last reply it has applied.
 */
export type ClaimReport = {
  /** 2 × concurrency − in flight − queued, when the report was made (may be ≤ 0). */
  room: number;
  /** Per subscription id: claims in flight or queued. */
  held: Record<number, number>;
  /** Number of the last reply whose claims are counted in `room` and `held`. */
  appliedReply: number;
};

/**
 * Claims the ledger has sent that the HTTP side had not yet counted when it made its latest
 * report: they travel in replies it had not applied. Subtracting them keeps the claim budget and
 * the per-subscription caps exact although reports and replies cross each other, so every tick can
 * claim without waiting for a round trip through the main thread.
 */
export class ClaimsInTransit {
  private replies: { reply: number; total: number; bySub: Map<number, number> }[] = [];

  /** Records the claims sent with reply number `reply`. */
  sent(reply: number, claims: readonly LeasedDelivery[]): void {
    if (claims.length === 0) return;
    const bySub = new Map<number, number>();
    for (const c of claims) bySub.set(c.subscriptionId, (bySub.get(c.subscriptionId) ?? 0) + 1);
    this.replies.push({ reply, total: claims.length, bySub });
  }

  /** The claim request for a tick: the report minus what it did not see yet. */
  budget(report: ClaimReport): { budget: number; held: Record<number, number> } {
    this.replies = this.replies.filter((r) => r.reply > report.appliedReply);
    const held = { ...report.held };
    let budget = report.room;
    for (const r of this.replies) {
      budget -= r.total;
      for (const [subId, n] of r.bySub) held[subId] = (held[subId] ?? 0) + n;
    }
    return { budget, held };
  }
}
