/**
 * Startup benchmark: time from spawning the compiled `dist/gatehouse serve` to the first 200 on
 * /readyz, on a fresh data dir (database created and migrated) and on an existing one (restart).
 * Baseline, measured in the same run with the same build flags: a compiled bare `Bun.serve`
 * hello-world, spawn → first 200. The difference is what Gatehouse itself costs at start.
 *
 *   bun scripts/bench-startup.ts [--runs N]     (default 15 runs per scenario)
 *
 * Prints a markdown table. Target: Gatehouse fresh-start median under 150 ms.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildExecutable } from "./build";

const root = join(import.meta.dir, "..");
const runsArg = process.argv.indexOf("--runs");
const RUNS = runsArg >= 0 ? Number(process.argv[runsArg + 1]) : 15;
const work = join(root, ".bench");
mkdirSync(work, { recursive: true });

function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

/** Spawns `cmd`, polls `http://127.0.0.1:<port><path>` until 200; returns ms from spawn to that 200. */
async function timeToFirst200(cmd: string[], env: Record<string, string>, port: number, path: string): Promise<number> {
  const started = performance.now();
  const proc = Bun.spawn(cmd, { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env }, stdout: "ignore", stderr: "pipe" });
  try {
    for (;;) {
      try {
        const r = await fetch(`http://127.0.0.1:${port}${path}`, { keepalive: false });
        if (r.status === 200) return performance.now() - started;
      } catch {
        /* not listening yet */
      }
      if (proc.exitCode !== null) throw new Error(`exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
      if (performance.now() - started > 10_000) throw new Error("no 200 within 10 s");
      await Bun.sleep(1);
    }
  } finally {
    proc.kill("SIGTERM");
    await proc.exited;
  }
}

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))]!;
  return { median: q(0.5), p90: q(0.9), min: s[0]!, max: s.at(-1)! };
}

// Baseline: the smallest compiled Bun HTTP server, same flags as ours.
const helloSource = join(work, "hello.ts");
writeFileSync(helloSource, `Bun.serve({ hostname: "127.0.0.1", port: Number(process.env.PORT), fetch: () => new Response("ok") });\n`);
const helloBinary = join(work, "hello");
const hello = await Bun.build({
  entrypoints: [helloSource],
  compile: { outfile: helloBinary, autoloadDotenv: false, autoloadBunfig: false },
  format: "esm",
  bytecode: true,
  minify: { whitespace: true, syntax: true, identifiers: false },
});
if (!hello.success) throw new Error(hello.logs.join("\n"));
const gatehouse = await buildExecutable();

const scenarios: { name: string; run: () => Promise<number> }[] = [
  {
    name: "baseline: compiled bare Bun.serve → 200 on /",
    run: () => {
      const port = freePort();
      return timeToFirst200([helloBinary], { PORT: String(port) }, port, "/");
    },
  },
  {
    name: "gatehouse serve, fresh data dir → 200 on /readyz",
    run: async () => {
      const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-"));
      try {
        const port = freePort();
        return await timeToFirst200([gatehouse, "serve"], { GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: String(port), GATEHOUSE_DATA_DIR: join(dir, "data"), GATEHOUSE_LOG_LEVEL: "warn" }, port, "/readyz");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
];
const existing = mkdtempSync(join(tmpdir(), "gatehouse-bench-existing-"));
scenarios.push({
  name: "gatehouse serve, existing data dir (restart) → 200 on /readyz",
  run: () => {
    const port = freePort();
    return timeToFirst200([gatehouse, "serve"], { GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: String(port), GATEHOUSE_DATA_DIR: join(existing, "data"), GATEHOUSE_LOG_LEVEL: "warn" }, port, "/readyz");
  },
});

// One untimed warm-up of each (page cache), then interleaved runs so machine noise spreads evenly.
for (const s of scenarios) await s.run();
const samples = scenarios.map(() => [] as number[]);
for (let i = 0; i < RUNS; i++) for (const [j, s] of scenarios.entries()) samples[j]!.push(await s.run());
rmSync(existing, { recursive: true, force: true });

const fmt = (n: number) => n.toFixed(1);
const baseline = stats(samples[0]!).median;
console.log(`\nStartup, spawn → first 200 (ms), ${RUNS} runs each, ${navigator.hardwareConcurrency} CPUs, Bun ${Bun.version}\n`);
console.log("| scenario | median | p90 | min | max | median − baseline |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const [j, s] of scenarios.entries()) {
  const st = stats(samples[j]!);
  console.log(`| ${s.name} | ${fmt(st.median)} | ${fmt(st.p90)} | ${fmt(st.min)} | ${fmt(st.max)} | ${j === 0 ? "—" : `+${fmt(st.median - baseline)}`} |`);
}
const fresh = stats(samples[1]!).median;
console.log(`\nTarget: fresh start median < 150 ms → ${fresh < 150 ? "met" : "NOT met"} (${fmt(fresh)} ms).`);
