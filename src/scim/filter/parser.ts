/**
 * RFC 7644 §3.4.2.2 filter parser (pure). Grammar, with the usual precedence not > and > or:
 *
 *   FILTER    = attrExp / logExp / valuePath / *1"not" "(" FILTER ")"
 *   valuePath = attrPath "[" valFilter "]"          ; e.g. emails[type eq "work" and value co "@x"]
 *   attrExp   = (attrPath SP "pr") / (attrPath SP compareOp SP compValue)
 *   attrPath  = [URI ":"] ATTRNAME *1subAttr        ; e.g. name.familyName, urn:…:User:userName
 *   compValue = false / null / true / number / string
 *
 * Attribute names, operators and keywords are case-insensitive. Leniencies for real IdPs:
 * any run of whitespace where the RFC says one SP, and an unquoted value (Entra sends
 * `externalId eq jyoung`) is read as a string up to the next whitespace, `)` or `]`.
 * Every failure is a ScimError 400 `invalidFilter` naming the position.
 */
import { ScimError } from "../errors";

export type CompareOp = "eq" | "ne" | "co" | "sw" | "ew" | "gt" | "ge" | "lt" | "le";
export type FilterValue = string | number | boolean | null;

/** An attribute path; `uri` is the schema URN prefix when one was written. Names keep their case. */
export type AttrPath = { uri?: string; name: string; sub?: string };

export type FilterNode =
  | { op: "and" | "or"; left: FilterNode; right: FilterNode }
  | { op: "not"; filter: FilterNode }
  | { op: "compare"; attr: AttrPath; compare: CompareOp; value: FilterValue }
  | { op: "present"; attr: AttrPath }
  /** `attr[filter]`: the inner filter's paths are relative to `attr` (e.g. `type`, `value`). */
  | { op: "valuePath"; attr: AttrPath; filter: FilterNode };

const COMPARE_OPS = new Set<string>(["eq", "ne", "co", "sw", "ew", "gt", "ge", "lt", "le"]);
const MAX_FILTER_LENGTH = 10_000;
const MAX_DEPTH = 64;
/** Comparisons per filter; far above what an IdP sends, far below SQLite's expression-depth limit. */
const MAX_TERMS = 200;

const fail = (detail: string): never => {
  throw new ScimError(400, detail, "invalidFilter");
};

/** Splits `[URI:]name[.sub]` into its parts; validates the ATTRNAME characters. */
export function parseAttrPath(text: string): AttrPath {
  let uri: string | undefined;
  let rest = text;
  if (/^urn:/i.test(text)) {
    const cut = text.lastIndexOf(":");
    uri = text.slice(0, cut);
    rest = text.slice(cut + 1);
    if (!uri || !rest) fail(`Invalid attribute path ${JSON.stringify(text)}`);
  }
  const parts = rest.split(".");
  if (parts.length > 2 || parts.some((p) => !/^[A-Za-z$][\w$-]*$/.test(p))) fail(`Invalid attribute path ${JSON.stringify(text)}`);
  return { ...(uri ? { uri } : {}), name: parts[0]!, ...(parts[1] ? { sub: parts[1] } : {}) };
}

class Parser {
  pos = 0;
  depth = 0;
  terms = 0;
  constructor(readonly s: string) {}

  where() {
    return `at position ${this.pos + 1}`;
  }
  ws() {
    // space, tab, CR, LF (what a URL-decoded filter can carry); a char-code test, not a regex per character
    for (let c = this.s.charCodeAt(this.pos); c === 32 || c === 9 || c === 10 || c === 13; c = this.s.charCodeAt(++this.pos));
  }
  peek() {
    return this.s[this.pos];
  }
  /** Reads a keyword/attribute-path word: letters, digits and `:._$-`. */
  word(): string {
    const start = this.pos;
    while (this.pos < this.s.length && /[\w:.$-]/.test(this.s[this.pos]!)) this.pos++;
    return this.s.slice(start, this.pos);
  }
  /** True (and consumes it) when the next word is `kw` followed by a delimiter. */
  keyword(kw: string, followedBy: RegExp = /[\s(]/): boolean {
    const next = this.s.slice(this.pos, this.pos + kw.length);
    if (next.toLowerCase() !== kw) return false;
    const after = this.s[this.pos + kw.length];
    if (after !== undefined && !followedBy.test(after)) return false;
    this.pos += kw.length;
    return true;
  }
  expect(ch: string) {
    this.ws();
    if (this.peek() !== ch) fail(`Expected "${ch}" ${this.where()}${this.peek() === undefined ? " (end of filter)" : `, found "${this.peek()}"`}`);
    this.pos++;
  }

  parse(): FilterNode {
    const node = this.or(false);
    this.ws();
    if (this.pos < this.s.length) fail(`Unexpected "${this.s.slice(this.pos, this.pos + 20)}" ${this.where()}`);
    return node;
  }

  or(inValuePath: boolean): FilterNode {
    if (++this.depth > MAX_DEPTH) fail("Filter is nested too deeply");
    let left = this.and(inValuePath);
    for (;;) {
      const save = this.pos;
      this.ws();
      if (save !== this.pos && this.keyword("or")) {
        this.ws();
        left = { op: "or", left, right: this.and(inValuePath) };
      } else {
        this.pos = save;
        break;
      }
    }
    this.depth--;
    return left;
  }

  and(inValuePath: boolean): FilterNode {
    let left = this.unary(inValuePath);
    for (;;) {
      const save = this.pos;
      this.ws();
      if (save !== this.pos && this.keyword("and")) {
        this.ws();
        left = { op: "and", left, right: this.unary(inValuePath) };
      } else {
        this.pos = save;
        break;
      }
    }
    return left;
  }

  unary(inValuePath: boolean): FilterNode {
    this.ws();
    if (this.pos >= this.s.length) fail("Filter ended where an expression was expected");
    const save = this.pos;
    if (this.keyword("not")) {
      this.ws();
      if (this.peek() === "(") {
        this.pos++;
        const inner = this.or(inValuePath);
        this.expect(")");
        return { op: "not", filter: inner };
      }
      this.pos = save; // an attribute that happens to be called "not…"
    }
    if (this.peek() === "(") {
      this.pos++;
      const inner = this.or(inValuePath);
      this.expect(")");
      return inner;
    }
    return this.attrExp(inValuePath);
  }

  attrExp(inValuePath: boolean): FilterNode {
    if (++this.terms > MAX_TERMS) fail(`The filter has more than ${MAX_TERMS} comparisons`);
    const start = this.pos;
    const pathText = this.word();
    if (!pathText) fail(`Expected an attribute name ${this.where()}${this.peek() ? `, found "${this.peek()}"` : ""}`);
    const attr = parseAttrPath(pathText);
    if (this.peek() === "[") {
      if (inValuePath) fail(`Value filters cannot be nested ${this.where()}`);
      if (attr.sub) fail(`A value filter applies to a multi-valued attribute, not "${pathText}" (${this.where()})`);
      this.pos++;
      const inner = this.or(true);
      this.expect("]");
      return { op: "valuePath", attr, filter: inner };
    }
    const beforeWs = this.pos;
    this.ws();
    if (this.pos === beforeWs) fail(`Expected an operator after "${pathText}" (position ${start + 1})`);
    const opText = this.word().toLowerCase();
    if (opText === "pr") return { op: "present", attr };
    if (!COMPARE_OPS.has(opText)) fail(`Unknown operator "${opText}" after "${pathText}" ${this.where()}`);
    const afterOp = this.pos;
    this.ws();
    if (this.pos === afterOp || this.pos >= this.s.length) fail(`Expected a value after "${pathText} ${opText}" ${this.where()}`);
    return { op: "compare", attr, compare: opText as CompareOp, value: this.value() };
  }

  value(): FilterValue {
    if (this.peek() === '"') return this.string();
    const start = this.pos;
    while (this.pos < this.s.length && !/[\s()\[\]]/.test(this.s[this.pos]!)) this.pos++;
    const raw = this.s.slice(start, this.pos);
    if (!raw) fail(`Expected a value ${this.where()}`);
    const lower = raw.toLowerCase();
    if (lower === "true") return true;
    if (lower === "false") return false;
    if (lower === "null") return null;
    if (/^-?\d+(\.\d+)?([eE][+-]?\d+)?$/.test(raw)) return Number(raw);
    if (raw.includes('"')) fail(`Malformed value ${JSON.stringify(raw)} ${this.where()}`);
    if (raw.includes("\u0000")) fail(`A value must not contain NUL (U+0000) ${this.where()}`);
    return raw; // unquoted string (Entra: externalId eq jyoung)
  }

  /** A JSON string literal (RFC 7159 escapes). */
  string(): string {
    const start = this.pos;
    this.pos++;
    // A literal without escapes or control characters is its own text; only the others need
    // JSON.parse (which also rejects what JSON forbids). The plain case is every IdP lookup.
    let plain = true;
    while (this.pos < this.s.length) {
      const c = this.s.charCodeAt(this.pos);
      if (c === 92 /* \ */) {
        plain = false;
        this.pos += 2;
      } else if (c === 34 /* " */) {
        this.pos++;
        if (plain) return this.s.slice(start + 1, this.pos - 1);
        let text: string;
        try {
          text = JSON.parse(this.s.slice(start, this.pos)) as string;
        } catch {
          return fail(`Malformed string ${this.s.slice(start, this.pos)} (position ${start + 1})`);
        }
        // No stored value holds one (PostgreSQL's text cannot), so a filter is refused, not run.
        if (text.includes("\u0000")) fail(`A string must not contain NUL (U+0000) (position ${start + 1})`);
        return text;
      } else {
        if (c < 0x20) plain = false;
        this.pos++;
      }
    }
    return fail(`Unterminated string starting at position ${start + 1}`);
  }
}

/**
 * `attribute eq "literal"` with a plain literal (no escapes or control characters): the lookup
 * every IdP sends before it creates or matches a user, read with one expression instead of the
 * parser. The node is the one the parser builds (test/scim/filter/parser.test.ts compares them).
 */
const PLAIN_EQUALITY = /^[ \t\r\n]*([A-Za-z$][\w$-]*)[ \t\r\n]+[eE][qQ][ \t\r\n]+"([^"\\\u0000-\u001f]*)"[ \t\r\n]*$/;

/** Parses a SCIM filter; throws ScimError 400 invalidFilter on anything it cannot read. */
export function parseFilter(text: string): FilterNode {
  if (typeof text !== "string" || text.trim() === "") fail("The filter is empty");
  if (text.length > MAX_FILTER_LENGTH) fail(`The filter is longer than ${MAX_FILTER_LENGTH} characters`);
  const equality = PLAIN_EQUALITY.exec(text);
  if (equality) return { op: "compare", attr: { name: equality[1]! }, compare: "eq", value: equality[2]! };
  return new Parser(text).parse();
}

/**
 * A PATCH `path` (RFC 7644 §3.5.2): `attrPath` or `valuePath [ "." subAttr ]`, e.g.
 * `name.familyName`, `emails[type eq "work"].value`, `members[value eq "12"]`.
 * Errors are 400 `invalidPath`.
 */
export type PatchPath = { attr: AttrPath; filter?: FilterNode; valueSub?: string };

export function parsePatchPath(text: string): PatchPath {
  const bad = (why: string): never => {
    throw new ScimError(400, `Invalid path ${JSON.stringify(text)}: ${why}`, "invalidPath");
  };
  if (typeof text !== "string" || text.trim() === "") bad("empty");
  const s = text.trim();
  const open = s.indexOf("[");
  if (open < 0) {
    try {
      return { attr: parseAttrPath(s) };
    } catch (e) {
      return bad((e as Error).message);
    }
  }
  const close = s.lastIndexOf("]");
  if (close < open) bad("missing ]");
  let attr: AttrPath;
  let filter: FilterNode;
  try {
    attr = parseAttrPath(s.slice(0, open));
  } catch (e) {
    return bad((e as Error).message);
  }
  if (attr.sub) bad("a value filter applies to a multi-valued attribute");
  try {
    filter = parseFilter(s.slice(open + 1, close));
  } catch (e) {
    return bad((e as Error).message);
  }
  const tail = s.slice(close + 1);
  if (tail === "") return { attr, filter };
  if (!/^\.[A-Za-z$][\w$-]*$/.test(tail)) bad(`unexpected "${tail}"`);
  return { attr, filter, valueSub: tail.slice(1) };
}
