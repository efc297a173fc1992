/**
 * `npm run build` → dist/gatehouse: one self-contained executable (Bun runtime + bundled code +
 * embedded migrations and docs assets) for this machine. `npm run release` (scripts/release.ts)
 * builds the same way for every platform. The executable never auto-loads a stray .env or
 * bunfig.toml from the directory it is started in: configuration comes only from --env-file and
 * the environment.
 *
 *   bun scripts/build.ts [--outfile PATH]
 *
 * Written to a temporary name and renamed, so a concurrent reader never sees half a binary.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { gitCommit, type BuildStamp } from "../src/version";

const root = join(import.meta.dir, "..");

export type BuildOptions = {
  outfile?: string;
  /** Cross-compilation: Bun's target name and the Bun runtime executable for that platform. */
  cross?: { bunTarget: Bun.Build.CompileTarget; runtime: string };
  /** What the executable reports about itself (default: this checkout, now, this machine's platform). */
  stamp?: BuildStamp;
};

/** This machine's platform in release naming (linux-x64, darwin-arm64, windows-x64…). */
export function hostTarget(): string {
  return `${process.platform === "win32" ? "windows" : process.platform}-${process.arch}`;
}

/**
 * The stamp `gatehouse version`, /version and the `starting` log line report. The build date is
 * SOURCE_DATE_EPOCH when set (reproducible-builds convention), otherwise now.
 */
export function buildStamp(target: string): BuildStamp {
  const epoch = Number(process.env.SOURCE_DATE_EPOCH);
  const date = Number.isFinite(epoch) && process.env.SOURCE_DATE_EPOCH ? new Date(epoch * 1000) : new Date();
  return { commit: gitCommit(root) ?? "unknown", builtAt: date.toISOString().replace(/\.\d{3}Z$/, "Z"), target };
}

export async function buildExecutable(outfileOrOptions: string | BuildOptions = {}): Promise<string> {
  const opts = typeof outfileOrOptions === "string" ? { outfile: outfileOrOptions } : outfileOrOptions;
  const target = resolve(opts.outfile ?? join(root, "dist/gatehouse"));
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}-${Date.now()}`;
  try {
    const result = await Bun.build({
      entrypoints: [join(root, "src/main.ts")],
      compile: {
        outfile: temporary,
        ...(opts.cross ? { target: opts.cross.bunTarget, executablePath: opts.cross.runtime } : {}),
        autoloadDotenv: false,
        autoloadBunfig: false,
        autoloadTsconfig: false,
        autoloadPackageJson: false,
      },
      format: "esm",
      // Identifiers stay readable so a logged stack trace still names our functions (minifying
      // them too would save 0.3 MB of ~119).
      minify: { whitespace: true, syntax: true, identifiers: false },
      // Embedded in the executable (+0.9 MB): stack traces name src/…ts:line instead of a
      // position in one minified line.
      sourcemap: "linked",
      // Precompiled bytecode: the executable skips parsing its JavaScript at start.
      bytecode: true,
      define: {
        "process.env.NODE_ENV": JSON.stringify("production"),
        GATEHOUSE_BUILD: JSON.stringify(opts.stamp ?? buildStamp(hostTarget())),
      },
    });
    if (!result.success) throw new Error(`build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
    // Windows targets get ".exe" appended by Bun.
    const written = existsSync(temporary) ? temporary : `${temporary}.exe`;
    renameSync(written, target);
    return target;
  } finally {
    // The map is inside the executable; Bun also writes a copy beside it.
    for (const leftover of [temporary, `${temporary}.exe`, `${temporary}.map`, `${temporary}.exe.map`]) rmSync(leftover, { force: true });
  }
}

if (import.meta.main) {
  const i = process.argv.indexOf("--outfile");
  const started = performance.now();
  const out = await buildExecutable(i >= 0 ? process.argv[i + 1] : undefined);
  console.log(`built ${out} in ${Math.round(performance.now() - started)} ms`);
}
