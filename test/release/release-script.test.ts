import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { artifactName, changelogSection } from "../../scripts/release";
import { expectedIntegrity, pinnedBunVersion, RELEASE_TARGETS } from "../../scripts/release-targets";
import { ROOT } from "../e2e/binary";

const target = (name: string) => RELEASE_TARGETS.find((t) => t.name === name)!;

test("CHANGELOG.md has a section for the version in package.json (the release refuses to build without one)", () => {
  expect(changelogSection(readFileSync(join(ROOT, "CHANGELOG.md"), "utf8"), pkg.version).length).toBeGreaterThan(20);
});

test("the changelog section runs from its heading to the next release's", () => {
  const log = "# Changelog\n\n## 0.3.0 (2027-01-02)\n\n- three\n\n## 0.2.0\n\n- two\n- also two\n\n## 0.1.0\n\n- one\n";
  expect(changelogSection(log, "0.3.0")).toBe("- three");
  expect(changelogSection(log, "0.2.0")).toBe("- two\n- also two");
  expect(changelogSection(log, "0.1.0")).toBe("- one");
  expect(() => changelogSection(log, "0.2")).toThrow('CHANGELOG.md has no "## 0.2" section');
});

test("artifacts are named gatehouse-<version>-<target>, .exe for Windows", () => {
  expect(artifactName("1.2.3", target("linux-arm64"))).toBe("gatehouse-1.2.3-linux-arm64");
  expect(artifactName("1.2.3", target("windows-x64"))).toBe("gatehouse-1.2.3-windows-x64.exe");
});

test("a runtime's integrity comes from package-lock.json, or the pin for the baseline package the lockfile lacks; never from nowhere", () => {
  const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8")).packages;
  const bun = pinnedBunVersion();
  expect(bun).toBe(Bun.version);
  expect(expectedIntegrity(target("linux-arm64"), bun)).toBe(lock["node_modules/@oven/bun-linux-aarch64"].integrity);
  expect(expectedIntegrity(target("linux-x64-baseline"), bun)).toBe(target("linux-x64-baseline").pinned!.integrity);
  // After a Bun upgrade the baseline pin is stale: the release stops and says what to pin.
  expect(() => expectedIntegrity(target("linux-x64-baseline"), "9.9.9")).toThrow("npm view @oven/bun-linux-x64-baseline@9.9.9 dist.integrity");
  expect(() => expectedIntegrity(target("linux-arm64"), "9.9.9")).toThrow("no pinned integrity for @oven/bun-linux-aarch64@9.9.9");
});

test("package.json's version is the newest release in CHANGELOG.md (cutting a release moves both)", () => {
  const headings = readFileSync(join(ROOT, "CHANGELOG.md"), "utf8").split("\n").filter((l) => /^## \d+\.\d+\.\d+/.test(l));
  expect(headings[0]!.split(" ")[1]).toBe(pkg.version);
});
