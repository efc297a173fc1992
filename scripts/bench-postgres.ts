#!/usr/bin/env bun
/**
 * The PostgreSQL column of the benchmarks, with the SQLite column measured in the same run: each
 * benchmark below runs once per engine, SQLite first, each against its own bare baseline measured
 * in the same seconds (the scenario code is the benchmarks' own; `--engine postgres` points them at
 * PostgreSQL). One durable PostgreSQL server (fsync, full_page_writes and synchronous_commit on,
 * started here from Debian's binaries, stopped at the end) serves every PostgreSQL scenario, a
 * database each. Prints markdown.
 *
 *   bun scripts/bench-postgres.ts [--quick] [--only read-path,writes,webhooks]
 *
 *  - read-path (bench-read-path.ts): SCIM `userName eq` lookup, GET by id, page of 1000 full
 *    resources, durable create — Gatehouse/bare ratio per round, wrk, 32 connections; the bare
 *    handler is Bun.serve + one prepared statement through postgres.js (the same pool options and
 *    size) + JSON.stringify.
 *  - writes (bench-writes.ts): durable creates/s, SCIM and v1 cases with 0/1/10 subscriptions,
 *    against a bare insert-per-request server; delivery lag at the maximum rate; create's 2xx →
 *    receipt at a local receiver at a steady 500 creates/s (p50/p99).
 *  - webhooks (bench-webhooks.ts): deliveries/s to a local receiver, 1 and 10 subscriptions,
 *    against a bare fetch loop; commit-to-receipt at 500 events/s in-process.
 * `--quick`: short slices and small sizes (a few minutes); the default sizes take ~25 minutes.
 */
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import { benchPostgres, postgresSettings, settingsLine } from "./bench-postgres-server";

const QUICK = process.argv.includes("--quick");
const ALL = ["read-path", "writes", "webhooks"] as const;
const ONLY = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1]!.split(",") : [...ALL];
for (const name of ONLY)
  if (!(ALL as readonly string[]).includes(name)) {
    console.error(`unknown benchmark "${name}"; choose from ${ALL.join(", ")}`);
    process.exit(2);
  }

/** The same arguments for both engines: both columns are the same workload. */
const ARGS: Record<(typeof ALL)[number], string[]> = QUICK
  ? { "read-path": ["--users", "20000", "--seconds", "1", "--rounds", "3", "--source"], writes: ["--seconds", "3"], webhooks: ["--events", "5000", "--latency-seconds", "5", "--no-memory"] }
  : { "read-path": ["--users", "100000", "--seconds", "5", "--rounds", "3"], writes: ["--seconds", "10"], webhooks: ["--events", "20000", "--latency-seconds", "10", "--no-memory"] };

const load = () => loadavg().map((x) => x.toFixed(1)).join(" ");
const pg = await benchPostgres();
let failed = 0;
try {
  console.log(`# Benchmarks on both engines (bun scripts/bench-postgres.ts ${process.argv.slice(2).join(" ")})\n`);
  console.log(`${new Date().toISOString()}; ${cpus().length} cores (${cpus()[0]?.model ?? "?"}), load average ${load()}; Bun ${Bun.version}.`);
  console.log(`PostgreSQL (a server of its own, its data directory under /tmp on the same disk as SQLite's files): ${settingsLine(await postgresSettings(pg.url))}.\n`);
  for (const name of ONLY)
    for (const engine of ["sqlite", "postgres"] as const) {
      console.log(`\n## bench-${name}, ${engine === "sqlite" ? "SQLite" : "PostgreSQL"} (load average at start ${load()})\n`);
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, `bench-${name}.ts`), "--engine", engine, ...ARGS[name as (typeof ALL)[number]]], {
        env: { ...process.env, BENCH_POSTGRES_URL: pg.url },
        stdout: "inherit",
        stderr: "inherit",
      });
      const code = await proc.exited;
      if (code !== 0) {
        console.error(`bench-${name} --engine ${engine} exited with ${code}`);
        failed++;
      }
    }
  console.log(`\nLoad average at end ${load()}.`);
} finally {
  pg.stop();
}
process.exit(failed ? 1 : 0);
