/**
 * PostgreSQL's migrations (src/db/postgres/migrate.ts) on a real server: a fresh database, a
 * second run, nodes started at once (the advisory lock), a failing migration, and a database a
 * newer Gatehouse migrated (refused as on SQLite: test/db/newer-database.test.ts).
 */
import { afterEach, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { classifyFailure, EXIT_ADMIN_MUST_ACT } from "../../src/cli/exit-codes";
import { DatabaseNewerThanBinaryError } from "../../src/db/migrate";
import { MIGRATION_LOCK_KEY, migratePostgres } from "../../src/db/postgres/migrate";
import { migrations } from "../../src/db/postgres/migrations.generated";
import { freshDatabase, testServerUrl } from "../support/postgres";
import { SCHEMA_VERSION } from "../../src/version";

beforeAll(() => {
  testServerUrl(); // starts the test server (initdb) when the run has none, outside any test's time limit
}, 60_000);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
}, 30_000);

/** A fresh database and `n` clients of it, each its own connection pool; all dropped after the test. */
async function database(n = 1): Promise<postgres.Sql[]> {
  const db = await freshDatabase("migrate");
  cleanups.push(() => db.drop());
  const clients = Array.from({ length: n }, () => postgres(db.url, { max: 1, onnotice: () => {} }));
  for (const c of clients) cleanups.push(() => c.end());
  return clients;
}

const recorded = (sql: postgres.Sql) => sql<{ hash: string; created_at: string }[]>`SELECT hash, created_at::text FROM "__drizzle_migrations" ORDER BY id`;
const tables = (sql: postgres.Sql) => sql<{ name: string }[]>`SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY 1`;

test("a fresh database is migrated: every embedded migration applied and recorded once", async () => {
  const [sql] = await database();
  const applied: string[][] = [];
  expect(await migratePostgres(sql!, { onApplied: (tags) => applied.push(tags) })).toBe(migrations.length);
  expect(applied).toEqual([migrations.map((m) => m.tag)]);
  expect((await recorded(sql!)).map((r) => Number(r.created_at))).toEqual(migrations.map((m) => m.when));
  expect((await tables(sql!)).map((t) => t.name)).toContain("webhook_deliveries");
}, 30_000);

test("running it again applies nothing and changes nothing", async () => {
  const [sql] = await database();
  await migratePostgres(sql!);
  const before = { recorded: [...(await recorded(sql!))], tables: [...(await tables(sql!))] };
  let told = false;
  expect(await migratePostgres(sql!, { onApplied: () => (told = true) })).toBe(0);
  expect(told).toBe(false);
  expect({ recorded: [...(await recorded(sql!))], tables: [...(await tables(sql!))] }).toEqual(before);
}, 30_000);

test("three nodes started at once on one empty database: one applies the migrations, the others wait for it, then find them applied", async () => {
  const [holder, ...nodes] = await database(4);
  // Hold the lock while the three start, so all of them are surely racing for it.
  await holder!.unsafe(`SELECT pg_advisory_lock(${MIGRATION_LOCK_KEY})`);
  const started = nodes.map((sql) => migratePostgres(sql));
  const waiting = async () => (await holder!`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`)[0]!.n;
  for (let i = 0; i < 200 && (await waiting()) < 3; i++) await Bun.sleep(25);
  expect(await waiting()).toBe(3);
  expect([...(await tables(holder!))]).toEqual([]); // nothing done while the lock is held elsewhere
  await holder!.unsafe(`SELECT pg_advisory_unlock(${MIGRATION_LOCK_KEY})`);

  const counts = await Promise.all(started);
  expect(counts.sort()).toEqual([0, 0, migrations.length]);
  expect((await recorded(holder!)).map((r) => Number(r.created_at))).toEqual(migrations.map((m) => m.when));
  expect([...(await holder!`SELECT id::int FROM workspaces`)]).toEqual([{ id: 1 }]); // the seed row, once
}, 30_000);

test("three nodes started at once without anything holding them back migrate once too", async () => {
  const nodes = await database(3);
  const counts = await Promise.all(nodes.map((sql) => migratePostgres(sql)));
  expect(counts.sort()).toEqual([0, 0, migrations.length]);
  expect((await recorded(nodes[0]!)).length).toBe(migrations.length);
}, 30_000);

test("a migration that fails leaves nothing of itself and lets go of the lock; once the cause is gone, it applies", async () => {
  const [sql, other] = await database(2);
  // A table of the same name as one 0000 creates, made by something else.
  await sql!`CREATE TABLE webhook_deliveries (x int)`;
  await expect(migratePostgres(sql!)).rejects.toThrow(/webhook_deliveries.*already exists/);
  // Rolled back whole: none of the tables created before the failing statement, no record.
  expect((await tables(sql!)).map((t) => t.name).sort()).toEqual(["__drizzle_migrations", "webhook_deliveries"]);
  expect([...(await recorded(sql!))]).toEqual([]);
  await sql!`DROP TABLE webhook_deliveries`;
  // Another session gets the lock at once (a lock kept by the failed run would block it).
  expect(await migratePostgres(other!)).toBe(migrations.length);
}, 30_000);

test("a database a newer Gatehouse migrated is refused, as on SQLite (exit 2), and nothing is changed", async () => {
  const [sql] = await database();
  await migratePostgres(sql!);
  // A migration only a newer release carries, recorded by it.
  await sql!`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('from-a-newer-release', ${migrations.at(-1)!.when + 1})`;
  const schema = async () => [...(await sql!`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2`)];
  const before = { recorded: [...(await recorded(sql!))], schema: await schema() };

  const refusal = await migratePostgres(sql!).then(() => null, (e: unknown) => e);
  expect(refusal).toBeInstanceOf(DatabaseNewerThanBinaryError);
  expect((refusal as Error).message).toBe(
    `the database is at schema version ${SCHEMA_VERSION + 1} and this Gatehouse knows schema versions up to ${SCHEMA_VERSION} ` +
      `(the database records 1 migration(s) from a newer Gatehouse). Run the newer version, or restore the backup taken before the upgrade; nothing was changed.`,
  );
  expect(classifyFailure(refusal).code).toBe(EXIT_ADMIN_MUST_ACT);
  expect({ recorded: [...(await recorded(sql!))], schema: await schema() }).toEqual(before);
  // and the lock was let go: another run is refused the same way instead of waiting
  await expect(migratePostgres(sql!)).rejects.toThrow(DatabaseNewerThanBinaryError);
}, 30_000);

test("an older binary (knowing fewer migrations) refuses a database this one migrated", async () => {
  const [sql] = await database();
  await migratePostgres(sql!);
  await expect(migratePostgres(sql!, { upTo: migrations.length - 1 })).rejects.toThrow(DatabaseNewerThanBinaryError);
}, 30_000);
