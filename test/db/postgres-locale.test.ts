/**
 * The start-up check of the database's text rules (src/db/postgres/connect.ts): Gatehouse's SQL
 * compares and orders text by bytes, as SQLite does, which PostgreSQL does only in a UTF8 database
 * with the libc C or C.UTF-8 locale. Debian's server has no other libc locale generated here
 * (`locale -a`: C, C.utf8, POSIX), so the other orders are ICU's, which it is built with.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { classifyFailure, EXIT_ADMIN_MUST_ACT } from "../../src/cli/exit-codes";
import { connectPostgres, DatabaseConnectError } from "../../src/db/postgres/connect";
import { testServerUrl } from "../support/postgres";

let admin: postgres.Sql;
const created: string[] = [];

beforeAll(() => {
  admin = postgres(testServerUrl(), { max: 1, onnotice: () => {} });
}, 120_000);

afterAll(async () => {
  for (const name of created) await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
  await admin.end();
});

async function databaseWith(options: string): Promise<string> {
  const name = `locale_${process.pid}_${created.length}`;
  await admin.unsafe(`CREATE DATABASE "${name}" TEMPLATE template0 ${options}`);
  created.push(name);
  const url = new URL(testServerUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function refusal(url: string): Promise<string> {
  const error = await connectPostgres({ url, poolSize: 1, caFile: null }).then(
    async ({ sql }) => (await sql.end(), null),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(DatabaseConnectError);
  expect(classifyFailure(error).code as number).toBe(EXIT_ADMIN_MUST_ACT);
  return (error as Error).message;
}

test("a database ordering text by an ICU locale is refused at start, exit 2, with the CREATE DATABASE that fixes it", async () => {
  const url = await databaseWith("ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'");
  // The order Gatehouse's queries would get there: not the bytes' (SQLite's "B" < "a").
  const ordered = postgres(url, { max: 1, onnotice: () => {} });
  expect((await ordered`SELECT x FROM (VALUES ('a'), ('B')) t(x) ORDER BY x`).map((r) => r.x)).toEqual(["a", "B"]);
  await ordered.end();
  const name = new URL(url).pathname.slice(1);
  expect(await refusal(url)).toBe(
    `PostgreSQL at postgres://gatehouse@127.0.0.1:${new URL(url).port}/${name}?sslmode=prefer&target_session_attrs=read-write: database "${name}" takes its collation from ICU (locale provider "icu"); ` +
      "Gatehouse compares and orders text by its bytes, as on SQLite, and needs a UTF8 database with the C or C.UTF-8 locale: " +
      `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER libc LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' (under another name, then move the data with pg_dump and pg_restore)`,
  );
});

test("a database that is not UTF8 is refused; C and C.UTF-8 databases are taken", async () => {
  expect(await refusal(await databaseWith("ENCODING 'SQL_ASCII' LOCALE 'C'"))).toContain('has the encoding SQL_ASCII; Gatehouse compares and orders text by its bytes');
  for (const locale of ["C", "C.UTF-8"]) {
    const { sql } = await connectPostgres({ url: await databaseWith(`ENCODING 'UTF8' LOCALE '${locale}'`), poolSize: 1, caFile: null });
    await sql.end();
  }
});
