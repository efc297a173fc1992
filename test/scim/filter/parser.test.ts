import { describe, expect, test } from "bun:test";
import { ScimError } from "../../../src/scim/errors";
import { parseFilter, parsePatchPath } from "../../../src/scim/filter";

const cmp = (name: string, compare: string, value: unknown, extra: Record<string, unknown> = {}) => ({ op: "compare", attr: { name, ...extra }, compare, value });

function invalid(text: string, scimType = "invalidFilter") {
  try {
    parseFilter(text);
  } catch (e) {
    expect(e).toBeInstanceOf(ScimError);
    expect((e as ScimError).status).toBe(400);
    expect((e as ScimError).scimType).toBe(scimType as never);
    return;
  }
  throw new Error(`parsed but should not: ${text}`);
}

describe("parseFilter", () => {
  test("RFC 7644 §3.4.2.2 examples", () => {
    expect(parseFilter('userName eq "bjensen"')).toEqual(cmp("userName", "eq", "bjensen") as never);
    expect(parseFilter('name.familyName co "O\'Malley"')).toEqual(cmp("name", "co", "O'Malley", { sub: "familyName" }) as never);
    expect(parseFilter('urn:ietf:params:scim:schemas:core:2.0:User:userName sw "J"')).toEqual(
      cmp("userName", "sw", "J", { uri: "urn:ietf:params:scim:schemas:core:2.0:User" }) as never,
    );
    expect(parseFilter("title pr")).toEqual({ op: "present", attr: { name: "title" } });
    expect(parseFilter('meta.lastModified gt "2011-05-13T04:42:34Z"')).toMatchObject({ compare: "gt", attr: { name: "meta", sub: "lastModified" } });
    expect(parseFilter('title pr and userType eq "Employee"')).toMatchObject({ op: "and" });
    expect(parseFilter('title pr or userType eq "Intern"')).toMatchObject({ op: "or" });
    expect(parseFilter('schemas eq "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"')).toMatchObject({ value: "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User" });
    expect(parseFilter('userType eq "Employee" and (emails co "example.com" or emails.value co "example.org")')).toMatchObject({
      op: "and", right: { op: "or", left: { attr: { name: "emails" } }, right: { attr: { name: "emails", sub: "value" } } },
    });
    expect(parseFilter('userType ne "Employee" and not (emails co "example.com" or emails.value co "example.org")')).toMatchObject({
      op: "and", right: { op: "not", filter: { op: "or" } },
    });
    expect(parseFilter('userType eq "Employee" and emails[type eq "work" and value co "@example.com"]')).toMatchObject({
      op: "and", right: { op: "valuePath", attr: { name: "emails" }, filter: { op: "and" } },
    });
    expect(parseFilter('emails[type eq "work" and value co "@example.com"] or ims[type eq "xmpp" and value co "@foo.com"]')).toMatchObject({ op: "or" });
  });

  test("precedence: not > and > or; parentheses override", () => {
    expect(parseFilter('a eq 1 or b eq 2 and c eq 3')).toMatchObject({ op: "or", right: { op: "and" } });
    expect(parseFilter('(a eq 1 or b eq 2) and c eq 3')).toMatchObject({ op: "and", left: { op: "or" } });
    expect(parseFilter('a eq 1 and b eq 2 or c eq 3')).toMatchObject({ op: "or", left: { op: "and" } });
  });

  test("operators, keywords and literals are case-insensitive; values keep their case", () => {
    expect(parseFilter('USERNAME EQ "X" AND Active Eq TRUE')).toMatchObject({ op: "and", left: cmp("USERNAME", "eq", "X"), right: cmp("Active", "eq", true) });
    expect(parseFilter("NOT (title PR)")).toMatchObject({ op: "not" });
    expect(parseFilter("x eq null")).toMatchObject({ value: null });
    expect(parseFilter("x gt -1.5e2")).toMatchObject({ value: -150 });
    expect(parseFilter('x eq "a \\"quoted\\" \\u00e9"')).toMatchObject({ value: 'a "quoted" é' });
  });

  test("string literals: plain ones as written, escaped ones decoded, what JSON forbids refused", () => {
    expect(parseFilter('x eq ""')).toMatchObject({ value: "" });
    expect(parseFilter('x eq "ß@x.example é ☃"')).toMatchObject({ value: "ß@x.example é ☃" });
    expect(parseFilter('x eq "a\\\\b"')).toMatchObject({ value: "a\\b" });
    expect(parseFilter('x eq "\\u0041\\n"')).toMatchObject({ value: "A\n" });
    for (const bad of ['x eq "a\tb"', 'x eq "a\u0000"', 'x eq "\\x41"', 'x eq "\\u00zz"'])
      expect(() => parseFilter(bad)).toThrow(/Malformed string/);
    expect(() => parseFilter('x eq "open')).toThrow(/Unterminated/);
    // an escaped NUL is valid JSON, but no stored value holds one (PostgreSQL's text cannot)
    for (const nul of ['x eq "a\\u0000"', "x eq a\u0000b"]) expect(() => parseFilter(nul)).toThrow(/NUL/);
  });

  test("Entra's unquoted values and extra whitespace", () => {
    expect(parseFilter("externalId eq jyoung")).toEqual(cmp("externalId", "eq", "jyoung") as never);
    expect(parseFilter("userName eq jyoung@contoso.com")).toEqual(cmp("userName", "eq", "jyoung@contoso.com") as never);
    expect(parseFilter('  userName   eq\t"a"  ')).toEqual(cmp("userName", "eq", "a") as never);
    expect(parseFilter("(externalId eq 6e1e-4d)")).toEqual(cmp("externalId", "eq", "6e1e-4d") as never);
  });

  test("malformed filters → 400 invalidFilter", () => {
    for (const f of [
      "", "   ", "userName", "userName eq", 'userName eq "unterminated', 'userName xx "a"', 'userName eq "a" and', '(userName eq "a"',
      'userName eq "a")', 'emails[type eq "work"', 'emails[type eq "work"]]', 'emails[type[value eq "x"] eq "y"]', "and", "not title pr",
      '"quoted" eq "x"', 'userName eq "a" "b"', 'userName eq a"b', "a.b.c eq 1", 'name.familyName[x eq "y"]', "userName eq )", "x eq (", "()",
      `userName eq "${"x".repeat(10_001)}"`, Array.from({ length: 201 }, () => "id pr").join(" or "), "(".repeat(100) + "a pr" + ")".repeat(100), 'userName eq "bad \\q escape"',
    ])
      invalid(f);
  });
});

describe("parsePatchPath", () => {
  test("attribute, sub-attribute, value filter, value filter with sub-attribute", () => {
    expect(parsePatchPath("active")).toEqual({ attr: { name: "active" } });
    expect(parsePatchPath("name.givenName")).toEqual({ attr: { name: "name", sub: "givenName" } });
    expect(parsePatchPath('emails[type eq "work"].value')).toMatchObject({ attr: { name: "emails" }, filter: cmp("type", "eq", "work"), valueSub: "value" });
    expect(parsePatchPath('members[value eq "12"]')).toMatchObject({ attr: { name: "members" }, filter: cmp("value", "eq", "12") });
    expect(parsePatchPath("urn:ietf:params:scim:schemas:core:2.0:User:name.familyName")).toEqual({
      attr: { uri: "urn:ietf:params:scim:schemas:core:2.0:User", name: "name", sub: "familyName" },
    });
  });
  test("bad paths → 400 invalidPath", () => {
    for (const p of ["", "a..b", 'emails[type eq "work"', 'emails[type eq "work"]value', "emails[]", "name.x.y", "a b"]) {
      expect(() => parsePatchPath(p)).toThrow(ScimError);
      try {
        parsePatchPath(p);
      } catch (e) {
        expect((e as ScimError).scimType).toBe("invalidPath");
      }
    }
  });
});

describe("the plain-equality shortcut", () => {
  // `attr eq "plain"` is read by one expression; wrapped in parentheses the same text goes
  // through the parser, which must build the same node — and every text the shortcut
  // declines must still be judged by the parser alone.
  const parsed = (text: string): unknown => {
    try {
      return parseFilter(text);
    } catch (e) {
      return `error ${(e as ScimError).status} ${(e as ScimError).scimType}`;
    }
  };
  const pieces = ["userName", "USERNAME", "externalId", "x-y$", "emails.value", "urn:ietf:params:scim:schemas:core:2.0:User:userName", "1abc", "user name"];
  const ops = ["eq", "EQ", "eQ", "ne", "eqx"];
  const values = ['"ada@example.org"', '""', '"a\\"b"', '"tab\there"', '"x\\u0041"', '"é😀"', "ada", '"unterminated', "true", "null", "12"];
  const spaces = ["", " ", "  ", "\t", "\n", "\r\n"];
  test("gives what the parser gives, on every combination", () => {
    let n = 0;
    for (const a of pieces)
      for (const op of ops)
        for (const v of values)
          for (const s of spaces) {
            const text = `${s}${a}${s || " "}${op} ${v}${s}`;
            const viaParser = parsed(`(${text})`);
            const direct = parsed(text);
            expect({ text, result: direct }).toEqual({ text, result: viaParser });
            n++;
          }
    expect(n).toBeGreaterThan(2000);
  });
});
