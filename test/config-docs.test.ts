import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { KEYS, parseConfig, parseEnvFile } from "../src/config";

const ROOT = join(import.meta.dir, "..");

test("the sample production env file parses, is valid, and mentions every key", () => {
  const text = readFileSync(join(ROOT, "gatehouse.env.example"), "utf8");
  const parsed = parseConfig(parseEnvFile(text));
  if (!parsed.ok) throw new Error(parsed.errors.join("\n"));
  expect(parsed.config.tlsCertFile).not.toBeNull();
  for (const k of KEYS) expect(text).toContain(k.key);
});

test("docs/foundation.md documents every key with its default", () => {
  const doc = readFileSync(join(ROOT, "docs/foundation.md"), "utf8");
  for (const k of KEYS) {
    const row = doc.split("\n").find((l) => l.startsWith(`| \`${k.key}\``));
    expect(row, `${k.key} missing from the configuration table`).toBeDefined();
    expect(row).toContain(k.default === "" ? "(empty)" : `\`${k.default}\``);
  }
});
