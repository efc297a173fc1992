import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { DatabaseNewerThanBinaryError, runMigrations } from "../../src/db/migrate";
import { migrations } from "../../src/db/migrations.generated";

function withDatabase(body: (h: ReturnType<typeof openDatabase>) => void) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-newer-"));
  const h = openDatabase(join(dir, "g.db"), { migrate: false });
  try {
    body(h);
  } finally {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
}

const schemaOf = (h: ReturnType<typeof openDatabase>) => h.sqlite.query("SELECT type, name, sql FROM sqlite_master ORDER BY name").all();
const recorded = (h: ReturnType<typeof openDatabase>) => h.sqlite.query("SELECT id, hash, created_at FROM __drizzle_migrations ORDER BY id").all();

test("an older binary (knowing one migration fewer) refuses a database the newer one migrated, and changes nothing", () => {
  withDatabase((h) => {
    runMigrations(h.db);
    const before = { schema: schemaOf(h), recorded: recorded(h) };
    expect(() => runMigrations(h.db, migrations.length - 1)).toThrow(DatabaseNewerThanBinaryError);
    expect(() => runMigrations(h.db, migrations.length - 1)).toThrow(`the database is at schema version ${migrations.length - 1} and this Gatehouse knows schema versions up to ${migrations.length - 2} (the database records 1 migration(s) from a newer Gatehouse)`);
    expect({ schema: schemaOf(h), recorded: recorded(h) }).toEqual(before);
  });
});

test("a migration recorded from another line of releases is refused too, even when older than the newest known", () => {
  withDatabase((h) => {
    runMigrations(h.db);
    h.sqlite.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('elsewhere', ?)", [migrations[0]!.when + 1]);
    expect(() => runMigrations(h.db)).toThrow(DatabaseNewerThanBinaryError);
  });
});

test("a database an older release left, or a fresh one, is migrated as before", () => {
  withDatabase((h) => {
    expect(runMigrations(h.db, 1)).toBe(1);
    expect(runMigrations(h.db)).toBe(migrations.length - 1);
    expect(runMigrations(h.db)).toBe(0);
  });
});
