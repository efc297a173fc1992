import { sqliteTable, text } from "drizzle-orm/sqlite-core";

/** Small run-time settings changed through the admin API (e.g. the SCIM on/off toggle). */
export const settings = sqliteTable("settings", {
  key: text("key").primaryKey(),
  value: text("value").notNull(),
});
