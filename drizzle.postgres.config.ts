import { defineConfig } from "drizzle-kit";

// PostgreSQL's tables are generated from the sqlite-core ones (scripts/postgres-schema.ts →
// src/db/postgres/schema.generated.ts); drizzle-kit keeps their own migration history here.
export default defineConfig({
  dialect: "postgresql",
  schema: "./src/db/postgres/schema.generated.ts",
  out: "./migrations-postgres",
});
