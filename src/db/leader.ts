/**
 * Background work that must run once per database, not once per node (the retention purges of the
 * webhook log, the provisioning log and the audit log): one node at a time is the *leader* and
 * runs it; the others skip it.
 *
 * - SQLite: one process owns the file (the data-dir lock), so it is always the leader.
 * - PostgreSQL: the leader is the node holding the session-level advisory lock LEADER_LOCK_KEY on
 *   a connection reserved for it. Every other node tries to take the lock every `retryMs`
 *   (pg_try_advisory_lock: never waits). When the leader's process dies its session ends and the
 *   server frees the lock, so another node takes over within `retryMs` of that (plus TCP keepalive
 *   detection for a leader cut off by the network: LEADER_KEEPALIVE). The leader checks its session
 *   on the same period and steps down when it broke. Around a takeover two nodes may run a purge
 *   for a moment; every job guarded here is idempotent (it deletes what is past a cutoff), so that
 *   costs work, never data.
 */
import type postgres from "postgres";
import type { Logger } from "../log";
import { outageLog } from "./availability";
import { storeOf, type Db } from "./store";
import type { PostgresStore } from "./postgres/store";

/** "GhLeader" in ASCII, beside the migration lock's "Gatehous" (postgres/migrate.ts). */
export const LEADER_LOCK_KEY = "5145446572580169074";
/** How often a follower tries to become leader, and the leader checks its session. */
export const LEADER_RETRY_MS = 5_000;
/** Server-side keepalives on the leader's session: a leader gone silent frees the lock in about 25 s. */
const LEADER_KEEPALIVE = ["SET tcp_keepalives_idle = 10", "SET tcp_keepalives_interval = 5", "SET tcp_keepalives_count = 3"];

const HELD_BY_THIS_SESSION = `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid()
  AND objsubid = 1 AND ((classid::bigint << 32) | objid::bigint) = ${LEADER_LOCK_KEY}) AS held`;

export type Leadership = {
  isLeader(): boolean;
  /** Gives the lock back (shutdown) and stops trying. */
  stop(): Promise<void>;
};

const leadershipOf = new WeakMap<object, Leadership>();

/**
 * Whether periodic work guarded by the leader runs in this process now. A database nobody started
 * an election on (the CLI, tests of one app) has no other node to share with: true.
 */
export function runsBackgroundWork(db: Db): boolean {
  let store: object;
  try {
    store = storeOf(db);
  } catch {
    return true; // not a storage handle of a server (a test's bare connection): alone
  }
  const leadership = leadershipOf.get(store);
  return leadership ? leadership.isLeader() : true;
}

export type LeaderEvents = {
  onChange?: (leader: boolean) => void;
  /** Where a failed try is logged: the database away is one warn per outage and one info when it answers again; anything else an error. */
  log?: Logger;
};

/** Starts taking part in the election for `db`'s database (serve does, once per process). */
export function startLeaderElection(db: Db, events: LeaderEvents = {}, retryMs = LEADER_RETRY_MS): Leadership {
  const store = storeOf(db);
  const leadership = store.engine === "postgres" ? advisoryLockLeadership((store as PostgresStore).sql, events, retryMs) : { isLeader: () => true, stop: async () => {} };
  leadershipOf.set(store, leadership);
  return leadership;
}

function advisoryLockLeadership(pool: postgres.Sql, events: LeaderEvents, retryMs: number): Leadership {
  // A connection of its own (as postgres.js's LISTEN has), never idled out: its session holds the
  // lock. Should the driver reconnect it, the new session does not hold the lock, which the next
  // check finds out from the server.
  // (The driver is loaded on first use: a SQLite instance never loads it.)
  let client: postgres.Sql | null = null;
  const connection = async () =>
    (client ??= (await import("postgres")).default({ ...(pool.options as unknown as postgres.Options<{}>), max: 1, idle_timeout: null as unknown as number, max_lifetime: null as unknown as number, fetch_types: false }));
  let leader = false;
  let stopped = false;
  let round: Promise<void> = Promise.resolve();
  const failures = events.log ? outageLog(events.log, "leader election") : null;
  const setLeader = (next: boolean) => {
    if (leader === next) return;
    leader = next;
    events.onChange?.(next);
  };

  const elect = async () => {
    const sql = await connection();
    if (leader) {
      const [row] = await sql.unsafe<{ held: boolean }[]>(HELD_BY_THIS_SESSION);
      if (row?.held === true) return;
      setLeader(false); // the session broke, and the server freed its lock with it
    }
    const [row] = await sql.unsafe<{ taken: boolean }[]>(`SELECT pg_try_advisory_lock(${LEADER_LOCK_KEY}) AS taken`);
    if (row?.taken !== true) return;
    for (const setting of LEADER_KEEPALIVE) await sql.unsafe(setting);
    if (!stopped) setLeader(true);
  };
  const attempt = async () => {
    if (stopped) return;
    try {
      await elect();
      failures?.succeeded();
    } catch (e) {
      setLeader(false);
      if (!stopped) failures?.failed(e);
    }
  };
  const tick = () => {
    round = round.then(attempt);
  };
  tick();
  const timer = setInterval(tick, retryMs);
  timer.unref?.();
  return {
    isLeader: () => leader,
    async stop() {
      stopped = true;
      clearInterval(timer);
      await round;
      setLeader(false);
      // Ending the session gives the lock back (however many times it was taken).
      await client?.end({ timeout: 1 }).catch(() => {});
    },
  };
}
