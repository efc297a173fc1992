/**
 * Prints the name of a template database on the run's PostgreSQL server migrated to this
 * checkout's schema, building it when absent (once per schema, under an advisory lock, by whichever
 * test process needs it first). Run synchronously by `freshDatabaseSync`, so a test app over
 * PostgreSQL is built as synchronously as one over SQLite.
 */
import { createHash } from "node:crypto";
import postgres from "postgres";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { migrations } from "../../src/db/postgres/migrations.generated";

const server = process.argv[2]!;
const schema = createHash("sha256").update(migrations.map((m) => m.sql).join("\n")).digest("hex").slice(0, 12);
const template = `gatehouse_template_${schema}`;
const admin = postgres(server, { max: 1, onnotice: () => {} });
try {
  await admin`SELECT pg_advisory_lock(4242)`;
  try {
    const [found] = await admin`SELECT datistemplate FROM pg_database WHERE datname = ${template}`;
    if (!found) {
      const building = `${template}_building`;
      await admin.unsafe(`DROP DATABASE IF EXISTS "${building}"`);
      await admin.unsafe(`CREATE DATABASE "${building}"`);
      const url = new URL(server);
      url.pathname = `/${building}`;
      const db = postgres(url.toString(), { max: 1, onnotice: () => {} });
      try {
        await migratePostgres(db);
      } finally {
        await db.end();
      }
      await admin.unsafe(`ALTER DATABASE "${building}" RENAME TO "${template}"`);
      await admin.unsafe(`ALTER DATABASE "${template}" WITH IS_TEMPLATE true`);
    }
  } finally {
    await admin`SELECT pg_advisory_unlock(4242)`;
  }
  process.stdout.write(template);
} finally {
  await admin.end();
}
