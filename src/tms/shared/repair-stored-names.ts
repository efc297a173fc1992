/**
 * The data step that repairs rows stored while request names could reach Object.prototype
 * (issue #23, fixed in the same release): a result step status such as "constructor" resolved
 * to a function and was stored as no status (`"__proto__"` as `{}`), after which every read of
 * the project's results failed; a selectbox option titled like an Object.prototype member lost
 * its title on a `replace_values` PATCH. The original values cannot be recovered: a step gets
 * `invalid` (Qase's status for a result that cannot be trusted), an option the title
 * `Option <id>`. Runs once per database (settings marker); returns one line per repaired row.
 */
import { hasTables, type Connection } from "../../db/connection";
import { RESULT_STATUS } from "../../qase/enums";

const REPAIRED_MARKER = "tms.prototype_names_repaired";

type StoredStep = { status?: unknown; steps?: unknown } & Record<string, unknown>;

/** The steps with every status that is not a result status set to `invalid`; null when nothing changed. */
export function repairSteps(steps: unknown): StoredStep[] | null {
  if (!Array.isArray(steps)) return null;
  let changed = false;
  const walk = (list: unknown[]): unknown[] =>
    list.map((s) => {
      if (!s || typeof s !== "object") return s;
      const step = { ...(s as StoredStep) };
      if (typeof step.status !== "string" || !(RESULT_STATUS.names as readonly string[]).includes(step.status)) {
        step.status = "invalid";
        changed = true;
      }
      if (Array.isArray(step.steps)) step.steps = walk(step.steps);
      return step;
    });
  const out = walk(steps) as StoredStep[];
  return changed ? out : null;
}

/** Options with every title that is not a string named `Option <id>`; null when nothing changed. */
export function repairOptions(options: unknown): { id: number; title: string }[] | null {
  if (!Array.isArray(options)) return null;
  let changed = false;
  const out = options.map((o: { id: number; title?: unknown }) => {
    if (typeof o?.title === "string") return o as { id: number; title: string };
    changed = true;
    return { id: o.id, title: `Option ${o.id}` };
  });
  return changed ? out : null;
}

/**
 * A SQLite data step (src/db/migrate.ts): it runs on the writer connection before the server
 * starts, so like the migrations it is one BEGIN IMMEDIATE…COMMIT of synchronous statements there
 * (no store exists yet, and nothing else writes).
 */
export function repairStoredNames(sqlite: Connection): string[] {
  if (!hasTables(sqlite, ["settings", "tms_results", "tms_custom_fields"])) return [];
  if (sqlite.query("SELECT 1 FROM settings WHERE key = ?").get(REPAIRED_MARKER)) return [];
  const lines: string[] = [];
  sqlite.exec("BEGIN IMMEDIATE");
  try {
    // Only rows whose JSON has a step without a text status can need it (json_tree narrows the scan).
    const results = sqlite.query(`SELECT hash, steps FROM tms_results r WHERE steps != '[]' AND EXISTS (
      SELECT 1 FROM json_tree(r.steps) t WHERE t.type = 'object' AND (json_type(t.value, '$.status') IS NOT 'text' OR json_extract(t.value, '$.status') NOT IN (${RESULT_STATUS.names.map(() => "?").join(", ")})))`)
      .all(...RESULT_STATUS.names) as { hash: string; steps: string }[];
    const setSteps = sqlite.query("UPDATE tms_results SET steps = ? WHERE hash = ?");
    for (const r of results) {
      const repaired = repairSteps(JSON.parse(r.steps));
      if (!repaired) continue;
      setSteps.run(JSON.stringify(repaired), r.hash);
      lines.push(`result ${r.hash}: a step status that was stored unreadable is now "invalid"`);
    }
    const fields = sqlite.query("SELECT id, options FROM tms_custom_fields WHERE options IS NOT NULL").all() as { id: number; options: string }[];
    const setOptions = sqlite.query("UPDATE tms_custom_fields SET options = ? WHERE id = ?");
    for (const f of fields) {
      const repaired = repairOptions(JSON.parse(f.options));
      if (!repaired) continue;
      setOptions.run(JSON.stringify(repaired), f.id);
      lines.push(`custom field ${f.id}: an option title lost on a replace_values PATCH is now "Option <id>"; rename it`);
    }
    sqlite.query("INSERT INTO settings (key, value) VALUES (?, '1') ON CONFLICT (key) DO NOTHING").run(REPAIRED_MARKER);
    sqlite.exec("COMMIT");
  } catch (e) {
    if (sqlite.inTransaction) sqlite.exec("ROLLBACK");
    throw e;
  }
  return lines;
}
