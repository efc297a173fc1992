import pkg from "../package.json" with { type: "json" };
import { migrations } from "./db/migrations.generated";

/** The release: package.json's version, which `npm run release` only builds with a CHANGELOG section of its own. */
export const VERSION: string = pkg.version;

/**
 * The database schema this executable migrates to: the number of its newest migration
 * (`0018_…` is schema 18). An executable refuses a database at a higher schema version.
 */
export const SCHEMA_VERSION: number = migrations.length - 1;

/** What a build stamps into the executable (scripts/build.ts defines it; absent when run from source). */
export type BuildStamp = { commit: string; builtAt: string; target: string };

/** Everything an admin or a support engineer needs to tell exactly what runs. */
export type BuildInfo = { version: string; schemaVersion: number; commit: string; builtAt: string | null; bun: string; target: string };

declare const GATEHOUSE_BUILD: BuildStamp | undefined;

let fromSource: BuildInfo | null = null;

/**
 * The stamped build, or — when running from source (`bun src/main.ts`, tests) — the checkout's
 * commit read once from git, no build date, and the host platform marked as source.
 */
export function buildInfo(): BuildInfo {
  if (typeof GATEHOUSE_BUILD !== "undefined") return { version: VERSION, schemaVersion: SCHEMA_VERSION, commit: GATEHOUSE_BUILD.commit, builtAt: GATEHOUSE_BUILD.builtAt, bun: Bun.version, target: GATEHOUSE_BUILD.target };
  return (fromSource ??= { version: VERSION, schemaVersion: SCHEMA_VERSION, commit: gitCommit(import.meta.dir) ?? "unknown", builtAt: null, bun: Bun.version, target: `source (${process.platform}-${process.arch})` });
}

/** Short commit of the checkout holding `dir`, with `-dirty` when tracked files differ from it; null without git. */
export function gitCommit(dir: string): string | null {
  const git = (...args: string[]) => {
    try {
      const r = Bun.spawnSync(["git", ...args], { cwd: dir, stdout: "pipe", stderr: "ignore" });
      return r.exitCode === 0 ? r.stdout.toString().trim() : null;
    } catch {
      return null; // git not installed
    }
  };
  const commit = git("rev-parse", "--short=12", "HEAD");
  if (commit === null) return null;
  const changes = git("status", "--porcelain", "--untracked-files=no");
  return changes ? `${commit}-dirty` : commit;
}

/** One line for `gatehouse version` and support tickets. */
export function describeBuild(b: BuildInfo): string {
  return `gatehouse ${b.version} (schema ${b.schemaVersion}, commit ${b.commit}, built ${b.builtAt ?? "from source"}, bun ${b.bun}, target ${b.target})`;
}
