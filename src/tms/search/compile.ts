import { AUTOMATION, BEHAVIOR, CASE_STATUS, CASE_TYPE, enumLegend, findEnumName, LAYER, NEGATIVE_RESULT_STATUSES, PRIORITY, RESULT_STATUS, RUN_STATUS_WORDS, runStatusWord, SEVERITY, type QaseEnum } from "../../qase/enums";
import { numberSql } from "../shared/numbers";
import { own } from "../../lib/own";
import { DATE_FUNCTION_NAMES, DateArgumentError, evaluateDateFunction, normalizeDateLiteral } from "./dates";
import { foldCaseLiteral, foldCaseText, integerOfText, jsonElementsText, jsonElementText, numberOfText } from "../../db/dialect";
import { caseFoldKey } from "../../directory/tables";
import { QqlError, type Call, type Expr, type Query, type Value } from "./qql";

/**
 * How a field compares. `runStatus`: a run's stored status (name or number) or Qase's outcome
 * words, as `status_text` answers them. `date`: stored ISO 8601 text, compared with dates and
 * date functions. `tags`: a JSON array of strings, compared element by element. `user`: a user id
 * column, compared with a person's name, e-mail (userName), id or `currentUser()`.
 */
type FieldType = "number" | "text" | "enum" | "bool" | "runStatus" | "date" | "tags" | "user";
/** An enum column holds the enum's names; a query may name a value by name, title, alias or Qase's number. */
type Field = [column: string, type: FieldType, values?: QaseEnum<string>];
/**
 * `customFields`: the JSON column holding `[{field_id, value}]`, where the entity stores custom
 * field values. Every expression is SQL both engines speak: booleans are 0/1 integers (a
 * condition is turned into one with CASE), and "no condition" is `1 = 1`.
 */
type Entity = { from: string; base: string; key: string; order: string; fields: Record<string, Field>; customFields?: string };

const projectField: Record<string, Field> = { project: ["p.code", "text"] };
const authorFields: Record<string, Field> = { author: ["e.author_id", "user"], createdby: ["e.author_id", "user"] };
/**
 * A condition as a 0/1 field, like the stored booleans: a bool field compares with the 1/0 `bind`
 * gives it, and PostgreSQL would take that parameter as a boolean (which the driver writes from
 * true/false only) if the field were a condition.
 */
const flag = (condition: string) => `(CASE WHEN ${condition} THEN 1 ELSE 0 END)`;
const titleOf = (table: string, keyColumn: string) => `(SELECT title FROM ${table} WHERE id = ${keyColumn})`;

/**
 * Tags and custom field values are JSON arrays in their row; the engine's JSON SQL, case folding
 * and text-to-number reads come from the storage seam (src/db/dialect.ts), so one compiled query
 * runs on both engines. Text compares ASCII-folded on both sides (`foldCaseText` on the column,
 * `foldCaseLiteral` on the value); a person's e-mail (userName) through its folded key, as the
 * directory compares it.
 */
const jsonArrayAny = (column: string, test: (alias: string) => string) => `EXISTS (SELECT 1 FROM ${jsonElementsText(column, [], "j")} WHERE ${test("j")})`;
const jsonArrayIsEmpty = (column: string) => `(NOT EXISTS (SELECT 1 FROM ${jsonElementsText(column, [], "j")}))`;

/**
 * What each searchable entity exposes to QQL: field name → column (whitelisted; never from the
 * query). Ids are numbers within the project, as the API shows them: an entity's `id` is its
 * `number`, and references (`suite_id`, `run_id`…) compare the referenced entity's number. As in
 * Qase, `suite`, `milestone` and `plan` compare titles (result `suite` is the suite's number).
 */
export const QQL_ENTITIES: Record<string, Entity> = {
  case: {
    from: "tms_cases e JOIN tms_projects p ON p.id = e.project_id", base: "e.deleted IS NULL", key: "e.id", order: "e.id", customFields: "e.custom_fields",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], description: ["e.description", "text"], preconditions: ["e.preconditions", "text"],
      postconditions: ["e.postconditions", "text"], severity: ["e.severity", "enum", SEVERITY], priority: ["e.priority", "enum", PRIORITY], type: ["e.type", "enum", CASE_TYPE],
      behavior: ["e.behavior", "enum", BEHAVIOR], layer: ["e.layer", "enum", LAYER], status: ["e.status", "enum", CASE_STATUS], isflaky: ["e.is_flaky", "bool"],
      is_flaky: ["e.is_flaky", "bool"], automated: ["e.is_automated", "bool"], ismanual: [flag("e.is_automated = 0"), "bool"], istobeautomated: ["e.to_be_automated", "bool"],
      automation: ["(CASE WHEN e.is_automated <> 0 THEN 'automated' WHEN e.to_be_automated <> 0 THEN 'to_be_automated' ELSE 'manual' END)", "enum", AUTOMATION],
      suite: [titleOf("tms_suites", "e.suite_id"), "text"], suite_id: [numberSql("suite", "e.suite_id"), "number"],
      milestone: [titleOf("tms_milestones", "e.milestone_id"), "text"], milestone_id: [numberSql("milestone", "e.milestone_id"), "number"], tags: ["e.tags", "tags"],
      created: ["e.created", "date"], updated: ["e.updated", "date"], ...authorFields, ...projectField,
    },
  },
  run: {
    from: "tms_runs e JOIN tms_projects p ON p.id = e.project_id", base: "TRUE", key: "e.id", order: "e.id", customFields: "e.custom_fields",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], description: ["e.description", "text"], status: ["e.status", "runStatus"],
      environment: ["e.environment", "text"], started: ["e.start_time", "date"], ended: ["e.end_time", "date"], isstarted: [flag("e.start_time IS NOT NULL"), "bool"],
      isended: [flag("e.end_time IS NOT NULL"), "bool"], ispublic: ["e.is_public", "bool"], isautotest: ["e.is_autotest", "bool"],
      plan: [titleOf("tms_plans", "e.plan_id"), "text"], plan_id: [numberSql("plan", "e.plan_id"), "number"],
      milestone: [titleOf("tms_milestones", "e.milestone_id"), "text"], milestone_id: [numberSql("milestone", "e.milestone_id"), "number"], tags: ["e.tags", "tags"],
      ...authorFields, ...projectField,
    },
  },
  result: {
    from: "tms_results e JOIN tms_runs r ON r.id = e.run_id JOIN tms_projects p ON p.id = r.project_id", base: "TRUE", key: "e.hash", order: "e.created, e.hash",
    fields: {
      hash: ["e.hash", "text"], status: ["e.status", "enum", RESULT_STATUS], run: ["r.number", "number"], run_id: ["r.number", "number"], case_id: [numberSql("case", "e.case_id"), "number"],
      caseid: [numberSql("case", "e.case_id"), "number"], suite: [numberSql("suite", "(SELECT suite_id FROM tms_cases WHERE id = e.case_id)"), "number"],
      milestone: [titleOf("tms_milestones", "r.milestone_id"), "text"], ended: ["e.created", "date"], duration: ["e.time_ms", "number"], comment: ["e.comment", "text"],
      ...authorFields, ...projectField,
    },
  },
  defect: {
    from: "tms_defects e JOIN tms_projects p ON p.id = e.project_id", base: "TRUE", key: "e.id", order: "e.id", customFields: "e.custom_fields",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], actual_result: ["e.actual_result", "text"], severity: ["e.severity", "enum", SEVERITY],
      status: ["e.status", "enum"], case_id: [numberSql("case", "e.case_id"), "number"], run_id: [numberSql("run", "e.run_id"), "number"],
      milestone: [titleOf("tms_milestones", "e.milestone_id"), "text"], tags: ["e.tags", "tags"], resolved: ["e.resolved_at", "date"],
      isresolved: [flag("e.status = 'resolved'"), "bool"], created: ["e.created", "date"], updated: ["e.updated", "date"], ...authorFields, ...projectField,
    },
  },
  plan: {
    from: "tms_plans e JOIN tms_projects p ON p.id = e.project_id", base: "TRUE", key: "e.id", order: "e.id",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], description: ["e.description", "text"], created: ["e.created", "date"], updated: ["e.updated", "date"],
      ...authorFields, ...projectField,
    },
  },
};

/** A run has a case whose latest result is negative: a completed run with one is `failed`, else `passed`. */
const RUN_HAS_NEGATIVE_CASE = `EXISTS (SELECT 1 FROM tms_run_cases rc WHERE rc.run_id = e.id AND rc.status IN (${NEGATIVE_RESULT_STATUSES.map((x) => `'${x}'`).join(", ")}))`;

export type CompiledQql = { entity: string; where: string; params: (string | number)[]; order: string; from: string; key: string };

/** A custom field a query names by title, as the workspace defines it (several may share a title). */
export type QqlCustomField = { id: number; type: string; options: { id: number; title: string }[] | null };

/**
 * What a query is evaluated against besides its text: the caller's workspace, the person behind
 * the token (`currentUser()`; null for a token of no one), the moment (date functions), and the
 * workspace's custom fields of the searched entity by lower-cased title (those the query names:
 * `customFieldTitles`).
 */
export type QqlContext = { workspaceId: number; userId: number | null; now: Date; customFields: ReadonlyMap<string, QqlCustomField[]> };

/** The custom field titles a query names (`cf["Title"]`), lower-cased, each once. */
export function customFieldTitles(q: Query): string[] {
  const titles = new Set<string>();
  const walk = (e: Expr | null): void => {
    if (!e) return;
    if ("left" in e) {
      walk(e.left);
      walk(e.right);
      return;
    }
    if (e.kind === "not") return walk(e.expr);
    const title = customFieldTitle(e.field);
    if (title !== null) titles.add(title.toLowerCase());
  };
  walk(q.where);
  if (q.order && customFieldTitle(q.order.field) !== null) titles.add(customFieldTitle(q.order.field)!.toLowerCase());
  return [...titles];
}

const customFieldTitle = (field: string) => (field.startsWith("cf[") ? field.slice(3, -1) : null);

/** Enum values match Qase's labels or slugs: "In progress", "in_progress" and "IN PROGRESS" alike. */
const enumSlug = (v: Value) => String(v).trim().toLowerCase().replace(/[\s-]+/g, "_");
const likePattern = (v: Value) => "%" + foldCaseLiteral(String(v)).replace(/[\\%_]/g, (c) => "\\" + c) + "%";
const LIKE = "LIKE ? ESCAPE '\\'";
const isCall = (v: Value): v is Call => typeof v === "object";
const TRUE_WORDS = ["true", "1", "yes"];
const BOOL_WORDS = [...TRUE_WORDS, "false", "0", "no"];

/**
 * Compiles a parsed query to a WHERE clause with bound parameters over the entity's whitelisted
 * columns, limited to one workspace's projects. Unknown entities, fields and functions, and
 * values of the wrong type, are errors naming them.
 */
export function compileQql(q: Query, workspaceId: number, context: Partial<Omit<QqlContext, "workspaceId">> = {}): CompiledQql {
  const ctx: QqlContext = { workspaceId, userId: null, now: new Date(), customFields: new Map(), ...context };
  const entity = own(QQL_ENTITIES, q.entity);
  if (!entity) throw new QqlError(`Unknown entity "${q.entity}": expected one of ${Object.keys(QQL_ENTITIES).join(", ")}`, 0);
  const params: (string | number)[] = [];
  const bindParam = (v: string | number) => (params.push(v), "?");
  const column = (name: string): Field => {
    const f = own(entity.fields, name);
    if (!f) throw new QqlError(`Unknown field "${name}" for ${q.entity}: expected one of ${Object.keys(entity.fields).join(", ")}, or cf["Custom field title"]${entity.customFields ? "" : " (cases, runs and defects)"}`, 0);
    return f;
  };

  /** A function call's value for a field of `type`: a date function on a date, currentUser() on a person. */
  const callValue = (c: Call, type: FieldType, name: string): string | number => {
    if (c.call === "currentuser") {
      if (type !== "user") throw new QqlError(`currentUser() names a person; "${name}" is not a person field (author, createdBy)`, c.pos);
      if (c.arg !== null) throw new QqlError("currentUser() takes no argument", c.pos);
      if (ctx.userId === null) throw new QqlError("currentUser() needs a token that belongs to a person; this token belongs to none", c.pos);
      return ctx.userId;
    }
    let date: string | null;
    try {
      date = evaluateDateFunction(c.call, c.arg, ctx.now);
    } catch (e) {
      if (e instanceof DateArgumentError) throw new QqlError(`${c.call}() ${e.message}`, c.pos);
      throw e;
    }
    if (date === null) throw new QqlError(`Unknown function ${c.call}(): expected one of ${DATE_FUNCTION_NAMES} (dates) or currentUser()`, c.pos);
    if (type !== "date") throw new QqlError(`${c.call}() is a date; "${name}" is not a date field`, c.pos);
    return date;
  };

  const bind = (type: FieldType, v: Value, name: string, values?: QaseEnum<string>): string => {
    if (isCall(v)) return bindParam(callValue(v, type, name));
    if (values) {
      const found = findEnumName(values, typeof v === "number" ? v : String(v));
      if (found === null) throw new QqlError(`"${name}" takes one of ${enumLegend(values)} (the number, the name or its label), not ${JSON.stringify(v)}`, 0);
      return bindParam(found);
    }
    if (type === "number") {
      if (typeof v !== "number" && !/^-?\d+(\.\d+)?$/.test(String(v))) throw new QqlError(`"${name}" takes a number`, 0);
      return bindParam(Number(v));
    }
    if (type === "bool") {
      const s = String(v).toLowerCase();
      if (!BOOL_WORDS.includes(s)) throw new QqlError(`"${name}" takes true or false`, 0);
      return bindParam(TRUE_WORDS.includes(s) ? 1 : 0);
    }
    if (type === "date") {
      const date = typeof v === "string" ? normalizeDateLiteral(v) : null;
      if (date === null) throw new QqlError(`"${name}" takes a date ("YYYY-MM-DD", ISO 8601) or a date function such as now("-7d"), not ${JSON.stringify(v)}`, 0);
      return bindParam(date);
    }
    return bindParam(type === "enum" ? enumSlug(v) : foldCaseLiteral(String(v)));
  };
  // Qase's QQL names a run's status by outcome ("passed", "failed", "in progress", "aborted");
  // the stored status (a name or Qase's number) is taken as well.
  const runStatus = (v: Value): string => {
    const w = isCall(v) ? null : runStatusWord(typeof v === "number" ? v : String(v));
    if (w === null) throw new QqlError(`"status" takes ${RUN_STATUS_WORDS}; not ${JSON.stringify(isCall(v) ? `${v.call}()` : v)}`, 0);
    // an outcome's status is always 'completed', a constant of the whitelist, not input
    if (w.outcome !== undefined) return `(e.status = '${w.status}' AND ${w.outcome === "failed" ? "" : "NOT "}${RUN_HAS_NEGATIVE_CASE})`;
    return `e.status = ${bindParam(w.status)}`;
  };

  /**
   * A person (author): the id, currentUser(), or a name or e-mail (ignoring case; `~` matches part
   * of either). The e-mail is the userName, compared through its folded key as the directory
   * compares it (Unicode folding; `=` is a probe of its unique index); the name folds ASCII only.
   */
  const person = (col: string, v: Value, name: string, like = false): string => {
    if (typeof v === "number" || isCall(v)) return `${col} = ${bindParam(isCall(v) ? callValue(v, "user", name) : v)}`;
    if (typeof v === "boolean") throw new QqlError(`"${name}" takes a person's name, e-mail or id, or currentUser()`, 0);
    const displayName = foldCaseText("u.display_name");
    if (like) return `${col} IN (SELECT u.id FROM users u WHERE ${displayName} ${LIKE.replace("?", bindParam(likePattern(v)))} OR u.user_name_key ${LIKE.replace("?", bindParam(likePattern(caseFoldKey(String(v)))))})`;
    return `${col} IN (SELECT u.id FROM users u WHERE ${displayName} = ${bindParam(foldCaseLiteral(String(v)))} OR u.user_name_key = ${bindParam(caseFoldKey(String(v)))})`;
  };

  /** A comparison on a tags column: true when some tag matches. */
  const anyTag = (col: string, test: (tag: string) => string) => jsonArrayAny(col, (j) => test(foldCaseText(jsonElementText(j))));

  const customField = (title: string): { fields: QqlCustomField[]; col: string } => {
    if (!entity.customFields) throw new QqlError(`Custom fields are searched on cases, runs and defects, not on ${q.entity}`, 0);
    const fields = ctx.customFields.get(title.toLowerCase());
    if (!fields?.length) throw new QqlError(`Unknown custom field "${title}": no ${q.entity} field of this workspace has that title`, 0);
    return { fields, col: entity.customFields };
  };
  /** The stored text a value of custom field `f` is compared with: a selectbox option's id, a checkbox's 1/0, else the text. */
  const customFieldValue = (f: QqlCustomField, v: Value, title: string): string | null => {
    if (isCall(v)) throw new QqlError(`cf["${title}"] is compared with a value, not ${v.call}()`, v.pos);
    const s = String(v).trim();
    const lower = s.toLowerCase();
    if (f.type === "selectbox") {
      const option = f.options?.find((o) => o.title.toLowerCase() === lower || String(o.id) === s);
      return option ? String(option.id) : null;
    }
    if (f.type === "checkbox") {
      if (!BOOL_WORDS.includes(lower)) throw new QqlError(`cf["${title}"] takes true or false`, 0);
      return TRUE_WORDS.includes(lower) ? "1" : "0";
    }
    if (f.type === "number" && !Number.isFinite(Number(s))) throw new QqlError(`cf["${title}"] takes a number`, 0);
    return foldCaseLiteral(s); // compared with the stored value folded in SQL
  };
  /** SQL over one stored `{field_id, value}` element for field `f`. */
  const customFieldTest = (f: QqlCustomField, item: (key: "field_id" | "value") => string, op: "=" | "~" | "order" | "in", vs: Value[], title: string, orderOp?: string): string => {
    const id = `${integerOfText(item("field_id"))} = ${bindParam(f.id)}`;
    const stored = foldCaseText(item("value"));
    if (op === "~") {
      if (f.type === "selectbox" || f.type === "checkbox" || f.type === "number") throw new QqlError(`cf["${title}"] cannot be matched with ~`, 0);
      return `(${id} AND ${stored} ${LIKE.replace("?", bindParam(likePattern(vs[0]!)))})`;
    }
    if (op === "order") {
      if (f.type !== "number") throw new QqlError(`cf["${title}"] is compared with =, !=, in or ~; only number fields with ${orderOp}`, 0);
      const n = Number(vs[0]);
      if (isCall(vs[0]!) || typeof vs[0] === "boolean" || !Number.isFinite(n)) throw new QqlError(`cf["${title}"] takes a number`, 0);
      return `(${id} AND ${numberOfText(item("value"))} ${orderOp} ${bindParam(n)})`;
    }
    const wanted = vs.map((v) => customFieldValue(f, v, title)).filter((v): v is string => v !== null);
    if (!wanted.length) return "FALSE";
    // A checkbox may be stored as 1/0 or true/false (as the client sent it).
    const forms = f.type === "checkbox" ? wanted.flatMap((w) => (w === "1" ? ["1", "true"] : ["0", "false"])) : wanted;
    return `(${id} AND ${stored} IN (${forms.map(bindParam).join(", ")}))`;
  };
  /** Some stored value of the titled custom field(s) passes `test`; selectbox titles no option has are a 400 listing them. */
  const anyCustomField = (title: string, op: "=" | "~" | "order" | "in", vs: Value[], orderOp?: string): string => {
    const { fields, col } = customField(title);
    if (op === "=" || op === "in") {
      const unknown = vs.filter((v) => fields.every((f) => f.type === "selectbox" && customFieldValue(f, v, title) === null));
      if (unknown.length) {
        const options = fields.flatMap((f) => f.options ?? []).map((o) => JSON.stringify(o.title)).join(", ");
        throw new QqlError(`cf["${title}"] takes one of its values (${options}), not ${JSON.stringify(unknown[0])}`, 0);
      }
    }
    return `(${fields.map((f) => jsonArrayAny(col, (j) => customFieldTest(f, (k) => jsonElementText(j, [k]), op, vs, title, orderOp))).join(" OR ")})`;
  };

  const lhs = (col: string, type: FieldType) => (type === "text" || type === "enum" ? foldCaseText(col) : col);
  const walk = (e: Expr): string => {
    switch (e.kind) {
      case "and":
      case "or":
        return `(${walk(e.left)} ${e.kind.toUpperCase()} ${walk(e.right)})`;
      case "not":
        return `(NOT ${walk(e.expr)})`;
      case "empty": {
        const title = customFieldTitle(e.field);
        if (title !== null) {
          const { fields, col } = customField(title);
          const has = `(${fields.map((f) => jsonArrayAny(col, (j) => `${integerOfText(jsonElementText(j, ["field_id"]))} = ${bindParam(f.id)} AND ${jsonElementText(j, ["value"])} != ''`)).join(" OR ")})`;
          return e.negate ? has : `(NOT ${has})`;
        }
        const [col, type] = column(e.field);
        if (type === "tags") return e.negate ? `(NOT ${jsonArrayIsEmpty(col)})` : jsonArrayIsEmpty(col);
        // only text is ever '' (a number, a condition or a person's id never equals it, and PostgreSQL refuses the comparison)
        if (type === "number" || type === "bool" || type === "user") return e.negate ? `(${col} IS NOT NULL)` : `(${col} IS NULL)`;
        return e.negate ? `(${col} IS NOT NULL AND ${col} != '')` : `(${col} IS NULL OR ${col} = '')`;
      }
      case "in": {
        const title = customFieldTitle(e.field);
        if (title !== null) {
          const any = anyCustomField(title, "in", e.values);
          return e.negate ? `(NOT ${any})` : any;
        }
        const [col, type, values] = column(e.field);
        if (type === "runStatus" || type === "user") {
          const any = `(${e.values.map((v) => (type === "user" ? person(col, v, e.field) : runStatus(v))).join(" OR ")})`;
          return e.negate ? `(${type === "user" ? `${col} IS NULL OR ` : ""}NOT ${any})` : any;
        }
        if (type === "tags") {
          const any = anyTag(col, (tag) => `${tag} IN (${e.values.map((v) => bind("text", v, e.field)).join(", ")})`);
          return e.negate ? `(NOT ${any})` : any;
        }
        const list = e.values.map((v) => bind(type, v, e.field, values)).join(", ");
        return e.negate ? `(${col} IS NULL OR ${lhs(col, type)} NOT IN (${list}))` : `${lhs(col, type)} IN (${list})`;
      }
      case "cmp":
        return comparison(e);
    }
  };

  const comparison = (e: Extract<Expr, { kind: "cmp" }>): string => {
    const negative = e.op === "!=" || e.op === "!~";
    const title = customFieldTitle(e.field);
    if (title !== null) {
      const any = anyCustomField(title, e.op === "=" || e.op === "!=" ? "=" : e.op === "~" || e.op === "!~" ? "~" : "order", [e.value], e.op);
      return negative ? `(NOT ${any})` : any;
    }
    const [col, type, values] = column(e.field);
    if (type === "runStatus") {
      if (e.op === "=") return runStatus(e.value);
      if (e.op === "!=") return `(NOT ${runStatus(e.value)})`;
      throw new QqlError(`"${e.field}" is compared with =, != or in, not ${e.op}`, 0);
    }
    if (type === "tags" || type === "user") {
      if (!["=", "!=", "~", "!~"].includes(e.op)) throw new QqlError(`"${e.field}" is compared with =, !=, ~, !~ or in, not ${e.op}`, 0);
      if (isCall(e.value) && (type === "tags" || e.op.includes("~"))) throw new QqlError(`"${e.field}" ${e.op} takes a value, not ${e.value.call}()`, e.value.pos);
      const like = e.op.includes("~");
      const match = type === "user" ? person(col, e.value, e.field, like) : anyTag(col, (tag) => (like ? `${tag} ${LIKE.replace("?", bindParam(likePattern(e.value)))}` : `${tag} = ${bind("text", e.value, e.field)}`));
      return negative ? `(${type === "user" ? `${col} IS NULL OR ` : ""}NOT ${match})` : match;
    }
    switch (e.op) {
      case "=":
        return `${lhs(col, type)} = ${bind(type, e.value, e.field, values)}`;
      case "!=":
        return `(${col} IS NULL OR ${lhs(col, type)} != ${bind(type, e.value, e.field, values)})`;
      case "~":
      case "!~": {
        if (type === "number" || type === "bool" || isCall(e.value)) throw new QqlError(`"${e.field}" cannot be matched with ${e.op}${isCall(e.value) ? ` against ${e.value.call}()` : ""}`, 0);
        const like = `${foldCaseText(col)} ${LIKE.replace("?", bindParam(likePattern(e.value)))}`;
        return e.op === "~" ? like : `(${col} IS NULL OR NOT ${like})`;
      }
      default:
        // Ordering comparisons: numbers as numbers, dates (ISO 8601 text) as dates, text as text.
        if (type === "bool" || type === "enum") throw new QqlError(`"${e.field}" is compared with =, != or in, not ${e.op}`, 0);
        if (type === "number" || type === "date") return `${col} ${e.op} ${bind(type, e.value, e.field)}`;
        if (isCall(e.value)) callValue(e.value, type, e.field);
        return `${col} ${e.op} ${bindParam(String(e.value))}`;
    }
  };

  const where = [entity.base, "p.workspace_id = ?", q.where ? walk(q.where) : "TRUE"];
  // The workspace parameter sits before the query's own in the clause order.
  const ordered: (string | number)[] = [workspaceId, ...params];
  let order = entity.order;
  if (q.order) {
    if (customFieldTitle(q.order.field) !== null) throw new QqlError("A query is ordered by a field of the entity, not a custom field", 0);
    const [col, type] = column(q.order.field);
    if (type === "tags") throw new QqlError(`A query cannot be ordered by "${q.order.field}" (a list)`, 0);
    // NULLs first ascending and last descending: SQLite's order, spelled out for PostgreSQL's (the opposite)
    order = `${col} ${q.order.desc ? "DESC NULLS LAST" : "ASC NULLS FIRST"}, ${entity.order}`;
  }
  return { entity: q.entity, where: where.join(" AND "), params: ordered, order, from: entity.from, key: entity.key };
}
