import { statSync } from "node:fs";
import type { AppContext } from "../context";
import { buildInfo } from "../version";
import { metricsFor } from "./metrics";

/** Process and storage gauges, read at scrape time. */
export function registerProcessMetrics(ctx: AppContext, databaseFile: string): void {
  const r = metricsFor(ctx);
  const build = buildInfo();
  r.gauge("gatehouse_build_info", "Always 1; the labels say which build is running.", ["version", "commit", "target"]).set({ version: build.version, commit: build.commit, target: build.target }, 1);
  r.gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.").set(undefined, Math.floor(Date.now() / 1000 - process.uptime()));
  const rss = r.gauge("process_resident_memory_bytes", "Resident memory size in bytes.");
  const heap = r.gauge("process_heap_used_bytes", "JavaScript heap in use, in bytes.");
  const dbBytes = r.gauge("gatehouse_database_size_bytes", "Size of the SQLite database files on disk, by file.", ["file"]);
  const syncs = r.counter("gatehouse_wal_syncs_total", "WAL fdatasyncs run by group commit; each covers every write committed before it started.");
  const holds = r.counter("gatehouse_write_holds_total", "Times request writes were held for the webhook delivery loop to catch up.");
  let seen = { syncs: 0, holds: 0 };
  r.onCollect(() => {
    const gc = ctx.groupCommit;
    syncs.inc(undefined, gc.syncCount - seen.syncs);
    holds.inc(undefined, gc.holdCount - seen.holds);
    seen = { syncs: gc.syncCount, holds: gc.holdCount };
    const mem = process.memoryUsage();
    rss.set(undefined, mem.rss);
    heap.set(undefined, mem.heapUsed);
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
