import { AUTOMATION, BEHAVIOR, CASE_STATUS, CASE_TYPE, enumLegend, findEnumName, LAYER, NEGATIVE_RESULT_STATUSES, PRIORITY, RESULT_STATUS, RUN_STATUS_WORDS, runStatusWord, SEVERITY, type QaseEnum } from "../../qase/enums";
import { numberSql } from "../shared/numbers";
import { own } from "../../lib/own";
import { QqlError, type Expr, type Query, type Value } from "./qql";

/** `runStatus`: a run's stored status (name or number) or Qase's outcome words, as `status_text` answers them. */
type FieldType = "number" | "text" | "enum" | "bool" | "runStatus";
/** An enum column holds the enum's names; a query may name a value by name, title, alias or Qase's number. */
type Field = [column: string, type: FieldType, values?: QaseEnum<string>];
type Entity = { from: string; base: string; key: string; order: string; fields: Record<string, Field> };

const projectField: Record<string, Field> = { project: ["p.code", "text"] };

/**
 * What each searchable entity exposes to QQL: field name → column (whitelisted; never from the
 * query). Ids are numbers within the project, as the API shows them: an entity's `id` is its
 * `number`, and references (`suite_id`, `run_id`…) compare the referenced entity's number.
 */
export const QQL_ENTITIES: Record<string, Entity> = {
  case: {
    from: "tms_cases e JOIN tms_projects p ON p.id = e.project_id", base: "e.deleted IS NULL", key: "e.id", order: "e.id",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], description: ["e.description", "text"], preconditions: ["e.preconditions", "text"],
      postconditions: ["e.postconditions", "text"], severity: ["e.severity", "enum", SEVERITY], priority: ["e.priority", "enum", PRIORITY], type: ["e.type", "enum", CASE_TYPE],
      behavior: ["e.behavior", "enum", BEHAVIOR], layer: ["e.layer", "enum", LAYER], status: ["e.status", "enum", CASE_STATUS], isflaky: ["e.is_flaky", "bool"],
      is_flaky: ["e.is_flaky", "bool"], automated: ["e.is_automated", "bool"],
      automation: ["(CASE WHEN e.is_automated THEN 'automated' WHEN e.to_be_automated THEN 'to_be_automated' ELSE 'manual' END)", "enum", AUTOMATION], suite: [numberSql("suite", "e.suite_id"), "number"], suite_id: [numberSql("suite", "e.suite_id"), "number"],
      milestone_id: [numberSql("milestone", "e.milestone_id"), "number"], created: ["e.created", "text"], updated: ["e.updated", "text"], ...projectField,
    },
  },
  run: {
    from: "tms_runs e JOIN tms_projects p ON p.id = e.project_id", base: "1", key: "e.id", order: "e.id",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], description: ["e.description", "text"], status: ["e.status", "runStatus"],
      environment: ["e.environment", "text"], started: ["e.start_time", "text"], ended: ["e.end_time", "text"], plan_id: [numberSql("plan", "e.plan_id"), "number"],
      milestone_id: [numberSql("milestone", "e.milestone_id"), "number"], ...projectField,
    },
  },
  result: {
    from: "tms_results e JOIN tms_runs r ON r.id = e.run_id JOIN tms_projects p ON p.id = r.project_id", base: "1", key: "e.hash", order: "e.created, e.hash",
    fields: {
      hash: ["e.hash", "text"], status: ["e.status", "enum", RESULT_STATUS], run: ["r.number", "number"], run_id: ["r.number", "number"], case_id: [numberSql("case", "e.case_id"), "number"],
      ended: ["e.created", "text"], duration: ["e.time_ms", "number"], comment: ["e.comment", "text"], ...projectField,
    },
  },
  defect: {
    from: "tms_defects e JOIN tms_projects p ON p.id = e.project_id", base: "1", key: "e.id", order: "e.id",
    fields: {
      id: ["e.number", "number"], title: ["e.title", "text"], actual_result: ["e.actual_result", "text"], severity: ["e.severity", "enum", SEVERITY],
      status: ["e.status", "enum"], case_id: [numberSql("case", "e.case_id"), "number"], run_id: [numberSql("run", "e.run_id"), "number"], created: ["e.created", "text"],
      updated: ["e.updated", "text"], ...projectField,
    },
  },
  plan: {
    from: "tms_plans e JOIN tms_projects p ON p.id = e.project_id", base: "1", key: "e.id", order: "e.id",
    fields: { id: ["e.number", "number"], title: ["e.title", "text"], description: ["e.description", "text"], created: ["e.created", "text"], updated: ["e.updated", "text"], ...projectField },
  },
};

/** A run has a case whose latest result is negative: a completed run with one is `failed`, else `passed`. */
const RUN_HAS_NEGATIVE_CASE = `EXISTS (SELECT 1 FROM tms_run_cases rc WHERE rc.run_id = e.id AND rc.status IN (${NEGATIVE_RESULT_STATUSES.map((x) => `'${x}'`).join(", ")}))`;

export type CompiledQql = { entity: string; where: string; params: (string | number)[]; order: string; from: string; key: string };

/** Enum values match Qase's labels or slugs: "In progress", "in_progress" and "IN PROGRESS" alike. */
const enumSlug = (v: Value) => String(v).trim().toLowerCase().replace(/[\s-]+/g, "_");

/**
 * Compiles a parsed query to a WHERE clause with bound parameters over the entity's whitelisted
 * columns, limited to one workspace's projects. Unknown entities and fields, and values of the
 * wrong type, are errors naming them.
 */
export function compileQql(q: Query, workspaceId: number): CompiledQql {
  const entity = own(QQL_ENTITIES, q.entity);
  if (!entity) throw new QqlError(`Unknown entity "${q.entity}": expected one of ${Object.keys(QQL_ENTITIES).join(", ")}`, 0);
  const params: (string | number)[] = [];
  const column = (name: string): Field => {
    const f = own(entity.fields, name);
    if (!f) throw new QqlError(`Unknown field "${name}" for ${q.entity}: expected one of ${Object.keys(entity.fields).join(", ")}`, 0);
    return f;
  };
  const bind = (type: FieldType, v: Value, name: string, values?: QaseEnum<string>): string => {
    if (values) {
      const found = findEnumName(values, typeof v === "number" ? v : String(v));
      if (found === null) throw new QqlError(`"${name}" takes one of ${enumLegend(values)} (the number, the name or its label), not ${JSON.stringify(v)}`, 0);
      params.push(found);
      return "?";
    }
    if (type === "number") {
      if (typeof v !== "number" && !/^-?\d+(\.\d+)?$/.test(String(v))) throw new QqlError(`"${name}" takes a number`, 0);
      params.push(Number(v));
      return "?";
    }
    if (type === "bool") {
      const s = String(v).toLowerCase();
      if (!["true", "false", "1", "0", "yes", "no"].includes(s)) throw new QqlError(`"${name}" takes true or false`, 0);
      params.push(["true", "1", "yes"].includes(s) ? 1 : 0);
      return "?";
    }
    params.push(type === "enum" ? enumSlug(v) : String(v).toLowerCase());
    return "?";
  };
  // Qase's QQL names a run's status by outcome ("passed", "failed", "in progress", "aborted");
  // the stored status (a name or Qase's number) is taken as well.
  const runStatus = (v: Value): string => {
    const w = runStatusWord(typeof v === "number" ? v : String(v));
    if (w === null) throw new QqlError(`"status" takes ${RUN_STATUS_WORDS}; not ${JSON.stringify(v)}`, 0);
    // an outcome's status is always 'completed', a constant of the whitelist, not input
    if (w.outcome !== undefined) return `(e.status = '${w.status}' AND ${w.outcome === "failed" ? "" : "NOT "}${RUN_HAS_NEGATIVE_CASE})`;
    params.push(w.status);
    return "e.status = ?";
  };
  const lhs = (col: string, type: FieldType) => (type === "number" || type === "bool" ? col : `lower(${col})`);
  const walk = (e: Expr): string => {
    switch (e.kind) {
      case "and":
      case "or":
        return `(${walk(e.left)} ${e.kind.toUpperCase()} ${walk(e.right)})`;
      case "not":
        return `(NOT ${walk(e.expr)})`;
      case "empty": {
        const [col] = column(e.field);
        return e.negate ? `(${col} IS NOT NULL AND ${col} != '')` : `(${col} IS NULL OR ${col} = '')`;
      }
      case "in": {
        const [col, type, values] = column(e.field);
        if (type === "runStatus") {
          const any = `(${e.values.map(runStatus).join(" OR ")})`;
          return e.negate ? `(NOT ${any})` : any;
        }
        const list = e.values.map((v) => bind(type, v, e.field, values)).join(", ");
        return e.negate ? `(${col} IS NULL OR ${lhs(col, type)} NOT IN (${list}))` : `${lhs(col, type)} IN (${list})`;
      }
      case "cmp": {
        const [col, type, values] = column(e.field);
        if (type === "runStatus") {
          if (e.op === "=") return runStatus(e.value);
          if (e.op === "!=") return `(NOT ${runStatus(e.value)})`;
          throw new QqlError(`"${e.field}" is compared with =, != or in, not ${e.op}`, 0);
        }
        switch (e.op) {
          case "=":
            return `${lhs(col, type)} = ${bind(type, e.value, e.field, values)}`;
          case "!=":
            return `(${col} IS NULL OR ${lhs(col, type)} != ${bind(type, e.value, e.field, values)})`;
          case "~":
          case "!~": {
            if (type === "number" || type === "bool") throw new QqlError(`"${e.field}" cannot be matched with ${e.op}`, 0);
            params.push("%" + String(e.value).toLowerCase().replace(/[\\%_]/g, (c) => "\\" + c) + "%");
            return e.op === "~" ? `lower(${col}) LIKE ? ESCAPE '\\'` : `(${col} IS NULL OR lower(${col}) NOT LIKE ? ESCAPE '\\')`;
          }
          default:
            // Ordering comparisons: numbers as numbers, dates (ISO 8601 text) as text.
            params.push(type === "number" ? Number(e.value) : String(e.value));
            if (type === "number" && !Number.isFinite(params[params.length - 1])) throw new QqlError(`"${e.field}" takes a number`, 0);
            return `${col} ${e.op} ?`;
        }
      }
    }
  };
  const where = [entity.base, "p.workspace_id = ?", q.where ? walk(q.where) : "1"];
  // The workspace parameter sits before the query's own in the clause order.
  const ordered: (string | number)[] = [workspaceId, ...params];
  const order = q.order ? `${column(q.order.field)[0]} ${q.order.desc ? "DESC" : "ASC"}, ${entity.order}` : entity.order;
  return { entity: q.entity, where: where.join(" AND "), params: ordered, order, from: entity.from, key: entity.key };
}
