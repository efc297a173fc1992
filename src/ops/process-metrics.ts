import { readdirSync, readFileSync, statSync } from "node:fs";
import type { AppContext } from "../context";
import { buildInfo } from "../version";
import { metricsFor } from "../lib/metrics";
import { poolMetrics } from "../db/pool-metrics";

/** Process and storage gauges, read at scrape time. */
export function registerProcessMetrics(ctx: AppContext, databaseFile: string | null): void {
  const r = metricsFor(ctx);
  const build = buildInfo();
  r.gauge("gatehouse_build_info", "Always 1; the labels say which build is running.", ["version", "commit", "target"]).set({ version: build.version, commit: build.commit, target: build.target }, 1);
  r.gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.").set(undefined, Math.floor(Date.now() / 1000 - process.uptime()));
  const rss = r.gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  // The standard process metrics of Prometheus client libraries, same names and meanings.
  const cpu = r.counter("process_cpu_seconds_total", "Total user and system CPU time spent in seconds.");
  const openFds = r.gauge("process_open_fds", "Number of open file descriptors.");
  const maxFds = r.gauge("process_max_fds", "Maximum number of open file descriptors.");
  const virtual = r.gauge("process_virtual_memory_bytes", "Virtual memory size in bytes.");
  let cpuSeen = 0;
  const heap = r.gauge("process_heap_used_bytes", "JavaScript heap in use, in bytes.");
  // SQLite's file, WAL and group commit; PostgreSQL reports its own sizes and syncs (pg_stat_*).
  const onSqlite = databaseFile !== null;
  const dbBytes = onSqlite ? r.gauge("gatehouse_database_size_bytes", "Size of the SQLite database files on disk, by file.", ["file"]) : null;
  const syncs = onSqlite ? r.counter("gatehouse_wal_syncs_total", "WAL fdatasyncs run by group commit; each covers every write committed before it started.") : null;
  const holds = r.counter("gatehouse_write_holds_total", "Times request writes were held for the webhook delivery loop to catch up.");
  // PostgreSQL's pool (no data file): SQLite's two fixed connections have nothing to report.
  if (!onSqlite) registerPoolMetrics(ctx);
  let seen = { syncs: 0, holds: 0 };
  r.onCollect(() => {
    const gc = ctx.groupCommit;
    syncs?.inc(undefined, gc.syncCount - seen.syncs);
    holds.inc(undefined, gc.holdCount - seen.holds);
    seen = { syncs: gc.syncCount, holds: gc.holdCount };
    const usage = process.cpuUsage();
    const cpuNow = (usage.user + usage.system) / 1e6;
    cpu.inc(undefined, cpuNow - cpuSeen);
    cpuSeen = cpuNow;
    const linux = linuxProcess();
    if (linux) {
      openFds.set(undefined, linux.openFds);
      maxFds.set(undefined, linux.maxFds);
      virtual.set(undefined, linux.virtualBytes);
    }
    const mem = process.memoryUsage();
    rss.set(undefined, mem.rss);
    heap.set(undefined, mem.heapUsed);
    if (databaseFile !== null && dbBytes)
      for (const [label, suffix] of [["db", ""], ["wal", "-wal"]] as const) {
        let size = 0;
        try {
          size = statSync(databaseFile + suffix).size;
        } catch {
          /* no WAL file right now */
        }
        dbBytes.set({ file: label }, size);
      }
  });
}

/** PostgreSQL's connection gauges (src/db/pool-metrics.ts says what postgres.js lets us know). */
function registerPoolMetrics(ctx: AppContext): void {
  const r = metricsFor(ctx);
  const poolSize = r.gauge("gatehouse_database_pool_size", "PostgreSQL: connections this process opens at most (GATEHOUSE_DATABASE_POOL_SIZE).");
  const transactions = r.gauge("gatehouse_database_transactions", "PostgreSQL: this process's write transactions holding a pooled connection (open) or waiting for one (waiting).", ["state"]);
  const serverConnections = r.gauge("gatehouse_database_server_connections", "PostgreSQL: connections of every Gatehouse node to this database, by pg_stat_activity state (read at scrape).", ["state"]);
  const maxConnections = r.gauge("gatehouse_database_server_max_connections", "PostgreSQL: the server's max_connections.");
  r.onCollect(async () => {
    const pool = await poolMetrics(ctx.db);
    if (!pool) return;
    poolSize.set(undefined, pool.size);
    transactions.set({ state: "open" }, pool.transactionsOpen);
    transactions.set({ state: "waiting" }, pool.transactionsWaiting);
    if (pool.serverConnections) {
      // Every state PostgreSQL reports a client backend in; a state with none is 0, not stale.
      for (const state of ["active", "idle", "idle in transaction", "idle in transaction (aborted)"]) serverConnections.set({ state }, pool.serverConnections.get(state) ?? 0);
    }
    if (pool.maxConnections !== null) maxConnections.set(undefined, pool.maxConnections);
  });
}

/** What /proc says about this process (Linux); null elsewhere or when /proc is not mounted. */
function linuxProcess(): { openFds: number; maxFds: number; virtualBytes: number } | null {
  try {
    const openFds = readdirSync("/proc/self/fd").length - 1; // minus the directory handle readdir held
    const limit = /^Max open files\s+(\d+|unlimited)/m.exec(readFileSync("/proc/self/limits", "utf8"))?.[1];
    // Field 23 of /proc/self/stat is vsize; the command name (field 2) may hold spaces, so count after its ")".
    const stat = readFileSync("/proc/self/stat", "utf8");
    const virtualBytes = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[20]);
    return { openFds, maxFds: limit === undefined || limit === "unlimited" ? -1 : Number(limit), virtualBytes };
  } catch {
    return null;
  }
}
