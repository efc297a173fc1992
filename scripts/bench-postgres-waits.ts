#!/usr/bin/env bun
/**
 * What Gatehouse's PostgreSQL backends wait on while `bench-writes --engine postgres` runs: a
 * durable server of its own (bench-postgres-server.ts, plus `pg_stat_statements`), the benchmark
 * run against it, and every 10 ms one sample of `pg_stat_activity` for Gatehouse's databases (not
 * the bare baseline's). Prints markdown: the backends' states and wait events over the samples
 * (a backend waiting on a lock also names the statement that waits; idle pooled connections are
 * left out: they are in no transaction), then the statements by calls
 * and server time (`pg_stat_statements`: the databases are dropped by then, so it is filtered by
 * text). The arguments go to bench-writes, e.g.
 *
 *   bun scripts/bench-postgres-waits.ts --only scim --seconds 4
 */
import { join } from "node:path";
import postgres from "postgres";
import { benchPostgres } from "./bench-postgres-server";
import { cpuSeconds } from "./process-cpu";

const given = process.argv.slice(2).filter((a) => a !== "--");
const passed = given.length ? given : ["--only", "scim", "--seconds", "4"];
const pg = await benchPostgres(["shared_preload_libraries=pg_stat_statements", "pg_stat_statements.track=all"]);
const admin = postgres(pg.url, { max: 1, onnotice: () => {} });
try {
  await admin`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
  const bench = Bun.spawn([process.execPath, join(import.meta.dir, "bench-writes.ts"), "--engine", "postgres", ...passed], {
    env: { ...process.env, BENCH_POSTGRES_URL: pg.url },
    stdout: "pipe",
    stderr: "inherit",
  });
  const waits = new Map<string, number>();
  /** CPU seconds each of Gatehouse's backends had used when last sampled (the backend's own /proc stat; PostgreSQL runs on this machine). */
  const backendCpu = new Map<number, number>();
  let samples = 0;
  let done = false;
  const report = new Response(bench.stdout).text().finally(() => (done = true));
  while (!done) {
    const all = await admin<{ pid: number; state: string | null; wait: string | null; query: string }[]>`
      SELECT pid, state, wait_event_type || ':' || wait_event AS wait, left(regexp_replace(query, '\\s+', ' ', 'g'), 70) AS query
        FROM pg_stat_activity
       WHERE datname LIKE 'writes\_%' AND datname NOT LIKE 'writes\_bare%' AND backend_type = 'client backend'`;
    for (const r of all) backendCpu.set(r.pid, cpuSeconds(r.pid) ?? backendCpu.get(r.pid) ?? 0);
    const rows = all.filter((r) => r.state !== "idle");
    samples++;
    for (const r of rows) {
      const key = `${r.state ?? "?"} · ${r.wait ?? "on CPU"}${r.wait?.startsWith("Lock:") ? ` · ${r.query}` : ""}`;
      waits.set(key, (waits.get(key) ?? 0) + 1);
    }
    await Bun.sleep(10);
  }
  await bench.exited;
  console.log(await report);
  const total = [...waits.values()].reduce((a, b) => a + b, 0);
  console.log(`\n## Gatehouse's backends, ${samples} samples of pg_stat_activity (10 ms apart, idle connections left out; bench-writes ${passed.join(" ")})\n`);
  console.log("| state · wait event | backend-samples | share |");
  console.log("|---|---:|---:|");
  for (const [k, n] of [...waits].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`| ${k.replaceAll("|", "\\|")} | ${n} | ${((100 * n) / total).toFixed(1)}% |`);
  const statements = await admin<{ calls: string; total_ms: number; mean_ms: number; query: string }[]>`
    SELECT s.calls::text AS calls, s.total_exec_time AS total_ms, s.mean_exec_time AS mean_ms, left(regexp_replace(s.query, '\\s+', ' ', 'g'), 90) AS query
      FROM pg_stat_statements s
     WHERE s.query NOT LIKE '%pg\_stat%' AND s.query NOT LIKE 'INSERT INTO cases (title, created_at)%'
     ORDER BY s.calls DESC LIMIT 20`;
  const [inserts] = await admin<{ calls: number }[]>`SELECT coalesce(sum(calls), 0)::int AS calls FROM pg_stat_statements WHERE query LIKE 'INSERT INTO "tms_cases"%' OR query LIKE 'INSERT INTO tms_cases%'`;
  const cpu = [...backendCpu.values()].reduce((a, b) => a + b, 0);
  console.log(`\nGatehouse's backends used ${cpu.toFixed(2)} s of CPU (their /proc stat, sampled every 10 ms) for ${inserts!.calls} case inserts: ${inserts!.calls ? ((1000 * cpu) / inserts!.calls).toFixed(3) : "—"} ms of PostgreSQL CPU per case (SCIM creates' statements included when they ran).`);
  console.log(`\n## Statements (pg_stat_statements; the bare baseline's INSERT and this script's own left out), by calls\n`);
  console.log("| calls | server ms total | mean ms | statement |");
  console.log("|---:|---:|---:|---|");
  for (const s of statements) console.log(`| ${s.calls} | ${s.total_ms.toFixed(0)} | ${s.mean_ms.toFixed(3)} | \`${s.query.replaceAll("|", "\\|")}\` |`);
} finally {
  await admin.end();
  pg.stop();
}
process.exit(0);
