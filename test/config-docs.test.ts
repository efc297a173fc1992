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

test("README.md documents every key with its default", () => {
  const doc = readFileSync(join(ROOT, "README.md"), "utf8");
  for (const k of KEYS) {
    const row = doc.split("\n").find((l) => l.startsWith(`| \`${k.key}\``));
    expect(row, `${k.key} missing from the configuration table`).toBeDefined();
    expect(row).toContain(k.default === "" ? "(empty)" : `\`${k.default}\``);
  }
});

test("README.md carries the event table generated from the webhook catalog", async () => {
  const { renderEventTable } = await import("../scripts/event-table");
  const doc = readFileSync(join(ROOT, "README.md"), "utf8");
  expect(doc).toContain(renderEventTable());
});

test("README.md starts with the two set-up commands, with npm ci (npm install may rewrite the lock file and every build then says -dirty)", () => {
  const doc = readFileSync(join(ROOT, "README.md"), "utf8");
  const firstBlock = doc.slice(doc.indexOf("```sh"), doc.indexOf("```", doc.indexOf("```sh") + 5));
  expect(firstBlock).toContain("npm ci && npm start");
  expect(firstBlock).toContain("npm ci && npm test");
  expect(doc).not.toMatch(/^npm install\b/m);
});
