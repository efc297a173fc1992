/**
 * Which storage engine this process speaks: SQLite (the embedded default) or PostgreSQL
 * (`GATEHOUSE_DATABASE_URL`). One engine per process: the server picks it once at start, before
 * any query is built, because the SQL fragments that differ by engine (`dialect.ts`) are built
 * without a handle to the database. Tests pick it with `GATEHOUSE_TEST_DATABASE_URL`
 * (test/support/postgres.ts).
 */
export type Engine = "sqlite" | "postgres";

let current: Engine = "sqlite";

export function engine(): Engine {
  return current;
}

export function isPostgres(): boolean {
  return current === "postgres";
}

/** Sets the process's engine; the server and the test harness call it once, before building queries. */
export function useEngine(next: Engine): void {
  current = next;
}
