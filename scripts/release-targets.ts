/**
 * The platforms a release ships, and where each one's Bun runtime comes from.
 *
 * `bun build --compile --target=…` would download the runtime from registry.npmjs.org itself
 * (hard-wired URL, no proxy or mirror settings, integrity not pinned). Instead the release asks
 * the npm client for the runtime package (`npm pack @oven/bun-…@<bun version>`: the configured
 * registry, proxy and cache), checks the tarball against an integrity pinned in this repository,
 * and hands the executable inside to Bun (`compile.executablePath`).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import lock from "../package-lock.json" with { type: "json" };

export type ReleaseTarget = {
  /** Release name: the file is gatehouse-<version>-<name>. */
  name: string;
  bunTarget: Bun.Build.CompileTarget;
  /** npm package holding the Bun runtime for the platform. */
  runtimePackage: string;
  /** Runtime executable inside the package. */
  runtimeFile: string;
  /** macOS and Windows builds compile, but nobody runs a production instance on them here. */
  evaluationOnly: boolean;
  /**
   * Integrity of the runtime package, for packages package-lock.json does not list (the `bun`
   * package lists every platform except the baseline ones). Must match the pinned Bun version.
   */
  pinned?: { version: string; integrity: string };
};

export const RELEASE_TARGETS: ReleaseTarget[] = [
  { name: "linux-x64", bunTarget: "bun-linux-x64", runtimePackage: "@oven/bun-linux-x64", runtimeFile: "bin/bun", evaluationOnly: false },
  {
    name: "linux-x64-baseline",
    bunTarget: "bun-linux-x64-baseline",
    runtimePackage: "@oven/bun-linux-x64-baseline",
    runtimeFile: "bin/bun",
    evaluationOnly: false,
    pinned: { version: "1.4.5", integrity: "sha512-s8yMwYcFnnrA178gji0gZbkE2WVDej/Ti1x770oPfihxyRxSMNhGhiAQNXV53aDeraZxksdvKV/RAdQBCd0qPA==" },
  },
  { name: "linux-arm64", bunTarget: "bun-linux-arm64", runtimePackage: "@oven/bun-linux-aarch64", runtimeFile: "bin/bun", evaluationOnly: false },
  { name: "linux-x64-musl", bunTarget: "bun-linux-x64-musl", runtimePackage: "@oven/bun-linux-x64-musl", runtimeFile: "bin/bun", evaluationOnly: false },
  { name: "linux-arm64-musl", bunTarget: "bun-linux-arm64-musl", runtimePackage: "@oven/bun-linux-aarch64-musl", runtimeFile: "bin/bun", evaluationOnly: false },
  { name: "darwin-arm64", bunTarget: "bun-darwin-arm64", runtimePackage: "@oven/bun-darwin-aarch64", runtimeFile: "bin/bun", evaluationOnly: true },
  { name: "darwin-x64", bunTarget: "bun-darwin-x64", runtimePackage: "@oven/bun-darwin-x64", runtimeFile: "bin/bun", evaluationOnly: true },
  { name: "windows-x64", bunTarget: "bun-windows-x64", runtimePackage: "@oven/bun-windows-x64", runtimeFile: "bin/bun.exe", evaluationOnly: true },
];

/** The Bun version the release must embed: the pinned devDependency, which also runs the build (bytecode is per version). */
export function pinnedBunVersion(): string {
  const bun = (lock.packages as Record<string, { version?: string }>)["node_modules/bun"];
  if (!bun?.version) throw new Error("package-lock.json has no node_modules/bun entry");
  return bun.version;
}

/** The integrity a runtime package must have: from package-lock.json, else pinned above. */
export function expectedIntegrity(t: ReleaseTarget, bunVersion: string): string {
  const locked = (lock.packages as Record<string, { version?: string; integrity?: string }>)[`node_modules/${t.runtimePackage}`];
  if (locked?.version === bunVersion && locked.integrity) return locked.integrity;
  if (t.pinned?.version === bunVersion) return t.pinned.integrity;
  throw new Error(
    `no pinned integrity for ${t.runtimePackage}@${bunVersion}: set \`pinned\` for ${t.name} in scripts/release-targets.ts ` +
      `to { version: "${bunVersion}", integrity: <npm view ${t.runtimePackage}@${bunVersion} dist.integrity> }`,
  );
}

/** What `npm pack --json` reports of one package. */
type PackInfo = { filename: string; integrity: string };

export type Runtime = { path: string; package: string; version: string; integrity: string };

/**
 * The target's Bun runtime executable, fetched with the npm client and unpacked once into
 * `cacheDir` (node_modules/.cache by default, so `npm ci` starts clean; npm's own cache still
 * saves the download).
 */
export function fetchRuntime(t: ReleaseTarget, bunVersion: string, cacheDir: string): Runtime {
  const integrity = expectedIntegrity(t, bunVersion);
  const dir = join(cacheDir, `${t.runtimePackage.replace("/", "+")}-${bunVersion}`);
  const path = join(dir, t.runtimeFile);
  const runtime = { path, package: t.runtimePackage, version: bunVersion, integrity };
  if (existsSync(path)) return runtime;

  const scratch = `${dir}.tmp-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  try {
    const spec = `${t.runtimePackage}@${bunVersion}`;
    // npm verifies the download against the registry's integrity; we compare that with the pin.
    const packed = run(["npm", "pack", spec, "--json", "--pack-destination", scratch], scratch);
    // npm ≤ 11 prints an array of packed packages, npm 12 an object keyed by package name (npm 12
    // comes first on `npm run`'s PATH when a devDependency, such as @qase/mcp-server, depends on it)
    const parsed = JSON.parse(packed) as PackInfo[] | Record<string, PackInfo>;
    const [info] = Array.isArray(parsed) ? parsed : Object.values(parsed);
    if (!info) throw new Error(`npm pack ${spec} reported nothing`);
    if (info.integrity !== integrity) throw new Error(`${spec}: integrity ${info.integrity} differs from the pinned ${integrity}; refusing to build with it`);
    run(["tar", "-xzf", info.filename, "--strip-components=1", `package/${t.runtimeFile}`], scratch);
    rmSync(join(scratch, info.filename));
    rmSync(dir, { recursive: true, force: true });
    renameSync(scratch, dir);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  if (!existsSync(path)) throw new Error(`${t.runtimePackage}@${bunVersion} has no ${t.runtimeFile}`);
  return runtime;
}

function run(cmd: string[], cwd: string): string {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed (exit ${r.exitCode}):\n${r.stderr.toString()}`);
  return r.stdout.toString();
}

/** SHA-256 of a file, hex. */
export function sha256File(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}
