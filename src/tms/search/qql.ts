/**
 * A documented subset of QQL (Qase Query Language), parsed into a small tree that compile.ts
 * turns into bound SQL — never evaluated over loaded rows, like the SCIM filter compiler.
 *
 *   query      := condition [ORDER BY field [ASC|DESC]]
 *   condition  := and {OR and}
 *   and        := unary {AND unary}
 *   unary      := NOT unary | "(" condition ")" | comparison
 *   comparison := field op value | field [NOT] IN ("[" | "(") value {"," value} ("]" | ")")
 *               | field IS [NOT] (EMPTY | NULL | TRUE | FALSE)
 *   field      := name | cf "[" "string" "]"
 *   op         := = | != | ~ | !~ | > | >= | < | <=
 *   value      := "string" | 'string' | number | true | false | name "(" ["string" | number] ")"
 *
 * Keywords, field and function names are case-insensitive. One top-level `entity = "…"` conjunct
 * names what is searched. Bounds keep a query cheap: 2000 characters, 50 comparisons, 500 values
 * in a list. A custom field `cf["Title"]` keeps its title's case in the tree (`cf[Title]`): no
 * plain field name holds a bracket.
 */
/** A function call in value position (`now("-7d")`, `currentUser()`), evaluated by the compiler. */
export type Call = { call: string; arg: string | number | null; pos: number };
export type Value = string | number | boolean | Call;
export type Expr =
  | { kind: "and" | "or"; left: Expr; right: Expr }
  | { kind: "not"; expr: Expr }
  | { kind: "cmp"; field: string; op: "=" | "!=" | "~" | "!~" | ">" | ">=" | "<" | "<="; value: Value }
  | { kind: "in"; field: string; values: Value[]; negate: boolean }
  | { kind: "empty"; field: string; negate: boolean };
export type Query = { entity: string; where: Expr | null; order: { field: string; desc: boolean } | null };

export class QqlError extends Error {
  constructor(message: string, readonly position: number) {
    super(`${message} (at character ${position + 1})`);
  }
}

export const QQL_MAX_LENGTH = 2000;
const MAX_COMPARISONS = 50;
const MAX_LIST = 500;

type Token = { type: "word" | "string" | "number" | "op" | "punct"; text: string; pos: number };

function tokenize(input: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i]!;
    if (/\s/.test(c)) { i++; continue; }
    if (c === '"' || c === "'") {
      let j = i + 1, text = "";
      while (j < input.length && input[j] !== c) {
        if (input[j] === "\\" && j + 1 < input.length) j++;
        text += input[j++];
      }
      if (j >= input.length) throw new QqlError("Unterminated string", i);
      tokens.push({ type: "string", text, pos: i });
      i = j + 1;
      continue;
    }
    const op = /^(!=|!~|>=|<=|=|~|>|<)/.exec(input.slice(i));
    if (op) { tokens.push({ type: "op", text: op[0], pos: i }); i += op[0].length; continue; }
    if ("(),[]".includes(c)) { tokens.push({ type: "punct", text: c, pos: i }); i++; continue; }
    const num = /^-?\d+(\.\d+)?(?![A-Za-z_])/.exec(input.slice(i));
    if (num) { tokens.push({ type: "number", text: num[0], pos: i }); i += num[0].length; continue; }
    const word = /^[A-Za-z_][A-Za-z0-9_.]*/.exec(input.slice(i));
    if (word) { tokens.push({ type: "word", text: word[0], pos: i }); i += word[0].length; continue; }
    throw new QqlError(`Unexpected character ${JSON.stringify(c)}`, i);
  }
  return tokens;
}

export function parseQql(input: string): Query {
  if (input.length > QQL_MAX_LENGTH) throw new QqlError(`A query is at most ${QQL_MAX_LENGTH} characters`, QQL_MAX_LENGTH);
  const tokens = tokenize(input);
  let at = 0;
  let comparisons = 0;
  const peek = () => tokens[at];
  const end = () => input.length;
  const isWord = (w: string, t = peek()) => t?.type === "word" && t.text.toLowerCase() === w;
  const expect = (pred: (t: Token) => boolean, what: string): Token => {
    const t = tokens[at];
    if (!t || !pred(t)) throw new QqlError(`Expected ${what}`, t?.pos ?? end());
    at++;
    return t;
  };
  const isPunct = (p: string, t = peek()) => t?.type === "punct" && t.text === p;
  const value = (): Value => {
    const t = expect((t) => t.type === "string" || t.type === "number" || t.type === "word", "a value");
    if (t.type === "number") return Number(t.text);
    if (t.type === "string") return t.text;
    if (isPunct("(")) {
      at++;
      const arg = isPunct(")") ? null : expect((a) => a.type === "string" || a.type === "number", `a string or number argument to ${t.text}()`);
      expect((c) => c.type === "punct" && c.text === ")", '")"');
      return { call: t.text.toLowerCase(), arg: arg === null ? null : arg.type === "number" ? Number(arg.text) : arg.text, pos: t.pos };
    }
    if (/^(true|false)$/i.test(t.text)) return t.text.toLowerCase() === "true";
    throw new QqlError(`Expected a value (a quoted string, a number, true, false or a function such as now())`, t.pos);
  };
  const field = () => {
    const name = expect((t) => t.type === "word", "a field name").text.toLowerCase();
    if (name !== "cf" || !isPunct("[")) return name;
    at++;
    const title = expect((t) => t.type === "string", 'a custom field\'s title in quotes: cf["Title"]').text;
    expect((t) => t.type === "punct" && t.text === "]", '"]"');
    return `cf[${title}]`;
  };

  const comparison = (): Expr => {
    if (++comparisons > MAX_COMPARISONS) throw new QqlError(`A query has at most ${MAX_COMPARISONS} comparisons`, peek()?.pos ?? end());
    const f = field();
    if (isWord("is")) {
      at++;
      const negate = isWord("not") ? (at++, true) : false;
      const what = expect((t) => t.type === "word" && /^(empty|null|true|false)$/i.test(t.text), "EMPTY, TRUE or FALSE").text.toLowerCase();
      // Qase's boolean fields take `is true` / `is false` as well as `= true`.
      if (what === "true" || what === "false") return { kind: "cmp", field: f, op: negate ? "!=" : "=", value: what === "true" };
      return { kind: "empty", field: f, negate };
    }
    const negate = isWord("not") ? (at++, true) : false;
    if (isWord("in")) {
      at++;
      // Qase's QQL writes lists in brackets (`id in [1, 2]`); parentheses are taken too.
      const open = expect((t) => t.type === "punct" && (t.text === "(" || t.text === "["), '"[" or "("').text;
      const close = open === "[" ? "]" : ")";
      const values = [value()];
      while (peek()?.type === "punct" && peek()!.text === ",") {
        at++;
        values.push(value());
        if (values.length > MAX_LIST) throw new QqlError(`A list holds at most ${MAX_LIST} values`, peek()?.pos ?? end());
      }
      expect((t) => t.type === "punct" && t.text === close, `"${close}"`);
      return { kind: "in", field: f, values, negate };
    }
    if (negate) throw new QqlError("Expected IN after NOT", peek()?.pos ?? end());
    const op = expect((t) => t.type === "op", "an operator (=, !=, ~, !~, >, >=, <, <=)").text as Extract<Expr, { kind: "cmp" }>["op"];
    return { kind: "cmp", field: f, op, value: value() };
  };
  const unary = (): Expr => {
    if (isWord("not")) {
      at++;
      return { kind: "not", expr: unary() };
    }
    if (peek()?.type === "punct" && peek()!.text === "(") {
      at++;
      const e = or();
      expect((t) => t.type === "punct" && t.text === ")", '")"');
      return e;
    }
    return comparison();
  };
  const and = (): Expr => {
    let left = unary();
    while (isWord("and")) {
      at++;
      left = { kind: "and", left, right: unary() };
    }
    return left;
  };
  const or = (): Expr => {
    let left = and();
    while (isWord("or")) {
      at++;
      left = { kind: "or", left, right: and() };
    }
    return left;
  };

  const condition = or();
  let order: Query["order"] = null;
  if (isWord("order")) {
    at++;
    expect((t) => t.type === "word" && t.text.toLowerCase() === "by", "BY");
    const f = field();
    const dir = isWord("desc") ? (at++, true) : isWord("asc") ? (at++, false) : false;
    order = { field: f, desc: dir };
  }
  if (at < tokens.length) throw new QqlError(`Unexpected ${JSON.stringify(tokens[at]!.text)}`, tokens[at]!.pos);

  // The entity is one conjunct of the top-level AND chain.
  const conjuncts: Expr[] = [];
  const flatten = (e: Expr): void => {
    if (e.kind === "and") {
      flatten(e.left);
      flatten(e.right);
    } else conjuncts.push(e);
  };
  flatten(condition);
  const entityAt = conjuncts.findIndex((c) => c.kind === "cmp" && c.field === "entity" && c.op === "=");
  if (entityAt < 0) throw new QqlError('A query names what it searches: entity = "case" (or run, result, defect, plan)', 0);
  const named = (conjuncts[entityAt] as Extract<Expr, { kind: "cmp" }>).value;
  if (typeof named === "object") throw new QqlError("entity takes a name in quotes, not a function", named.pos);
  const entity = String(named).toLowerCase();
  const rest = conjuncts.filter((_, i) => i !== entityAt);
  const where = rest.reduce<Expr | null>((acc, e) => (acc ? { kind: "and", left: acc, right: e } : e), null);
  return { entity, where, order };
}
