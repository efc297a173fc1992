/**
 * What the SCIM read benchmarks share: bulk users written straight into a Gatehouse database
 * (user1@bench.example … userN@bench.example, ids 1…N on a fresh database), as the directory
 * stores them — the `users` row with its rendered `emails` copy and the `user_emails` index row.
 */
import type { Database } from "bun:sqlite";

/** Inserts users `from`…`to` in 10 000-row transactions (short write locks: the server's own writers never wait long). */
export function loadBenchUsers(sqlite: Database, from: number, to: number): void {
  const insUser = sqlite.query(
    "INSERT INTO users (user_name, user_name_key, external_id, given_name, family_name, display_name, emails, user_type, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, 1, ?, ?) RETURNING id",
  );
  const insEmail = sqlite.query("INSERT INTO user_emails (user_id, position, value, value_key, type, is_primary) VALUES (?, 0, ?, ?, 'work', 1)");
  const batch = sqlite.transaction((first: number, last: number) => {
    const now = new Date().toISOString();
    for (let i = first; i <= last; i++) {
      const name = `user${i}@bench.example`;
      // users.emails is the rendered copy of user_emails (see src/directory/users.ts)
      const emails = JSON.stringify([{ value: name, type: "work", primary: true }]);
      const { id } = insUser.get(name, name, `ext-${i}`, `Given${i}`, `Family${i % 9973}`, `Given${i} Family${i % 9973}`, emails, i % 10 === 0 ? "read-only" : "regular", now, now) as { id: number };
      insEmail.run(id, name, name);
    }
  });
  for (let first = from; first <= to; first += 10_000) batch(first, Math.min(to, first + 9_999));
  sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}

/**
 * The same users on PostgreSQL (ids 1…N on a fresh database), in multi-row inserts of 5 000 (the
 * protocol's 65 535 parameters), then the identity set past them and the planner's statistics
 * taken, as a server that has been running would have them.
 */
export async function loadBenchUsersPostgres(sql: import("postgres").Sql, from: number, to: number): Promise<void> {
  for (let first = from; first <= to; first += 5_000) {
    const last = Math.min(to, first + 4_999);
    const now = new Date().toISOString();
    const users: Record<string, string | number>[] = [];
    const emails: Record<string, string | number>[] = [];
    for (let i = first; i <= last; i++) {
      const name = `user${i}@bench.example`;
      users.push({ id: i, user_name: name, user_name_key: name, external_id: `ext-${i}`, given_name: `Given${i}`, family_name: `Family${i % 9973}`, display_name: `Given${i} Family${i % 9973}`, emails: JSON.stringify([{ value: name, type: "work", primary: true }]), user_type: i % 10 === 0 ? "read-only" : "regular", active: 1, created_at: now, updated_at: now });
      emails.push({ user_id: i, position: 0, value: name, value_key: name, type: "work", is_primary: 1 });
    }
    await sql.begin(async (tx) => {
      await tx`INSERT INTO users ${tx(users)}`;
      await tx`INSERT INTO user_emails ${tx(emails)}`;
    });
  }
  await sql`SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT max(id) FROM users))`;
  await sql`VACUUM ANALYZE users`;
  await sql`VACUUM ANALYZE user_emails`;
}

/**
 * A fresh benchmark database on PostgreSQL, as `serve` would find it: migrated, a SCIM token (its
 * value returned) and users 1…`users`. The benchmarks' shared setup for `--engine postgres`.
 */
export async function seedBenchPostgres(url: string, users: number): Promise<{ scimToken: string }> {
  const { openPool } = await import("../src/db/postgres/connect");
  const { migratePostgres } = await import("../src/db/postgres/migrate");
  const { postgresHandle } = await import("../src/db/postgres/open");
  const { createScimToken } = await import("../src/scim/tokens/service");
  const { sql } = openPool({ url, poolSize: 4, caFile: null });
  try {
    await migratePostgres(sql);
    const scimToken = (await createScimToken(postgresHandle(sql).db, "bench")).token;
    await loadBenchUsersPostgres(sql, 1, users);
    return { scimToken };
  } finally {
    await sql.end();
  }
}
