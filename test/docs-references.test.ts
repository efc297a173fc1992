/**
 * Docs are contracts, and a contract that points at a file nobody can open misleads: every path
 * of the repository that README.md, docs/ or a comment in src/, scripts/ or test/ names
 * (`src/…`, `test/…`, `docs/…`, `scripts/…`, `migrations/…`) exists. CHANGELOG.md is history and
 * may name what has since moved; globs and placeholders (`*`, `{…}`, `<…>`) are not paths.
 */
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "..");
const documents = ["README.md", "docs/**/*.md", "src/**/*.ts", "src/**/*.mjs", "scripts/**/*.ts", "test/**/*.ts"].flatMap((pattern) => [...new Bun.Glob(pattern).scanSync(ROOT)]);
const CITED = /(?<![\w./@-])((?:src|test|docs|scripts|migrations)\/[\w./@-]+)/g;

test("every repository path the README, the docs and the code's comments name exists", () => {
  const missing: string[] = [];
  const files = documents.filter((f) => !f.endsWith(".d.ts"));
  expect(files.length).toBeGreaterThan(100);
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const match of text.matchAll(CITED)) {
      const path = match[1]!.replace(/[.,:;]+$/, "");
      // a template's continuation (`src/${x}`, `test/<name>`) is not a path
      const next = text[match.index! + match[0].length];
      if (next === "$" || next === "<" || next === "{" || next === "*") continue;
      if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${path}`);
    }
  }
  expect(missing).toEqual([]);
});
