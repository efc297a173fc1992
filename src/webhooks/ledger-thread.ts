import type { ClaimReport, LedgerOptions, SubscriptionTarget, TickResult } from "./ledger";

/**
 * The main thread's side of the ledger worker (`ledger-worker.ts`).
 *
 * The loop hands over batches ("posts": finished attempts, leases to give back, a claim report)
 * without waiting; the worker merges every post that arrived while it was busy into one tick (one
 * commit) and answers with a reply per tick. The worker also publishes, in shared memory, the
 * number of the last post it has committed, so the loop knows at once which attempts are durably
 * recorded (that bounds the duplicates a crash can cause) without waiting for the reply to get
 * through this thread's busy event loop.
 */

export type PostCall = {
  type: "post";
  seq: number;
  /** `encodeFinished` of the attempts. */
  finished: unknown[];
  released: number[];
  /** Null while shutting down: claim nothing. */
  claim: ClaimReport | null;
};
export type WorkerCall =
  | { type: "open"; file: string; options: LedgerOptions; committed: SharedArrayBuffer }
  | PostCall
  | { type: "close" };

export type LedgerReply = {
  type: "reply";
  /** Replies are numbered 1, 2, …, in order. */
  reply: number;
  /** The posts this tick committed. */
  seqs: number[];
  /** `encodeClaims` of the new claims. */
  claims: unknown[];
  subscriptions: SubscriptionTarget[] | null;
  verdicts: TickResult["verdicts"];
  disabled: TickResult["disabled"];
};
export type WorkerMessage =
  | LedgerReply
  /** A tick failed (nothing committed); the worker retries it with what arrives next. */
  | { type: "tick-failed"; error: string }
  | { type: "closed"; error: string | null };

export type LedgerEvents = {
  reply(reply: LedgerReply): void;
  tickFailed(error: string): void;
  /** The worker died: posts after `committed` are lost and must be handed over again. */
  died(error: string, committed: number): void;
};

// From source the worker is this file's sibling. In the compiled executable every module is
// bundled into one file at the root of Bun's embedded file system, and the worker (a second entry
// point, see scripts/build.ts) sits under its path relative to src/.
const WORKER_URL = import.meta.url.includes("/$bunfs/") ? "./webhooks/ledger-worker.ts" : new URL("./ledger-worker.ts", import.meta.url).href;

export class LedgerThread {
  private worker: Worker | null = null;
  private committedView = new Int32Array(new SharedArrayBuffer(4));
  private nextSeq = 1;
  private closing: ((error: string | null) => void) | null = null;

  constructor(
    private readonly file: string,
    private readonly options: LedgerOptions,
    private readonly events: LedgerEvents,
  ) {}

  /** Hands a batch to the worker; returns its sequence number. */
  post(batch: Omit<PostCall, "type" | "seq">): number {
    const worker = this.worker ?? this.spawn();
    const seq = this.nextSeq++;
    worker.postMessage({ type: "post", seq, ...batch } satisfies WorkerCall);
    return seq;
  }

  /** Sequence number of the last post the worker has committed. */
  committed(): number {
    return Atomics.load(this.committedView, 0);
  }

  /** Lets the worker commit what it holds, closes its connection and ends it. */
  async close(): Promise<void> {
    const worker = this.worker;
    if (!worker) return;
    const error = await new Promise<string | null>((resolve) => {
      this.closing = resolve;
      worker.postMessage({ type: "close" } satisfies WorkerCall);
    });
    this.worker = null;
    worker.terminate();
    if (error) throw new Error(error);
  }

  private spawn(): Worker {
    const worker = new Worker(WORKER_URL);
    // The loop's timers keep the process alive while it runs; the worker alone must not.
    worker.unref();
    // A fresh counter per worker: posts numbers keep growing, so the old value is simply carried over.
    const committed = new SharedArrayBuffer(4);
    const view = new Int32Array(committed);
    Atomics.store(view, 0, this.committed());
    this.committedView = view;
    worker.onmessage = (event: MessageEvent<WorkerMessage>) => {
      const m = event.data;
      if (m.type === "reply") this.events.reply(m);
      else if (m.type === "tick-failed") this.events.tickFailed(m.error);
      else this.closing?.(m.error);
    };
    const fail = (why: string) => {
      if (this.worker !== worker) return;
      this.worker = null;
      worker.terminate();
      this.closing?.(why);
      this.events.died(`delivery ledger worker ${why}`, this.committed());
    };
    worker.onerror = (e) => fail(`failed: ${e.message}`);
    worker.addEventListener("close", () => fail("exited"));
    // Messages are handled in order, so this open precedes every post.
    worker.postMessage({ type: "open", file: this.file, options: this.options, committed } satisfies WorkerCall);
    this.worker = worker;
    return worker;
  }
}
