/**
 * Worker entry of the delivery ledger: runs `DeliveryLedger` ticks on a SQLite connection of its
 * own, so a tick's SQL and its commit (an fsync with `synchronous=FULL`) never stop the main
 * thread, which runs the HTTP client and the API. Every post that arrived while a tick ran joins
 * the next one: one commit for all of them (group commit). Spawned by `ledger-thread.ts`; the
 * compiled executable embeds it as a second entry point (scripts/build.ts).
 */
import { Database } from "bun:sqlite";
import { ClaimsInTransit, decodeFinished, DeliveryLedger, encodeClaims, type FinishedAttempt } from "./ledger";
import type { PostCall, WorkerCall, WorkerMessage } from "./ledger-thread";

declare const self: Worker;

/** Backoff between retries of a failed tick (busy for 5 s, disk full, …). */
const RETRY_MS = [50, 200, 1000];

let db: Database | null = null;
let ledger: DeliveryLedger | null = null;
let committed: Int32Array | null = null;
/** Why opening failed, repeated by every tick (the open itself has no caller waiting on it). */
let openError: string | null = null;
const inTransit = new ClaimsInTransit();
let inbox: PostCall[] = [];
let scheduled = false;
let failures = 0;
let replies = 0;

const send = (m: WorkerMessage) => postMessage(m);

self.onmessage = (event: MessageEvent<WorkerCall>) => {
  const call = event.data;
  switch (call.type) {
    case "open":
      committed = new Int32Array(call.committed);
      try {
        db = openLedgerConnection(call.file);
        ledger = new DeliveryLedger(db, call.options);
      } catch (e) {
        openError = String((e as Error)?.message ?? e);
      }
      break;
    case "post":
      inbox.push(call);
      if (!scheduled) {
        scheduled = true;
        // After the posts already queued behind this one have arrived: they join the same tick.
        setImmediate(runTick);
      }
      break;
    case "close": {
      if (inbox.length > 0) runTick();
      const error = inbox.length > 0 ? "delivery ledger closed with attempts it could not record" : null;
      db?.close();
      db = ledger = null;
      send({ type: "closed", error });
      break;
    }
  }
};

/** One tick for everything in the inbox; on failure the posts stay and are retried with later ones. */
function runTick(): void {
  scheduled = false;
  if (inbox.length === 0) return;
  const posts = inbox;
  inbox = [];
  const finished: FinishedAttempt[] = [];
  const released: number[] = [];
  for (const p of posts) {
    for (const f of decodeFinished(p.finished)) finished.push(f);
    for (const id of p.released) released.push(id);
  }
  // The latest report describes the main thread best; earlier ones are superseded.
  const report = posts.findLast((p) => p.claim)?.claim ?? null;
  try {
    if (!ledger) throw new Error(`delivery ledger is not open${openError ? `: ${openError}` : ""}`);
    const result = ledger.tick({ now: Date.now(), finished, released, claim: report ? inTransit.budget(report) : null });
    Atomics.store(committed!, 0, posts[posts.length - 1]!.seq);
    failures = 0;
    const reply = ++replies;
    inTransit.sent(reply, result.claims);
    send({
      type: "reply",
      reply,
      seqs: posts.map((p) => p.seq),
      claims: encodeClaims(result.claims),
      subscriptions: result.subscriptions,
      verdicts: result.verdicts,
      disabled: result.disabled,
    });
  } catch (e) {
    // Nothing was committed: keep the posts (their claim reports are stale, the next post brings a new one).
    inbox = posts.map((p): PostCall => ({ ...p, claim: null })).concat(inbox);
    send({ type: "tick-failed", error: String((e as Error)?.message ?? e) });
    if (!scheduled) {
      scheduled = true;
      setTimeout(runTick, RETRY_MS[Math.min(failures++, RETRY_MS.length - 1)]);
    }
  }
}

/**
 * The same durability as the app's connection (src/db/connection.ts): WAL, synchronous=FULL,
 * busy_timeout, foreign keys. Opened without drizzle or migrations (the app's connection has run
 * them), and with a small page cache: a tick touches the tail of the due index, the rows it leases
 * and finishes, and appends attempts, so a few MiB hold its working set, and a second 64 MiB cache
 * would only add memory.
 */
function openLedgerConnection(file: string): Database {
  const conn = new Database(file, { strict: true });
  conn.exec("PRAGMA journal_mode = WAL");
  conn.exec("PRAGMA synchronous = FULL");
  conn.exec("PRAGMA busy_timeout = 5000");
  conn.exec("PRAGMA foreign_keys = ON");
  conn.exec("PRAGMA cache_size = -8192");
  return conn;
}
