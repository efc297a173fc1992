/**
 * The dialect's fragments (src/db/dialect.ts) on both engines: each is built once per engine
 * (`useEngine`) and run over the same rows, in an in-memory SQLite database and in a real
 * PostgreSQL one (test/support/postgres.ts), and both must answer the same — list order and case
 * folding included.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sql, type SQL } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { SQLiteSyncDialect } from "drizzle-orm/sqlite-core";
import postgres from "postgres";
import * as d from "../../src/db/dialect";
import { engine as currentEngine, useEngine, type Engine } from "../../src/db/engine";
import { caseFoldKey } from "../../src/directory/tables";
import { freshDatabase } from "../support/postgres";

type Row = { id: number; name: string | null; doc: string; tags: string | null };
const ROWS: Row[] = [
  { id: 1, name: "Ada", doc: JSON.stringify({ a: { b: "x" }, n: 10, flag: true, list: [{ v: "p", primary: false }, { v: "q", primary: true }], when: "2024-05-01T10:00:00.000Z" }), tags: JSON.stringify(["red", "Blue"]) },
  { id: 2, name: "ÄBC", doc: JSON.stringify({ a: { b: "Y" }, n: 9, flag: false, list: [{ v: "r" }, { v: "s" }], when: "2023-12-31T23:59:59.999Z" }), tags: JSON.stringify(["green"]) },
  { id: 3, name: "äbc", doc: JSON.stringify({ n: 2.5, "urn:x:y:2.0:User": { "k k": "v" }, list: [{ v: "t", primary: true }] }), tags: "[]" },
  { id: 4, name: "50%_off\\now", doc: "{}", tags: null },
  { id: 5, name: null, doc: JSON.stringify({ n: -1, a: { b: "" } }), tags: JSON.stringify(["Red"]) },
  { id: 6, name: "abc", doc: JSON.stringify({ n: 100, flag: true }), tags: JSON.stringify(["blue", "x"]) },
  { id: 7, name: "Zeta", doc: JSON.stringify({ list: "not an array" }), tags: JSON.stringify({ not: "an array" }) },
];

let lite: Database;
let pg: postgres.Sql;
let dropPg: () => Promise<void>;

const engineAtStart = currentEngine();

beforeAll(async () => {
  lite = new Database(":memory:");
  lite.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, doc TEXT NOT NULL, tags TEXT)");
  lite.exec("CREATE TABLE r (hash TEXT PRIMARY KEY, v TEXT)");
  const ins = lite.query("INSERT INTO t (id, name, doc, tags) VALUES (?, ?, ?, ?)");
  for (const r of ROWS) ins.run(r.id, r.name, r.doc, r.tags);
  const db = await freshDatabase("dialect");
  dropPg = db.drop;
  pg = postgres(db.url, { max: 1, onnotice: () => {}, types: { bigint: { to: 20, from: [20], serialize: String, parse: Number } } as never });
  await pg.unsafe("CREATE TABLE t (id bigint PRIMARY KEY, name text, doc text NOT NULL, tags text)");
  await pg.unsafe("CREATE TABLE r (hash text PRIMARY KEY, v text, insertion_seq bigint GENERATED ALWAYS AS IDENTITY)");
  for (const r of ROWS) await pg.unsafe("INSERT INTO t (id, name, doc, tags) VALUES ($1, $2, $3, $4)", [r.id, r.name, r.doc, r.tags]);
  // inserted out of key order: insertion order is not the key's
  for (const h of ["m", "c", "x", "a"]) {
    lite.query("INSERT INTO r (hash, v) VALUES (?, ?)").run(h, h.toUpperCase());
    await pg.unsafe("INSERT INTO r (hash, v) VALUES ($1, $2)", [h, h.toUpperCase()]);
  }
}, 60_000); // the first use starts the run's PostgreSQL server

afterAll(async () => {
  useEngine(engineAtStart);
  lite?.close();
  await pg?.end();
  await dropPg?.();
});

/** Builds with the engine selected (the fragments read it at build time), then restores SQLite. */
function build<T>(engine: Engine, make: () => T): T {
  const before = currentEngine();
  useEngine(engine);
  try {
    return make();
  } finally {
    useEngine(before);
  }
}

const liteDialect = new SQLiteSyncDialect();
const pgDialect = new PgDialect();

/** Rows as plain values: numbers from PostgreSQL's numeric/double text come back as numbers. */
const plain = (rows: Record<string, unknown>[]) => rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === "string" && /^-?\d+(\.\d+)?$/.test(v) && k.startsWith("n_") ? Number(v) : v])));

/** A drizzle query built per engine, run on each: [SQLite rows, PostgreSQL rows]. */
async function both(make: () => SQL): Promise<[unknown[], unknown[]]> {
  const l = liteDialect.sqlToQuery(build("sqlite", make));
  const p = pgDialect.sqlToQuery(build("postgres", make));
  const liteRows = lite.query(l.sql).all(...(l.params as never[])) as Record<string, unknown>[];
  const pgRows = (await pg.unsafe(p.sql, p.params as never[])) as unknown as Record<string, unknown>[];
  return [plain(liteRows), plain([...pgRows])];
}

/** A statement assembled as text with `?`/`?N` placeholders, built per engine, run on each. */
async function bothText(make: () => string, params: (engine: Engine) => unknown[]): Promise<[unknown[], unknown[]]> {
  const l = build("sqlite", make);
  const p = d.postgresPlaceholders(build("postgres", make));
  const liteRows = lite.query(l).all(...(build("sqlite", () => params("sqlite")) as never[])) as Record<string, unknown>[];
  const pgRows = (await pg.unsafe(p, build("postgres", () => params("postgres")) as never[])) as unknown as Record<string, unknown>[];
  return [plain(liteRows), plain([...pgRows])];
}

async function same(make: () => SQL): Promise<unknown[]> {
  const [l, p] = await both(make);
  expect(p).toEqual(l);
  return l;
}

async function sameText(make: () => string, params: (engine: Engine) => unknown[] = () => []): Promise<unknown[]> {
  const [l, p] = await bothText(make, params);
  expect(p).toEqual(l);
  return l;
}

const firstPg = async (text: string, params: unknown[] = []) => ((await pg.unsafe(text, params as never[])) as unknown as Record<string, unknown>[])[0];
const ids = (rows: unknown[]) => (rows as { id: number }[]).map((r) => r.id);
const col = (c: string) => sql.raw(c);

describe("lists bound as one parameter", () => {
  test("inList / notInList: numbers and strings, empty lists, a value with quotes and backslashes", async () => {
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.inList(col("id"), [3, 1, 99])} ORDER BY id`))).toEqual([1, 3]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.notInList(col("id"), [3, 1])} ORDER BY id`))).toEqual([2, 4, 5, 6, 7]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.inList(col("id"), [])} ORDER BY id`))).toEqual([]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.notInList(col("id"), [])} ORDER BY id`))).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.inList(col("name"), ["Ada", "50%_off\\now", 'q"uote', "ÄBC"])} ORDER BY id`))).toEqual([1, 2, 4]);
    // NULL is in no list and, as SQL has it, not "not in" a non-empty one either
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.notInList(col("name"), ["Ada"])} ORDER BY id`))).toEqual([2, 3, 4, 6, 7]);
  });

  test("inListText: one prepared text, the list as its ?1 parameter", async () => {
    const rows = await sameText(() => `SELECT id FROM t WHERE ${d.inListText("id", "?1")} AND id > ?2 ORDER BY id`, () => [d.listParam([7, 2, 5, 1]), 1]);
    expect(ids(rows)).toEqual([2, 5, 7]);
  });

  test("listTable keeps the list's order (listOrder) and joins on its entries", async () => {
    const order = await same(() => sql`SELECT ${d.listEntry("j")} AS id FROM ${d.listTable([6, 2, 4], "j")} ORDER BY ${d.listOrder("j")}`);
    expect(ids(order)).toEqual([6, 2, 4]);
    const joined = await same(() => sql`SELECT t.id, t.name FROM ${d.listTable([5, 99, 1], "j")} ${d.joinInOrder()} t ON t.id = ${d.listEntry("j")} ORDER BY ${d.listOrder("j")}`);
    expect(joined).toEqual([{ id: 5, name: null }, { id: 1, name: "Ada" }]);
    const names = await same(() => sql`SELECT t.id FROM ${d.listTable(["Zeta", "Ada"], "j")} JOIN t ON t.name = ${d.listEntry("j")} ORDER BY ${d.listOrder("j")}`);
    expect(ids(names)).toEqual([7, 1]);
  });

  test("INSERT … SELECT from a listTable joined in order, ON CONFLICT DO NOTHING (directory/groups.ts addMembers' shape)", async () => {
    lite.exec("CREATE TEMP TABLE m (g TEXT NOT NULL, u INTEGER NOT NULL, PRIMARY KEY (g, u))");
    await pg.unsafe("CREATE TEMP TABLE m (g text NOT NULL, u bigint NOT NULL, PRIMARY KEY (g, u))");
    const add = (userIds: number[]) => () => sql`INSERT INTO m (g, u) SELECT ${"grp"}, t.id FROM ${d.listTable(userIds, "j")} ${d.joinInOrder()} t ON t.id = ${d.listEntry("j")} WHERE t.name IS NOT NULL ON CONFLICT DO NOTHING`;
    await same(add([1, 5, 99, 2]));
    await same(add([2, 3]));
    expect(await same(() => sql`SELECT g, u AS id FROM m ORDER BY u`)).toEqual([{ g: "grp", id: 1 }, { g: "grp", id: 2 }, { g: "grp", id: 3 }]);
  });

  test("jsonArrayHasAny: some element is one of the values (NULL, empty and non-array documents hold none)", async () => {
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.jsonArrayHasAny(col("tags"), ["Blue", "green"])} ORDER BY id`))).toEqual([1, 2]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.jsonArrayHasAny(col("tags"), [])} ORDER BY id`))).toEqual([]);
  });
});

describe("JSON documents", () => {
  test("jsonValueText: strings, numbers and booleans compare and order by their type; keys that need quoting", async () => {
    const text = await sameText(() => `SELECT id, ${d.jsonValueText("doc", ["a", "b"])} AS v FROM t WHERE ${d.jsonValueText("doc", ["a", "b"])} IS NOT NULL ORDER BY id`);
    expect(text).toEqual([{ id: 1, v: "x" }, { id: 2, v: "Y" }, { id: 5, v: "" }]);
    const numbers = await sameText(() => `SELECT id FROM t WHERE ${d.jsonValueText("doc", ["n"], "number")} > ?1 ORDER BY ${d.jsonValueText("doc", ["n"], "number")} DESC, id`, () => [5]);
    expect(ids(numbers)).toEqual([6, 1, 2]); // 100 > 10 > 9: numbers, not text ("9" > "10")
    expect(ids(await sameText(() => `SELECT id FROM t WHERE ${d.jsonValueText("doc", ["n"], "number")} = ?1`, () => [2.5]))).toEqual([3]);
    expect(ids(await sameText(() => `SELECT id FROM t WHERE ${d.jsonValueText("doc", ["flag"], "boolean")} = ?1 ORDER BY id`, () => [1]))).toEqual([1, 6]);
    expect(ids(await sameText(() => `SELECT id FROM t WHERE ${d.jsonValueText("doc", ["flag"], "boolean")} = ?1 ORDER BY id`, () => [0]))).toEqual([2]);
    expect(ids(await sameText(() => `SELECT id FROM t WHERE ${d.jsonValueText("doc", ["urn:x:y:2.0:User", "k k"])} = ?1`, () => ["v"]))).toEqual([3]);
    // dateTimes are ISO text, compared as text
    expect(ids(await sameText(() => `SELECT id FROM t WHERE ${d.jsonValueText("doc", ["when"])} >= ?1 ORDER BY id`, () => ["2024-01-01T00:00:00.000Z"]))).toEqual([1]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.jsonValue(col("doc"), ["a", "b"])} = ${"Y"}`))).toEqual([2]);
    // an id written as a string of digits (SCIM's manager.value) meets an integer key column
    expect(ids(await sameText(() => `SELECT t.id FROM t JOIN t m ON m.id = ${d.jsonValueText("t.doc", ["ref"], "id")} WHERE t.id = 1`))).toEqual([]);
    expect(ids(await sameText(() => `SELECT m.id FROM (SELECT '{"ref":"6"}' AS doc UNION ALL SELECT '{"ref":6}' UNION ALL SELECT '{"ref":"x6"}') s JOIN t m ON m.id = ${d.jsonValueText("s.doc", ["ref"], "id")} ORDER BY m.id`))).toEqual([6, 6]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.jsonValue(col("doc"), ["n"], "number")} < ${0}`))).toEqual([5]);
  });

  test("PostgreSQL reads a value of another JSON type as NULL, never a failed cast", async () => {
    const p = build("postgres", () => `SELECT count(*)::int AS n FROM t WHERE ${d.jsonValueText("doc", ["a"], "number")} IS NULL AND ${d.jsonValueText("doc", ["a"], "boolean")} IS NULL`);
    expect(await firstPg(p)).toEqual({ n: 7 });
  });

  test("jsonElementsText: elements in array order, members of object elements, typed; non-arrays have none", async () => {
    const elements = await sameText(() => `SELECT t.id, ${d.jsonElementText("j", ["v"])} AS v FROM t, ${d.jsonElementsText("t.doc", ["list"], "j")} WHERE t.id IN (1, 2, 3) ORDER BY t.id, ${d.jsonElementOrderText("j")}`);
    expect(elements).toEqual([{ id: 1, v: "p" }, { id: 1, v: "q" }, { id: 2, v: "r" }, { id: 2, v: "s" }, { id: 3, v: "t" }]);
    // the primary entry, else the first: the sort of a multi-valued attribute (NULLS LAST: SQLite's DESC default)
    const primary = await sameText(() => `SELECT t.id, (SELECT ${d.jsonElementText("j", ["v"])} FROM ${d.jsonElementsText("t.doc", ["list"], "j")} ORDER BY ${d.jsonElementText("j", ["primary"], "boolean")} DESC NULLS LAST, ${d.jsonElementOrderText("j")} LIMIT 1) AS v FROM t WHERE t.id <> 7 ORDER BY t.id`);
    expect(primary).toEqual([{ id: 1, v: "q" }, { id: 2, v: "r" }, { id: 3, v: "t" }, { id: 4, v: null }, { id: 5, v: null }, { id: 6, v: null }]);
    const tags = await sameText(() => `SELECT t.id, ${d.jsonElementText("j")} AS tag FROM t, ${d.jsonElementsText("t.tags", [], "j")} WHERE t.id <> 7 ORDER BY t.id, ${d.jsonElementOrderText("j")}`);
    expect(tags).toEqual([{ id: 1, tag: "red" }, { id: 1, tag: "Blue" }, { id: 2, tag: "green" }, { id: 5, tag: "Red" }, { id: 6, tag: "blue" }, { id: 6, tag: "x" }]);
    const p = build("postgres", () => `SELECT count(*)::int AS n FROM t, ${d.jsonElementsText("t.doc", ["list"], "j")} WHERE t.id = 7`);
    expect(await firstPg(p)).toEqual({ n: 0 }); // SQLite's json_each would give the string itself: not compared
  });
});

describe("case folding and order", () => {
  test("what each engine's own lower() does with ÄBC, and the dialect's fold: ASCII only on both", async () => {
    expect(lite.query("SELECT lower('ÄBC') AS v").get()).toEqual({ v: "Äbc" });
    expect(await firstPg("SELECT lower('ÄBC') AS v")).toEqual({ v: "äbc" }); // under the database's C.UTF-8 ctype
    const folded = await sameText(() => `SELECT id, ${d.foldCaseText("name")} AS f FROM t WHERE name IS NOT NULL ORDER BY id`);
    expect(folded).toEqual([{ id: 1, f: "ada" }, { id: 2, f: "Äbc" }, { id: 3, f: "äbc" }, { id: 4, f: "50%_off\\now" }, { id: 6, f: "abc" }, { id: 7, f: "zeta" }]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.foldCase(col("name"))} = ${d.foldCase(sql`${"ABC"}`)} ORDER BY id`))).toEqual([6]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.foldCase(col("name"))} = ${d.foldCaseLiteral("ÄBC")} ORDER BY id`))).toEqual([2]);
  });

  test("ignoringCase: equality and order (byte order of the folded text, NULLs first ascending on both)", async () => {
    const order = await same(() => sql`SELECT id FROM t ORDER BY ${d.ignoringCase(col("name"))} NULLS FIRST, id`);
    expect(ids(order)).toEqual([5, 4, 6, 1, 7, 2, 3]);
    expect(ids(await sameText(() => `SELECT id FROM t ORDER BY ${d.ignoringCaseText("name")} DESC NULLS LAST, id`))).toEqual([3, 2, 7, 1, 6, 4, 5]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE ${d.ignoringCase(col("name"))} = ${d.ignoringCase(sql`${"ADA"}`)}`))).toEqual([1]);
  });

  test("the product's rule for names (userName, e-mails, workspaces): the stored folded key, equal on both engines", async () => {
    // "ÄBC", "äbc" and "abc" under caseFoldKey: the first two are one name, whatever the engine folds
    expect(caseFoldKey("ÄBC")).toBe(caseFoldKey("äbc"));
    expect(caseFoldKey("ÄBC")).not.toBe(caseFoldKey("abc"));
    lite.exec("CREATE TEMP TABLE k (id INTEGER PRIMARY KEY, name_key TEXT NOT NULL)");
    await pg.unsafe("CREATE TEMP TABLE k (id bigint PRIMARY KEY, name_key text NOT NULL)");
    for (const r of ROWS.filter((x) => x.name !== null)) {
      lite.query("INSERT INTO k VALUES (?, ?)").run(r.id, caseFoldKey(r.name!));
      await pg.unsafe("INSERT INTO k VALUES ($1, $2)", [r.id, caseFoldKey(r.name!)]);
    }
    const rows = await sameText(() => "SELECT id FROM k WHERE name_key = ?1 ORDER BY id", () => [caseFoldKey("äBC")]);
    expect(ids(rows)).toEqual([2, 3]);
  });
});

describe("substrings", () => {
  test("containsText: ASCII case ignored, %, _ and \\ match themselves, a non-ASCII capital matches itself", async () => {
    const contains = async (needle: string) => ids(await same(() => sql`SELECT id FROM t WHERE ${d.containsText(col("name"), needle)} ORDER BY id`));
    expect(await contains("BC")).toEqual([2, 3, 6]);
    expect(await contains("%_")).toEqual([4]);
    expect(await contains("\\N")).toEqual([4]);
    expect(await contains("0_")).toEqual([]); // "_" is no wildcard ("50%" would match it)
    expect(await contains("Ä")).toEqual([2]);
    expect(await contains("ä")).toEqual([3]);
  });

  test("includesText, startsWithText, endsWithText over folded text", async () => {
    const f = (v: string) => d.foldCase(sql`${v}`);
    const name = () => d.foldCase(col("name"));
    expect(ids(await same(() => sql`SELECT id FROM t WHERE name IS NOT NULL AND ${d.includesText(name(), f("B"))} ORDER BY id`))).toEqual([2, 3, 6]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE name IS NOT NULL AND ${d.startsWithText(name(), f("A"))} ORDER BY id`))).toEqual([1, 6]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE name IS NOT NULL AND ${d.endsWithText(name(), f("BC"))} ORDER BY id`))).toEqual([2, 3, 6]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE name IS NOT NULL AND ${d.endsWithText(name(), f("xabc"))} ORDER BY id`))).toEqual([]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE name IS NOT NULL AND ${d.endsWithText(name(), f("%_OFF\\NOW"))} ORDER BY id`))).toEqual([4]);
  });
});

describe("aggregates", () => {
  test("joinedText: the group's values joined in order, NULL for no rows", async () => {
    expect(await same(() => sql`SELECT ${d.joinedText(col("id"), ",", sql`id DESC`)} AS ids FROM t WHERE id < 5`)).toEqual([{ ids: "4,3,2,1" }]);
    expect(await same(() => sql`SELECT ${d.joinedText(col("name"), "', '", col("id"))} AS names FROM t WHERE id IN (1, 6)`)).toEqual([{ names: "Ada', 'abc" }]);
    expect(await same(() => sql`SELECT ${d.joinedText(col("id"), ",", col("id"))} AS ids FROM t WHERE id > 99`)).toEqual([{ ids: null }]);
  });
});

describe("comparisons", () => {
  test("isEqual / isNotEqual are two-valued: NOT keeps the NULL rows on the other side", async () => {
    expect(ids(await same(() => sql`SELECT id FROM t WHERE (${d.isEqual(col("name"), sql`${"Ada"}`)}) ORDER BY id`))).toEqual([1]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE NOT (${d.isEqual(col("name"), sql`${"Ada"}`)}) ORDER BY id`))).toEqual([2, 3, 4, 5, 6, 7]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE (${d.isNotEqual(col("name"), sql`${"Ada"}`)}) ORDER BY id`))).toEqual([2, 3, 4, 5, 6, 7]);
    expect(ids(await same(() => sql`SELECT id FROM t WHERE NOT (${d.isNotEqual(col("name"), sql`${"Ada"}`)}) ORDER BY id`))).toEqual([1]);
  });

  test("numberOfText / integerOfText read numbers in text; PostgreSQL gives NULL for other text instead of failing", async () => {
    const rows = await sameText(() => `SELECT ${d.numberOfText("?1")} AS n_a, ${d.integerOfText("?2")} AS n_b, ${d.numberOfText("?3")} AS n_c`, () => [" 2.5", "-12", "1e3"]);
    expect(rows).toEqual([{ n_a: 2.5, n_b: -12, n_c: 1000 }]);
    const p = build("postgres", () => d.postgresPlaceholders(`SELECT ${d.numberOfText("?1")} AS a, ${d.integerOfText("?1")} AS b`));
    expect(await firstPg(p, ["abc"])).toEqual({ a: null, b: null });
  });
});

describe("insertion order and placeholders", () => {
  test("insertionOrder: rows in the order they were inserted, not by key", async () => {
    expect(await same(() => sql`SELECT hash FROM r ORDER BY ${d.insertionOrder()}`)).toEqual([{ hash: "m" }, { hash: "c" }, { hash: "x" }, { hash: "a" }]);
    expect(await sameText(() => `SELECT x.v FROM r x ORDER BY ${d.insertionOrderText("x")} DESC`)).toEqual([{ v: "A" }, { v: "X" }, { v: "C" }, { v: "M" }]);
  });

  test("postgresPlaceholders numbers ? and ?N as SQLite does and leaves quotes and comments alone", () => {
    expect(d.postgresPlaceholders("SELECT ?, ?, ?")).toBe("SELECT $1, $2, $3");
    expect(d.postgresPlaceholders("SELECT ?2, ?, ?1, ?")).toBe("SELECT $2, $3, $1, $4");
    expect(d.postgresPlaceholders("WHERE a = ?1 AND b = '?' AND \"c?\" = ?1 -- ?\n AND d = ? /* ? */")).toBe("WHERE a = $1 AND b = '?' AND \"c?\" = $1 -- ?\n AND d = $2 /* ? */");
    expect(d.postgresPlaceholders("SELECT 'it''s ?', ?")).toBe("SELECT 'it''s ?', $1");
  });

  test("queryText: a fragment's text keeps ? placeholders, so the statement around it may add its own", async () => {
    const inner = build("postgres", () => d.queryText(sql`${d.inList(col("id"), [1, 2, 3])} AND ${d.foldCase(col("name"))} <> ${"x"}`));
    expect(inner.sql).toBe(`id = ANY(?) AND lower((name)::text COLLATE "C") <> ?`);
    const statement = d.postgresPlaceholders(`SELECT id FROM t WHERE (${inner.sql}) AND id > ? ORDER BY id LIMIT 5 OFFSET ?`);
    expect(ids(await pg.unsafe(statement, [...inner.params, 1, 0] as never[]))).toEqual([2, 3]);
  });
});
