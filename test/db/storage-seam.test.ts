/**
 * The storage seam (docs/architecture.md, "The storage seam"): only `src/db/` knows the engine.
 * Features import no `bun:sqlite`, write no SQL only SQLite speaks (the fragments are in
 * src/db/dialect.ts), never reach a raw connection (`preparedQuery`, `rowsOf` and `execute` run
 * SQL text on whichever connection the handle routes to), and await every query — SQLite's
 * synchronous `.get()/.all()/.run()/.values()` do not exist on PostgreSQL.
 * A second engine then changes `src/db/` and what this test still allows below, nothing else.
 */
import { expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/** What only SQLite (or bun:sqlite) understands, by what to use instead. */
const SQLITE_ONLY: { name: string; pattern: RegExp }[] = [
  { name: "bun:sqlite import (types: src/db/connection.ts)", pattern: /["']bun:sqlite["']/ },
  { name: "drizzle's bun-sqlite driver (src/db/connection.ts)", pattern: /["']drizzle-orm\/bun-sqlite["']/ },
  { name: "SQLite JSON function (src/db/dialect.ts)", pattern: /\bjson_(each|extract|tree|type|array_length|group_array|group_object|set|insert|replace|remove|patch|valid|quote)\s*\(/i },
  { name: "INSERT OR … (onConflictDoNothing / ON CONFLICT DO NOTHING)", pattern: /\bINSERT\s+OR\s+(IGNORE|REPLACE|ABORT|FAIL|ROLLBACK)\b|\bREPLACE\s+INTO\b/i },
  { name: "COLLATE NOCASE (dialect ignoringCase)", pattern: /\bCOLLATE\s+NOCASE\b/i },
  { name: "SQLite change counters (a statement's run result)", pattern: /\b(total_changes|last_insert_rowid)\s*\(|\bchanges\s*\(\s*\)/i },
  { name: "PRAGMA (src/db)", pattern: /\bPRAGMA\b/i },
  { name: "SQLite catalog or VACUUM (src/db)", pattern: /\bsqlite_(master|schema|sequence)\b|\bVACUUM\b/i },
  { name: "rowid (dialect insertionOrder)", pattern: /\b(rowid|ROWID|_rowid_)\b/ },
  { name: "SQLite-only SQL function (dialect includesText, joinedText…)", pattern: /\b(instr|ifnull|strftime|julianday|unixepoch|group_concat)\s*\(|\bGLOB\b/ },
  { name: "bun:sqlite transaction API (immediateTransaction / writeTransaction)", pattern: /\.immediate\s*\(|\bbehavior\s*:\s*["']immediate["']/ },
  { name: "bun:sqlite run result field (RETURNING)", pattern: /\blastInsertRowid\b/ },
  { name: "the raw connection (preparedQuery / rowsOf / execute)", pattern: /\.sqlite\b|["']sqlite["']|\b(clientOf|writerOf|perConnection)\b/ },
  // Both engines' queries are awaited; SQLite's synchronous calls do not exist on PostgreSQL.
  { name: "a synchronous SQLite call (await the query; first(); rowsOf / execute / preparedQuery)", pattern: /\.(get|all|run)\s*\(\s*\)|\.(all|get|run|values)\s*(<[^>]*>)?\s*\(\s*sql`/ },
];

/**
 * Files not yet moved behind the seam, each with who moves it. The list only shrinks: an entry
 * whose file no longer needs it fails too, so it is removed when the file moves.
 */
const NOT_YET_MOVED = new Map<string, string>([
  // Empty: every feature is behind the seam. A file joins only while it is being moved, with its mover.
]);

/**
 * Data steps of the SQLite migrations (src/server/migrate.ts): they repair rows that databases of
 * earlier releases hold, once, and need SQLite's JSON functions to find them cheaply. A PostgreSQL
 * database starts at today's schema (issue 26) and never runs them, so they stay.
 */
const SQLITE_DATA_STEPS = new Map<string, string>([
  ["src/tms/shared/repair-stored-names.ts", "rows stored with Object.prototype names (issue 23)"],
  ["src/directory/refold.ts", "user keys folded by a JavaScript function (NFKC + full case folding), in a BEGIN IMMEDIATE of its own"],
]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(path);
    return /\.(ts|tsx)$/.test(e.name) ? [path] : [];
  });
}

/** The code without its comments (a comment may name what the code must not use). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

function findings(): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const file of sourceFiles(join(ROOT, "src"))) {
    const path = relative(ROOT, file).replaceAll("\\", "/");
    if (path.startsWith("src/db/")) continue;
    const text = code(readFileSync(file, "utf8"));
    const hits = SQLITE_ONLY.filter(({ pattern }) => pattern.test(text)).map(({ name }) => name);
    if (hits.length > 0) out.set(path, hits);
  }
  return out;
}

test("outside src/db, only the files not yet moved speak SQLite", () => {
  const found = findings();
  const unexpected = [...found].filter(([path]) => !NOT_YET_MOVED.has(path) && !SQLITE_DATA_STEPS.has(path)).map(([path, hits]) => `${path}: ${hits.join("; ")}`);
  expect(unexpected).toEqual([]);
});

test("every file still allowed to speak SQLite does (moved files leave the list)", () => {
  const found = findings();
  const stale = [...NOT_YET_MOVED.keys(), ...SQLITE_DATA_STEPS.keys()].filter((path) => !found.has(path));
  expect(stale).toEqual([]);
});

test("the scan sees what it looks for", () => {
  const hits = (text: string) => SQLITE_ONLY.filter(({ pattern }) => pattern.test(code(text))).map(({ name }) => name);
  expect(hits(`import type { Database } from "bun:sqlite";`)).toHaveLength(1);
  expect(hits("sql`x IN (SELECT value FROM json_each(${ids}))`")).toHaveLength(1);
  expect(hits(`db.query("INSERT OR IGNORE INTO t VALUES (1)")`)).toHaveLength(1);
  expect(hits("const c = ctx.sqlite;")).toHaveLength(1);
  expect(hits(`tx.transaction(fn, { behavior: "immediate" })`)).toHaveLength(1);
  expect(hits("db.select().from(users).all()")).toHaveLength(1);
  expect(hits("tx.run(sql`DELETE FROM t`)")).toHaveLength(1);
  expect(hits("reader.all<{ id: number }>(sql`SELECT 1`)")).toHaveLength(1);
  expect(hits("const q = perConnection((c) => c.query(text));")).toHaveLength(1);
  expect(hits("await first(db.select().from(users).where(eq(users.id, id)))")).toEqual([]);
  // comments and URLs are not code
  expect(hits(`// json_extract would scan here\nconst url = "https://x.example/a"; /* PRAGMA */`)).toEqual([]);
});
