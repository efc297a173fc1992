import { defineConfig } from "drizzle-kit";

// Each feature owns its tables in `src/<feature>/tables.ts` (or a subfolder's tables.ts);
// drizzle-kit collects them all into one migration history under migrations/.
export default defineConfig({
  dialect: "sqlite",
  schema: ["./src/**/tables.ts"],
  out: "./migrations",
});
