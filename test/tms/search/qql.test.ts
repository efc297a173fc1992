import { expect, test } from "bun:test";
import { foldCaseText } from "../../../src/db/dialect";
import { compileQql } from "../../../src/tms/search/compile";
import { parseQql, QqlError } from "../../../src/tms/search/qql";

test("parses the subset: entity conjunct, and/or/not, parentheses, in, is empty, order by", () => {
  const q = parseQql('Entity = "case" AND (severity in ("critical", \'blocker\') OR NOT title ~ "login") and suite is not empty ORDER BY id DESC');
  expect(q.entity).toBe("case");
  expect(q.order).toEqual({ field: "id", desc: true });
  expect(q.where).toEqual({
    kind: "and",
    left: {
      kind: "or",
      left: { kind: "in", field: "severity", values: ["critical", "blocker"], negate: false },
      right: { kind: "not", expr: { kind: "cmp", field: "title", op: "~", value: "login" } },
    },
    right: { kind: "empty", field: "suite", negate: true },
  });
});

test("compiles to bound SQL over whitelisted columns, scoped to the workspace", () => {
  const c = compileQql(parseQql('entity = "case" and project = "DEMO" and status = "Actual" and title ~ "50%_off" and id >= 3'), 7);
  const lower = foldCaseText; // the engine's ASCII fold: lower(x) on SQLite, lower(x::text COLLATE "C") on PostgreSQL
  expect(c.where).toBe(`e.deleted IS NULL AND p.workspace_id = ? AND (((${lower("p.code")} = ? AND ${lower("e.status")} = ?) AND ${lower("e.title")} LIKE ? ESCAPE '\\') AND e.number >= ?)`);
  expect(c.params).toEqual([7, "demo", "actual", "%50\\%\\_off%", 3]);
  // A value never becomes SQL text.
  const evil = compileQql(parseQql(`entity = "run" and title = "x'); DROP TABLE tms_runs; --"`), 1);
  expect(evil.where).not.toContain("DROP");
  expect(evil.params).toContain("x'); drop table tms_runs; --");
});

test("enum values match labels and slugs", () => {
  expect(compileQql(parseQql('entity = "result" and status = "In progress"'), 1).params).toEqual([1, "in_progress"]);
});

test("bad queries are errors naming the problem", () => {
  const bad = (q: string) => {
    try {
      compileQql(parseQql(q), 1);
    } catch (e) {
      expect(e).toBeInstanceOf(QqlError);
      return (e as Error).message;
    }
    throw new Error(`accepted: ${q}`);
  };
  expect(bad('title = "x"')).toContain("entity =");
  expect(bad('entity = "requirement"')).toContain('Unknown entity "requirement"');
  expect(bad('entity = "case" and colour = "red"')).toContain('Unknown field "colour"');
  expect(bad('entity = "case" and id = "abc"')).toContain('"id" takes a number');
  expect(bad('entity = "case" and id ~ 3')).toContain("cannot be matched");
  expect(bad('entity = "case" and title = "unterminated')).toContain("Unterminated string");
  expect(bad('entity = "case" and (title = "x"')).toContain('Expected ")"');
  expect(bad('entity = "case" and title == "x"')).toContain("Expected a value");
  expect(bad('entity = "case" ' + 'and id = 1 '.repeat(60))).toContain("at most 50 comparisons");
  expect(bad("x".repeat(2001))).toContain("at most 2000 characters");
});

test("run status: Qase's outcome words compile to the completed status and the cases' latest results; stored names and numbers still work; other operators are refused", () => {
  const failed = compileQql(parseQql('entity = "run" and status = "failed"'), 1);
  expect(failed.where).toContain("(e.status = 'completed' AND EXISTS (SELECT 1 FROM tms_run_cases rc WHERE rc.run_id = e.id AND rc.status IN ('failed', 'blocked', 'invalid')))");
  expect(failed.params).toEqual([1]);
  const mixed = compileQql(parseQql('entity = "run" and status not in ["passed", "In progress", 2]'), 1);
  expect(mixed.where).toContain("(NOT ((e.status = 'completed' AND NOT EXISTS");
  expect(mixed.params).toEqual([1, "active", "aborted"]);
  expect(() => compileQql(parseQql('entity = "run" and status = "finished"'), 1)).toThrow("in_progress, passed, failed or aborted");
  expect(() => compileQql(parseQql('entity = "run" and status ~ "pass"'), 1)).toThrow("compared with =, != or in");
});

test("lists take Qase's brackets as well as parentheses, closed by their own kind", () => {
  const bracketed = compileQql(parseQql('entity = "case" and id in [1, 2, 10]'), 1);
  const parenthesized = compileQql(parseQql('entity = "case" and id in (1, 2, 10)'), 1);
  expect(bracketed).toEqual(parenthesized);
  expect(() => parseQql('entity = "case" and id in [1, 2)')).toThrow('Expected "]"');
});

test("functions, custom fields and `is true`: parsed into the tree; their values are bound, never SQL text", () => {
  const text = 'entity = "case" and cf["Sprint Goal"] = "x\'--" and created >= now("-7d") and isManual is true and author = currentUser()';
  const q = parseQql(text);
  expect(q.where).toEqual({
    kind: "and",
    left: {
      kind: "and",
      left: { kind: "and", left: { kind: "cmp", field: "cf[Sprint Goal]", op: "=", value: "x'--" }, right: { kind: "cmp", field: "created", op: ">=", value: { call: "now", arg: "-7d", pos: text.indexOf("now(") } } },
      right: { kind: "cmp", field: "ismanual", op: "=", value: true },
    },
    right: { kind: "cmp", field: "author", op: "=", value: { call: "currentuser", arg: null, pos: text.indexOf("currentUser") } },
  });
  const c = compileQql(q, 3, {
    userId: 42, now: new Date(Date.UTC(2026, 0, 14)),
    customFields: new Map([["sprint goal", [{ id: 9, type: "string", options: null }]]]),
  });
  expect(c.params).toEqual([3, 9, "x'--", "2026-01-07T00:00:00.000000Z", 1, 42]);
  expect(c.where).not.toContain("x'");
  expect(c.where).not.toContain("2026");
  expect(() => parseQql('entity = "case" and created > now(-7d)')).toThrow("Unexpected character");
  expect(() => parseQql('entity = "case" and cf = "x"')).not.toThrow(); // a field named cf, unknown to the compiler
  expect(() => parseQql('entity = "case" and cf[1] = "x"')).toThrow('cf["Title"]');
  expect(() => parseQql('entity = now()')).toThrow("entity takes a name in quotes");
});
