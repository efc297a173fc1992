import { expect, test } from "bun:test";
import postgres from "postgres";
import { freshDatabase } from "./postgres";

test("the test PostgreSQL server answers, and each fresh database is its own", async () => {
  const a = await freshDatabase();
  const b = await freshDatabase();
  const sa = postgres(a.url, { max: 1, onnotice: () => {} });
  const sb = postgres(b.url, { max: 1, onnotice: () => {} });
  try {
    await sa`CREATE TABLE only_in_a (x int)`;
    const [{ n }] = await sb<{ n: number }[]>`SELECT count(*)::int AS n FROM pg_tables WHERE tablename = 'only_in_a'`;
    expect(n).toBe(0);
    const [{ v }] = await sa<{ v: string }[]>`SELECT current_setting('server_version_num') AS v`;
    expect(Number(v)).toBeGreaterThanOrEqual(150000);
  } finally {
    await sa.end();
    await sb.end();
    await a.drop();
    await b.drop();
  }
}, 120_000); // the first use may start the server (initdb) on a loaded machine
