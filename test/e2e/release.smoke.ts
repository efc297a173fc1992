/**
 * Smoke test of what `npm run release` left in dist/release (run it first):
 *
 *   npm run release && npx bun test ./test/e2e/release.smoke.ts
 *
 * Not part of `npm test` (the file name keeps bun from finding it): it needs the eight release
 * executables and qemu-user with the arm64 C library (.ci/run installs both).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { SCHEMA_VERSION } from "../../src/version";
import type { Manifest } from "../../scripts/release";
import { fetchRuntime, pinnedBunVersion, RELEASE_TARGETS, sha256File } from "../../scripts/release-targets";
import { ROOT, startBinary } from "./binary";
import { elfSection, executableFormat, type ExecutableFormat } from "../release/executable-format";

const RELEASE = join(ROOT, "dist/release");
if (!existsSync(join(RELEASE, "manifest.json"))) throw new Error(`${RELEASE} has no manifest.json: run \`npm run release\` first`);
const manifest = JSON.parse(readFileSync(join(RELEASE, "manifest.json"), "utf8")) as Manifest;
const artifact = (target: string) => manifest.artifacts.find((a) => a.target === target)!;
const scratch = mkdtempSync(join(tmpdir(), "gatehouse-release-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

test("every target is built, named gatehouse-<version>-<target>, stamped with one commit and date", () => {
  expect(manifest.version).toBe(pkg.version);
  expect(manifest.bun).toBe(pinnedBunVersion());
  expect(manifest.artifacts.map((a) => a.target)).toEqual(RELEASE_TARGETS.map((t) => t.name));
  for (const a of manifest.artifacts) {
    expect(a.file).toBe(`gatehouse-${pkg.version}-${a.target}${a.target.startsWith("windows") ? ".exe" : ""}`);
    expect(statSync(join(RELEASE, a.file)).size).toBe(a.bytes);
  }
  expect(manifest.artifacts.filter((a) => a.evaluationOnly).map((a) => a.target)).toEqual(["darwin-arm64", "darwin-x64", "windows-x64"]);
});

test("SHA256SUMS lists every other file of the release with its digest, in sha256sum's format", () => {
  const lines = readFileSync(join(RELEASE, "SHA256SUMS"), "utf8").trimEnd().split("\n");
  const listed = lines.map((l) => /^([0-9a-f]{64}) {2}(\S+)$/.exec(l)!).map(([, hash, file]) => ({ file: file!, hash: hash! }));
  expect(listed.map((l) => l.file).sort()).toEqual(readdirSync(RELEASE).filter((f) => f !== "SHA256SUMS").sort());
  for (const a of manifest.artifacts) expect(listed).toContainEqual({ file: a.file, hash: a.sha256 });
  // Checked with the tool admins use.
  const check = Bun.spawnSync(["sha256sum", "--check", "--strict", "SHA256SUMS"], { cwd: RELEASE, stdout: "pipe", stderr: "pipe" });
  expect(check.stderr.toString()).toBe("");
  expect(check.stdout.toString().trimEnd().split("\n")).toEqual(listed.map((l) => `${l.file}: OK`));
}, 60_000);

test("RELEASE.md names the version, the commit, every file with its size and digest, and how to verify and install", () => {
  const notes = readFileSync(join(RELEASE, "RELEASE.md"), "utf8");
  expect(notes).toStartWith(`# Gatehouse ${pkg.version}\n`);
  expect(notes).toContain(manifest.commit);
  for (const a of manifest.artifacts) expect(notes).toContain(`| \`${a.file}\` | ${a.target}${a.evaluationOnly ? " (evaluation only)" : ""} | ${(a.bytes / 1048576).toFixed(1)} MiB | \`${a.sha256}\` |`);
  expect(notes).toContain("## What changed");
  expect(notes).toContain("sha256sum -c --ignore-missing SHA256SUMS");
  expect(notes).toContain("sudo sh install.sh");
});

// The platform each file is for, from its headers; for ELF files also that the code is exactly
// the Bun runtime the manifest names (the package checked against its pinned integrity).
const EXPECTED_FORMAT: Record<string, ExecutableFormat> = {
  "linux-x64": { kind: "elf", machine: "x86-64", interpreter: "/lib64/ld-linux-x86-64.so.2" },
  "linux-x64-baseline": { kind: "elf", machine: "x86-64", interpreter: "/lib64/ld-linux-x86-64.so.2" },
  "linux-arm64": { kind: "elf", machine: "aarch64", interpreter: "/lib/ld-linux-aarch64.so.1" },
  "linux-x64-musl": { kind: "elf", machine: "x86-64", interpreter: "/lib/ld-musl-x86_64.so.1" },
  "linux-arm64-musl": { kind: "elf", machine: "aarch64", interpreter: "/lib/ld-musl-aarch64.so.1" },
  "darwin-arm64": { kind: "mach-o", cpu: "arm64" },
  "darwin-x64": { kind: "mach-o", cpu: "x86-64" },
  "windows-x64": { kind: "pe", machine: "x86-64" },
};

describe("each executable is for its platform and embeds the runtime the manifest names", () => {
  const cache = join(ROOT, "node_modules/.cache/gatehouse-release");
  for (const t of RELEASE_TARGETS) {
    test(t.name, () => {
      const a = artifact(t.name);
      const bytes = readFileSync(join(RELEASE, a.file));
      expect(executableFormat(bytes)).toEqual(EXPECTED_FORMAT[t.name]!);
      const runtime = fetchRuntime(t, manifest.bun, cache);
      expect(a.runtime).toEqual({ package: t.runtimePackage, version: manifest.bun, integrity: runtime.integrity, sha256: sha256File(runtime.path) });
      if (executableFormat(bytes).kind === "elf") {
        const code = elfSection(bytes, ".text")!;
        expect(Buffer.compare(code, elfSection(readFileSync(runtime.path), ".text")!)).toBe(0);
      }
    });
  }
});

/**
 * How this machine runs each glibc build. qemu-x86_64 -cpu Nehalem (2008, no AVX/AVX2) traps
 * AVX2 instructions with SIGILL, so the baseline build running there shows it needs no AVX2.
 */
const QEMU_ARM64 = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu"];
const RUNS: { target: string; how: string; prefix: string[] }[] = [
  { target: "linux-x64", how: "natively", prefix: [] },
  { target: "linux-x64-baseline", how: "natively", prefix: [] },
  { target: "linux-x64-baseline", how: "under qemu-x86_64 -cpu Nehalem", prefix: ["qemu-x86_64", "-cpu", "Nehalem"] },
  { target: "linux-arm64", how: "under qemu-aarch64", prefix: QEMU_ARM64 },
];
const ADMIN = "release-smoke-admin-token";

/** A 131-byte static x86-64 Linux program that runs one AVX2 instruction, then exits 0. */
function avx2Probe(): Uint8Array {
  const code = [0xc5, 0xfd, 0xef, 0xc0, 0xb8, 0x3c, 0, 0, 0, 0x31, 0xff, 0x0f, 0x05]; // vpxor ymm0,ymm0,ymm0; mov eax,60; xor edi,edi; syscall
  const base = 0x400000;
  const file = new Uint8Array(64 + 56 + code.length);
  const v = new DataView(file.buffer);
  file.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]); // ELF, 64-bit, little-endian, version 1
  v.setUint16(16, 2, true); // ET_EXEC
  v.setUint16(18, 62, true); // x86-64
  v.setUint32(20, 1, true);
  v.setBigUint64(24, BigInt(base + 120), true); // entry: the code after both headers
  v.setBigUint64(32, 64n, true); // program headers right after this one
  v.setUint16(52, 64, true);
  v.setUint16(54, 56, true);
  v.setUint16(56, 1, true);
  v.setUint32(64, 1, true); // PT_LOAD of the whole file, read + execute
  v.setUint32(68, 5, true);
  v.setBigUint64(80, BigInt(base), true);
  v.setBigUint64(88, BigInt(base), true);
  v.setBigUint64(96, BigInt(file.length), true);
  v.setBigUint64(104, BigInt(file.length), true);
  v.setBigUint64(112, 0x1000n, true);
  file.set(code, 120);
  return file;
}

test("qemu-x86_64 -cpu Nehalem traps AVX2 instructions, so a build that needed them would fail the run below", () => {
  const probe = join(scratch, "avx2-probe");
  writeFileSync(probe, avx2Probe(), { mode: 0o755 });
  const onHaswell = Bun.spawnSync(["qemu-x86_64", "-cpu", "Haswell", probe], { cwd: scratch, stderr: "ignore" });
  expect(onHaswell.exitCode).toBe(0);
  const onNehalem = Bun.spawnSync(["qemu-x86_64", "-cpu", "Nehalem", probe], { cwd: scratch, stderr: "ignore" }); // a core file, if any, lands in scratch
  expect(onNehalem.signalCode ?? onNehalem.exitCode).toBeOneOf(["SIGILL", 132]);
});

describe("each glibc build starts, serves SCIM and the v1 API, and stops cleanly on SIGTERM", () => {
  for (const run of RUNS) {
    test(`${run.target} ${run.how}`, async () => {
      const command = [...run.prefix, join(RELEASE, artifact(run.target).file)];
      const version = Bun.spawnSync([...command, "version"], { stdout: "pipe", stderr: "pipe" });
      expect(version.stdout.toString()).toBe(`gatehouse ${pkg.version} (schema ${SCHEMA_VERSION}, commit ${manifest.commit}, built ${manifest.builtAt}, bun ${manifest.bun}, target ${run.target})\n`);

      const bin = await startBinary({ command, env: { GATEHOUSE_ADMIN_TOKEN: ADMIN }, timeoutMs: 60_000 });
      try {
        const admin = async (path: string, body: unknown) => {
          const r = await fetch(`${bin.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) });
          expect(r.status).toBeLessThan(300);
          return (await r.json()) as { token: string };
        };
        expect((await fetch(`${bin.url}/readyz`)).status).toBe(200);
        expect(((await (await fetch(`${bin.url}/version`)).json()) as { target: string }).target).toBe(run.target);

        const scim = await admin("/api/admin/scim-tokens", { name: "smoke" });
        const created = await fetch(`${bin.url}/scim/v2/Users`, {
          method: "POST",
          headers: { authorization: `Bearer ${scim.token}`, "content-type": "application/scim+json" },
          body: JSON.stringify({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "smoke@example.com", name: { givenName: "Smoke", familyName: "Test" } }),
        });
        expect(created.status).toBe(201);
        expect(((await created.json()) as { userName: string }).userName).toBe("smoke@example.com");

        const api = await admin("/api/admin/api-tokens", { name: "smoke" });
        const project = await fetch(`${bin.url}/api/v1/project`, { method: "POST", headers: { token: api.token, "content-type": "application/json" }, body: JSON.stringify({ title: "Smoke", code: "SMOKE" }) });
        expect(project.status).toBe(200);
        expect(((await project.json()) as { result: { code: string } }).result.code).toBe("SMOKE");
      } finally {
        const logs = () => bin.logs();
        expect(await bin.stop("SIGTERM")).toBe(0);
        expect(logs()).toContain('"msg":"stopped"');
      }
    }, 120_000);
  }
});

describe("install.sh", () => {
  // A scratch root with the files useradd --prefix needs; the host's users are never touched.
  function scratchRoot(name: string): string {
    const root = join(scratch, name);
    mkdirSync(join(root, "etc"), { recursive: true });
    writeFileSync(join(root, "etc/passwd"), "root:x:0:0:root:/root:/bin/sh\n");
    writeFileSync(join(root, "etc/group"), "root:x:0:\n");
    writeFileSync(join(root, "etc/shadow"), "root:*:19000:0:99999:7:::\n");
    writeFileSync(join(root, "etc/gshadow"), "root:*::\n");
    return root;
  }
  const install = (releaseDir: string, destdir: string, args: string[] = []) => {
    const r = Bun.spawnSync(["sh", join(releaseDir, "install.sh"), ...args], { env: { PATH: process.env.PATH ?? "/usr/sbin:/usr/bin:/sbin:/bin", DESTDIR: destdir }, stdout: "pipe", stderr: "pipe" });
    return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
  };
  const mode = (path: string) => (statSync(path).mode & 0o7777).toString(8);
  const hostHasAvx2 = /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "utf8"));
  const hostTarget = process.arch === "arm64" ? "linux-arm64" : hostHasAvx2 ? "linux-x64" : "linux-x64-baseline";

  test("into a scratch root (DESTDIR): checked executable, service user, directories, unit, example env; a re-install keeps the previous binary", () => {
    const root = scratchRoot("destdir");
    const hostUsers = readFileSync("/etc/passwd", "utf8");
    const first = install(RELEASE, root);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toContain(`install.sh: gatehouse-${pkg.version}-${hostTarget}: checksum OK`);
    expect(first.out).toContain(`target ${hostTarget})`); // it ran `version` before installing

    const bin = join(root, "usr/local/bin/gatehouse");
    expect(sha256File(bin)).toBe(artifact(hostTarget).sha256);
    expect(mode(bin)).toBe("755");
    const user = readFileSync(join(root, "etc/passwd"), "utf8").split("\n").find((l) => l.startsWith("gatehouse:"))!.split(":");
    expect(user.slice(5)).toEqual(["/var/lib/gatehouse", "/usr/sbin/nologin"]);
    const gid = Number(readFileSync(join(root, "etc/group"), "utf8").split("\n").find((l) => l.startsWith("gatehouse:"))!.split(":")[2]);
    expect(Number(user[3])).toBe(gid);
    expect(Number(user[2])).toBeLessThan(1000); // a system user

    const etc = join(root, "etc/gatehouse");
    const data = join(root, "var/lib/gatehouse");
    if (process.getuid?.() === 0) {
      expect([statSync(etc).uid, statSync(etc).gid]).toEqual([0, gid]);
      expect([statSync(data).uid, statSync(data).gid]).toEqual([Number(user[2]), gid]);
      expect(statSync(join(etc, "gatehouse.env.example")).gid).toBe(gid);
    }
    expect([mode(etc), mode(data), mode(join(etc, "gatehouse.env.example"))]).toEqual(["750", "750", "640"]);
    expect(readFileSync(join(etc, "gatehouse.env.example"), "utf8")).toBe(readFileSync(join(ROOT, "gatehouse.env.example"), "utf8"));
    const unit = join(root, "etc/systemd/system/gatehouse@.service");
    expect(mode(unit)).toBe("644");
    expect(readFileSync(unit, "utf8")).toBe(readFileSync(join(ROOT, "scripts/gatehouse@.service"), "utf8"));
    expect(readFileSync("/etc/passwd", "utf8")).toBe(hostUsers);

    // An upgrade over an older binary: the old one stays as gatehouse.previous.
    writeFileSync(bin, "older build\n");
    const second = install(RELEASE, root);
    expect(second.code).toBe(0);
    expect(readFileSync(`${bin}.previous`, "utf8")).toBe("older build\n");
    expect(sha256File(bin)).toBe(artifact(hostTarget).sha256);
    expect(readFileSync(join(root, "etc/passwd"), "utf8").match(/^gatehouse:/gm)).toHaveLength(1);
  }, 60_000);

  test("--target and --prefix: another platform's build is installed without starting it; the unit points at the prefix", () => {
    const root = scratchRoot("prefix");
    const r = install(RELEASE, root, ["--target", "linux-arm64", "--prefix", "/opt/gatehouse"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("not trying to start it");
    expect(sha256File(join(root, "opt/gatehouse/bin/gatehouse"))).toBe(artifact("linux-arm64").sha256);
    expect(readFileSync(join(root, "etc/systemd/system/gatehouse@.service"), "utf8")).toContain("ExecStart=/opt/gatehouse/bin/gatehouse serve --env-file /etc/gatehouse/%i.env");
  }, 60_000);

  test("a release copied without file modes (an HTTP download) still installs, and the copy is started before it replaces anything", () => {
    const copy = join(scratch, "no-modes");
    mkdirSync(copy);
    for (const f of [artifact(hostTarget).file, "SHA256SUMS", "install.sh", "gatehouse@.service", "gatehouse.env.example"]) {
      cpSync(join(RELEASE, f), join(copy, f));
      chmodSync(join(copy, f), 0o644);
    }
    const root = scratchRoot("no-modes");
    const r = install(copy, root);
    expect(r.code).toBe(0);
    expect(r.out).toContain(`target ${hostTarget})`);
    expect(mode(join(root, "usr/local/bin/gatehouse"))).toBe("755");
  }, 60_000);

  test("a damaged executable is refused and nothing is installed", () => {
    // A copy of the release with one byte of this machine's build changed.
    const copy = join(scratch, "damaged");
    mkdirSync(copy);
    for (const f of readdirSync(RELEASE)) linkSync(join(RELEASE, f), join(copy, f));
    const file = join(copy, artifact(hostTarget).file);
    rmSync(file);
    cpSync(join(RELEASE, artifact(hostTarget).file), file);
    const bytes = readFileSync(file);
    bytes[bytes.length - 1] ^= 0xff;
    writeFileSync(file, bytes);

    const root = scratchRoot("damaged");
    const r = install(copy, root);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`install.sh: checksum mismatch for ${artifact(hostTarget).file}`);
    expect(existsSync(join(root, "usr"))).toBe(false);
    expect(readFileSync(join(root, "etc/passwd"), "utf8")).not.toContain("gatehouse");
  }, 60_000);
});
