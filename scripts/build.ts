/**
 * `npm run build` → dist/gatehouse: one self-contained executable (Bun runtime + bundled code +
 * embedded migrations and docs assets). It never auto-loads a stray .env or bunfig.toml from the
 * directory it is started in: configuration comes only from --env-file and the environment.
 *
 *   bun scripts/build.ts [--outfile PATH]
 *
 * Written to a temporary name and renamed, so a concurrent reader never sees half a binary.
 */
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

const root = join(import.meta.dir, "..");

export async function buildExecutable(outfile = join(root, "dist/gatehouse")): Promise<string> {
  const target = resolve(outfile);
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${process.pid}-${Date.now()}`;
  const result = await Bun.build({
    entrypoints: [join(root, "src/main.ts")],
    compile: {
      outfile: temporary,
      autoloadDotenv: false,
      autoloadBunfig: false,
      autoloadTsconfig: false,
      autoloadPackageJson: false,
    },
    format: "esm",
    // Identifiers stay readable so a logged stack trace still names our functions.
    minify: { whitespace: true, syntax: true, identifiers: false },
    // Precompiled bytecode: the executable skips parsing its JavaScript at start.
    bytecode: true,
    define: { "process.env.NODE_ENV": JSON.stringify("production") },
  });
  if (!result.success) {
    rmSync(temporary, { force: true });
    throw new Error(`build failed:\n${result.logs.map((l) => String(l)).join("\n")}`);
  }
  renameSync(temporary, target);
  return target;
}

if (import.meta.main) {
  const i = process.argv.indexOf("--outfile");
  const started = performance.now();
  const out = await buildExecutable(i >= 0 ? process.argv[i + 1] : undefined);
  console.log(`built ${out} in ${Math.round(performance.now() - started)} ms`);
}
