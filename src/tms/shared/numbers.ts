/**
 * Per-project numbers: Qase numbers cases, suites, milestones, plans, runs and defects per
 * project (project A has case 1, project B its own case 1), and so does Gatehouse. Inside, every
 * table keeps its global integer key and every foreign key stays on it; the API's `id` — in paths,
 * bodies, answers, QQL and webhook payloads — is the entity's `number` within its project.
 *
 * This module is where the two meet, one place per direction:
 * - in: a number the client sent → the row (`requireNumbered`, 404 for a path) or its key
 *   (`refId`, `refIds`: 400 naming the field for a body) — always within one project, so a number
 *   of another project's entity is refused, never linked;
 * - out: a row key → its number (`Numbers`): loaded in batches for views (one query per kind),
 *   looked up (and remembered) one by one in write paths for event payloads;
 * - and allocation (`nextNumber`, `takeNumbers`).
 * A row's number never changes and row keys are never reused (AUTOINCREMENT), so a key → number
 * pair, once read, stays true.
 */
import { and, eq, getTableName, inArray, type SQL } from "drizzle-orm";
import type { Tx } from "../../db/connection";
import { first } from "../../db/transaction";
import { counterStatement } from "../../db/counter";
import { preparedQuery, type PreparedQuery } from "../../db/statement";
import { badRequest, notFound } from "../../http/errors";
import { cases } from "../cases/tables";
import { defects } from "../defects/tables";
import { milestones } from "../milestones/tables";
import { plans } from "../plans/tables";
import { runs } from "../runs/tables";
import { suites } from "../suites/tables";
import type { Reader } from "./lookup";

/** The numbered entities' tables by kind. */
export const NUMBERED_TABLES = { case: cases, suite: suites, milestone: milestones, plan: plans, run: runs, defect: defects } as const;
const TABLES = NUMBERED_TABLES;
type Tables = typeof TABLES;
export type Numbered = keyof Tables;
type RowOf<K extends Numbered> = Tables[K]["$inferSelect"];

/** How errors name each kind. */
const NAMES: Record<Numbered, string> = { case: "Test case", suite: "Suite", milestone: "Milestone", plan: "Plan", run: "Run", defect: "Defect" };

/** SQLite binds at most 32766 variables; lists are looked up in chunks well below that. */
const CHUNK = 500;

/**
 * Takes `count` numbers: the counter row's upsert, returning the last of them. A counter statement
 * (src/db/counter.ts): on PostgreSQL it commits on its own, before the create that uses the numbers.
 */
const advance = counterStatement<[number, string, number]>(
  `INSERT INTO tms_project_counters (project_id, entity, last) VALUES (?1, ?2, ?3)
   ON CONFLICT (project_id, entity) DO UPDATE SET last = tms_project_counters.last + ?3 RETURNING last`,
);
const numberOf = Object.fromEntries(
  (Object.keys(TABLES) as Numbered[]).map((k) => [k, preparedQuery<{ number: number }, [number]>(`SELECT number FROM ${getTableName(TABLES[k])} WHERE id = ?1`)]),
) as Record<Numbered, PreparedQuery<{ number: number }, [number]>>;

/**
 * The next number of `kind` in the project, for the create `tx` is about to insert; take it once
 * the create's input is validated (bad input never spends a number). The counter only grows, so a
 * number is never handed out twice, even after its entity is deleted. Where the counter runs
 * (src/db/counter.ts): SQLite, in `tx`, holding the counter until its COMMIT; PostgreSQL, committed
 * on its own at once, so creates in one project do not wait for each other's COMMIT — and a create
 * that fails after this leaves its number unused (a gap, as a deleted entity does).
 */
export async function nextNumber(tx: Tx, projectId: number, kind: Numbered): Promise<number> {
  return advance(tx, projectId, kind, 1);
}

/** `count` consecutive numbers of `kind` for a bulk create (one counter statement): the first of them; as `nextNumber`. */
export async function takeNumbers(tx: Tx, projectId: number, kind: Numbered, count: number): Promise<number> {
  if (!Number.isInteger(count) || count < 1) throw new Error(`takeNumbers: count ${count}`);
  return (await advance(tx, projectId, kind, count)) - count + 1;
}

// ---- in: numbers the client sent -----------------------------------------------------------

/** The project's `kind` numbered `number`, or 404 (a path names it). `extra` narrows (e.g. live cases only). */
export async function requireNumbered<K extends Numbered>(db: Reader, kind: K, projectId: number, number: number, extra?: SQL): Promise<RowOf<K>> {
  const table = TABLES[kind];
  const where = and(eq(table.projectId, projectId), eq(table.number, number), extra);
  const row = (await first(db.select().from(table).where(where))) as RowOf<K> | undefined;
  if (!row) throw notFound(`${NAMES[kind]} ${number}`);
  return row;
}

/** The key of the project's `kind` numbered `number`, or null. */
export async function findRowId(db: Reader, kind: Numbered, projectId: number, number: number, extra?: SQL): Promise<number | null> {
  const table = TABLES[kind];
  return (await first(db.select({ id: table.id }).from(table).where(and(eq(table.projectId, projectId), eq(table.number, number), extra))))?.id ?? null;
}

/** The key of a body's reference (`suite_id`, `plan_id`…), or 400 naming `field`: it must be of the same project. */
export async function refId(db: Reader, kind: Numbered, projectId: number, number: number, field: string, extra?: SQL): Promise<number> {
  const id = await findRowId(db, kind, projectId, number, extra);
  if (id === null) throw badRequest(`${NAMES[kind]} ${number} does not exist in this project`, field);
  return id;
}

/** `refId` for an optional field: null and undefined (not given) pass through. */
export async function optRefId(db: Reader, kind: Numbered, projectId: number, number: number | null | undefined, field: string): Promise<number | null | undefined> {
  return number == null ? number : refId(db, kind, projectId, number, field);
}

/**
 * The keys of a body's list of references (`cases`, `links[].run_id`…), de-duplicated in the
 * order given, with their numbers; 400 naming `field` and the first missing numbers otherwise.
 */
export async function refIds(db: Reader, kind: Numbered, projectId: number, numbers: number[], field: string, extra?: SQL): Promise<{ ids: number[]; numbers: number[] }> {
  const table = TABLES[kind];
  const unique = [...new Set(numbers)];
  const found = new Map<number, number>();
  for (let i = 0; i < unique.length; i += CHUNK) {
    const chunk = unique.slice(i, i + CHUNK);
    for (const r of await db.select({ id: table.id, number: table.number }).from(table).where(and(eq(table.projectId, projectId), inArray(table.number, chunk), extra)))
      found.set(r.number, r.id);
  }
  const missing = unique.filter((n) => !found.has(n));
  if (missing.length) {
    const many = missing.length > 1;
    throw badRequest(`${NAMES[kind]}${many ? "s" : ""} ${missing.slice(0, 10).join(", ")} do${many ? "" : "es"} not exist in this project`, field);
  }
  return { ids: unique.map((n) => found.get(n)!), numbers: unique };
}

// ---- out: row keys → the numbers the API shows ---------------------------------------------

/**
 * SQL for the number of the `kind` row whose key is in `keyColumn` (null when it is null), for
 * queries that compare or show numbers in SQL (QQL). `keyColumn` is a whitelisted column name,
 * never input.
 */
export function numberSql(kind: Numbered, keyColumn: string): string {
  return `(SELECT number FROM ${getTableName(TABLES[kind])} WHERE id = ${keyColumn})`;
}

/**
 * Row keys → numbers, per kind. `Numbers.load` reads a batch in one query per kind (views);
 * `numbersIn(tx)` keeps what a write transaction read for its event payloads (`with` reads only
 * the keys it has not seen yet: bulk writes repeat them).
 */
export class Numbers {
  private readonly known: Record<Numbered, Map<number, number>> = { case: new Map(), suite: new Map(), milestone: new Map(), plan: new Map(), run: new Map(), defect: new Map() };

  private constructor(private readonly db: Reader) {}

  /** Numbers for views: the keys of each kind in `wanted` read in one query per kind. */
  static async load(db: Reader, wanted: Partial<Record<Numbered, Iterable<number | null>>>): Promise<Numbers> {
    return new Numbers(db).with(wanted);
  }

  /** These numbers with the keys of `wanted` not known yet read too (one query per kind that has any). */
  async with(wanted: Partial<Record<Numbered, Iterable<number | null>>>): Promise<this> {
    for (const [kind, keys] of Object.entries(wanted) as [Numbered, Iterable<number | null>][]) await this.loadKind(kind, keys);
    return this;
  }

  static empty(db: Reader): Numbers {
    return new Numbers(db);
  }

  private async loadKind(kind: Numbered, keys: Iterable<number | null>): Promise<void> {
    const table = TABLES[kind];
    const known = this.known[kind];
    const wanted = [...new Set([...keys].filter((k): k is number => k !== null && !known.has(k)))];
    for (let i = 0; i < wanted.length; i += CHUNK)
      for (const r of await this.db.select({ id: table.id, number: table.number }).from(table).where(inArray(table.id, wanted.slice(i, i + CHUNK)))) known.set(r.id, r.number);
  }

  /** The number of the `kind` row with key `rowId` (null stays null: an unset reference); it must have been loaded. */
  of(kind: Numbered, rowId: number): number;
  of(kind: Numbered, rowId: number | null): number | null;
  of(kind: Numbered, rowId: number | null): number | null {
    if (rowId === null) return null;
    const n = this.known[kind].get(rowId);
    if (n === undefined) throw new Error(`${kind} ${rowId}: number not loaded`);
    return n;
  }

  /** The number of one `kind` row, read when not known yet (null when there is no such row). */
  async lookUp(kind: Numbered, rowId: number): Promise<number | null> {
    let n = this.known[kind].get(rowId);
    if (n === undefined) {
      n = (await numberOf[kind].get(this.db, rowId))?.number;
      if (n !== undefined) this.known[kind].set(rowId, n);
    }
    return n ?? null;
  }
}

const inTransaction = new WeakMap<Tx, Numbers>();

/** The numbers a write transaction reads for its event payloads, remembered for the transaction (bulk writes repeat them). */
export function numbersIn(tx: Tx): Numbers {
  let n = inTransaction.get(tx);
  if (!n) inTransaction.set(tx, (n = Numbers.empty(tx)));
  return n;
}
