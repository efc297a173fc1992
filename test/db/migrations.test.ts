import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { runMigrations } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations.generated";

test("0001 backfills users.emails from user_emails, as SCIM renders them, in the IdP's order", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-migrate-"));
  const h = openDatabase(join(dir, "g.db"), { migrate: false });
  try {
    const init = migrations.findIndex((m) => m.tag === "0000_init");
    expect(runMigrations(h.db, init + 1)).toBe(1); // the database as the first release left it
    const now = new Date().toISOString();
    const user = h.sqlite.query("INSERT INTO users (user_name, user_name_key, display_name, created_at, updated_at) VALUES (?, ?, ?, ?, ?) RETURNING id");
    const a = (user.get("a@x.example", "a@x.example", "A", now, now) as { id: number }).id;
    const b = (user.get("b@x.example", "b@x.example", "B", now, now) as { id: number }).id;
    const email = h.sqlite.query("INSERT INTO user_emails (user_id, position, value, value_key, type, is_primary) VALUES (?, ?, ?, ?, ?, ?)");
    // inserted out of order: the backfill must follow `position`
    email.run(a, 1, "Home\"é@x.example", "home\"é@x.example", null, 0);
    email.run(a, 0, "a@x.example", "a@x.example", "work", 1);

    expect(runMigrations(h.db)).toBe(migrations.length - init - 1);
    const emailsOf = (id: number) => JSON.parse((h.sqlite.query("SELECT emails FROM users WHERE id = ?").get(id) as { emails: string }).emails);
    expect(emailsOf(a)).toEqual([{ value: "a@x.example", type: "work", primary: true }, { value: "Home\"é@x.example", primary: false }]);
    expect(emailsOf(b)).toEqual([]);
  } finally {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
});
