/**
 * `npm run release` → dist/release/: one executable per platform (gatehouse-<version>-<target>),
 * install.sh, the systemd unit, the example env file, manifest.json (what each file is and which
 * runtime it embeds), SHA256SUMS over all of them, and RELEASE.md.
 *
 *   bun scripts/release.ts [--targets linux-x64,linux-arm64] [--out DIR]
 *
 * Offline except for the Bun runtimes, which come from the npm registry through the npm client
 * (scripts/release-targets.ts).
 */
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { buildExecutable, buildStamp } from "./build";
import { fetchRuntime, pinnedBunVersion, RELEASE_TARGETS, sha256File, type ReleaseTarget } from "./release-targets";

const root = join(import.meta.dir, "..");

export type ManifestArtifact = {
  file: string;
  target: string;
  bunTarget: string;
  evaluationOnly: boolean;
  bytes: number;
  sha256: string;
  runtime: { package: string; version: string; integrity: string; sha256: string };
};
export type Manifest = { version: string; commit: string; builtAt: string; bun: string; artifacts: ManifestArtifact[] };

export function artifactName(version: string, t: ReleaseTarget): string {
  return `gatehouse-${version}-${t.name}${t.name.startsWith("windows-") ? ".exe" : ""}`;
}

/** The CHANGELOG.md section of `version` (its "## <version>" heading up to the next "## "). */
export function changelogSection(changelog: string, version: string): string {
  const lines = changelog.split("\n");
  const start = lines.findIndex((l) => l.trim() === `## ${version}` || l.startsWith(`## ${version} `));
  if (start < 0) throw new Error(`CHANGELOG.md has no "## ${version}" section: write what changed before releasing`);
  const end = lines.findIndex((l, i) => i > start && l.startsWith("## "));
  return lines.slice(start + 1, end < 0 ? undefined : end).join("\n").trim();
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

export function releaseNotes(m: Manifest, changes: string): string {
  const rows = m.artifacts.map((a) => `| \`${a.file}\` | ${a.target}${a.evaluationOnly ? " (evaluation only)" : ""} | ${mib(a.bytes)} | \`${a.sha256}\` |`);
  return `# Gatehouse ${m.version}

Commit \`${m.commit}\`, built ${m.builtAt} with Bun ${m.bun}.

## What changed

${changes}

## Files

| File | Platform | Size | SHA-256 |
|---|---|---:|---|
${rows.join("\n")}

Also here: \`install.sh\`, \`gatehouse@.service\` (systemd template unit), \`gatehouse.env.example\`,
\`manifest.json\` (each file's target and the Bun runtime it embeds, with that package's npm
integrity), \`SHA256SUMS\`.

Which one: **linux-x64** for x86-64 servers with AVX2 (Intel Haswell / AMD Excavator, 2013 on);
**linux-x64-baseline** for older CPUs and virtual CPU models without AVX2 (the other one dies with
"Illegal instruction"); **linux-arm64** for 64-bit ARM; the **-musl** builds for Alpine
(\`apk add libstdc++\` first). The macOS and Windows builds are for evaluation only: they are
compiled, not tested, and there is no service setup for them.

## Verify

\`\`\`sh
sha256sum -c --ignore-missing SHA256SUMS      # every file you copied: OK
./gatehouse-${m.version}-linux-x64 version     # gatehouse ${m.version} (commit ${m.commit}, …, target linux-x64)
\`\`\`

## Install (Linux, systemd; nothing is downloaded)

\`\`\`sh
sudo sh install.sh            # picks the build for this machine, checks its checksum, installs
                              # /usr/local/bin/gatehouse, the gatehouse user, /etc/gatehouse,
                              # /var/lib/gatehouse and the systemd unit
sudo install -m 0640 -g gatehouse /etc/gatehouse/gatehouse.env.example /etc/gatehouse/acme.env   # then edit
sudo systemctl enable --now gatehouse@acme
\`\`\`

Upgrading: back up first (\`gatehouse backup\`), run \`install.sh\` (the previous binary is kept as
\`gatehouse.previous\`), restart; migrations apply at start. An older binary refuses (exit 2) a
database a newer one migrated: roll back by restoring the backup with the previous binary. The
README's *Upgrade* section has the commands.
`;
}

export async function buildRelease(opts: { outDir?: string; targets?: string[] } = {}): Promise<Manifest> {
  const outDir = resolve(opts.outDir ?? join(root, "dist/release"));
  const bunVersion = pinnedBunVersion();
  if (Bun.version !== bunVersion) throw new Error(`the build runs on Bun ${Bun.version} but package-lock.json pins ${bunVersion}: run it with npm run release`);
  const targets = opts.targets ? opts.targets.map((n) => RELEASE_TARGETS.find((t) => t.name === n) ?? fail(`unknown target ${n}`)) : RELEASE_TARGETS;
  const changes = changelogSection(readFileSync(join(root, "CHANGELOG.md"), "utf8"), pkg.version);
  const cacheDir = join(root, "node_modules/.cache/gatehouse-release");

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const stamp = buildStamp("");
  if (stamp.commit.endsWith("-dirty")) console.warn(`warning: tracked files differ from ${stamp.commit.replace("-dirty", "")}; the executables say ${stamp.commit}`);
  const artifacts: ManifestArtifact[] = [];
  for (const t of targets) {
    const started = performance.now();
    const runtime = fetchRuntime(t, bunVersion, cacheDir);
    const file = artifactName(pkg.version, t);
    const out = await buildExecutable({ outfile: join(outDir, file), cross: { bunTarget: t.bunTarget, runtime: runtime.path }, stamp: { ...stamp, target: t.name } });
    artifacts.push({
      file,
      target: t.name,
      bunTarget: t.bunTarget,
      evaluationOnly: t.evaluationOnly,
      bytes: statSync(out).size,
      sha256: sha256File(out),
      runtime: { package: runtime.package, version: runtime.version, integrity: runtime.integrity, sha256: sha256File(runtime.path) },
    });
    console.log(`${file}: ${mib(statSync(out).size)} in ${Math.round(performance.now() - started)} ms`);
  }

  const manifest: Manifest = { version: pkg.version, commit: stamp.commit, builtAt: stamp.builtAt, bun: bunVersion, artifacts };
  const install = readFileSync(join(root, "scripts/install.sh"), "utf8").replace("@VERSION@", pkg.version);
  writeFileSync(join(outDir, "install.sh"), install);
  chmodSync(join(outDir, "install.sh"), 0o755);
  copyFileSync(join(root, "scripts/gatehouse@.service"), join(outDir, "gatehouse@.service"));
  copyFileSync(join(root, "gatehouse.env.example"), join(outDir, "gatehouse.env.example"));
  writeFileSync(join(outDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
  writeFileSync(join(outDir, "RELEASE.md"), releaseNotes(manifest, changes));

  const summed = [...artifacts.map((a) => a.file), "install.sh", "gatehouse@.service", "gatehouse.env.example", "manifest.json", "RELEASE.md"];
  // sha256sum's format: "<hex>  <name>" (two spaces: text mode, which is binary-safe on Linux).
  writeFileSync(join(outDir, "SHA256SUMS"), summed.map((f) => `${sha256File(join(outDir, f))}  ${basename(f)}\n`).join(""));
  return manifest;
}

function fail(message: string): never {
  throw new Error(message);
}

if (import.meta.main) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const started = performance.now();
  const manifest = await buildRelease({ outDir: arg("--out"), targets: arg("--targets")?.split(",") });
  console.log(`dist/release: ${manifest.artifacts.length} executables of gatehouse ${manifest.version} (${manifest.commit}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
