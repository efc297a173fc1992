import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { migrations } from "../../src/db/migrations.generated";
import { BINARY, binaryDatabase, binaryOnPostgres, buildBinary, ROOT, runBinaryCommand, startBinary } from "./binary";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-version-"));
beforeAll(() => buildBinary(), 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const LINE = /^gatehouse (\S+) \(schema (\d+), commit (\S+), built (\S+), bun (\S+), target (\S+)\)\n$/;

test("`gatehouse version` of the compiled binary reports the stamped commit, build date, Bun and target", async () => {
  const r = await runBinaryCommand(["version"], {});
  expect(r.code).toBe(0);
  const [, version, schema, commit, builtAt, bun, target] = LINE.exec(r.stdout) ?? [];
  expect({ version, schema, bun, target }).toEqual({ version: pkg.version, schema: String(migrations.length - 1), bun: Bun.version, target: `${process.platform}-${process.arch}` });
  // A commit of this repository (the one checked out when the binary was built).
  expect(commit).toMatch(/^[0-9a-f]{12}(-dirty)?$/);
  expect(Bun.spawnSync(["git", "cat-file", "-e", `${commit!.replace("-dirty", "")}^{commit}`], { cwd: ROOT }).exitCode).toBe(0);
  // Stamped when the file was written.
  expect(Math.abs(Date.parse(builtAt!) - statSync(BINARY).mtimeMs)).toBeLessThan(60_000);
});

test("/version and the starting log line of the binary say the same", async () => {
  const printed = LINE.exec((await runBinaryCommand(["version"], {})).stdout)!;
  const expected = { version: printed[1], schemaVersion: Number(printed[2]), commit: printed[3], builtAt: printed[4], bun: printed[5], target: printed[6] };
  const bin = await startBinary({ env: {} });
  try {
    expect(await (await fetch(`${bin.url}/version`)).json()).toEqual({ ...expected, databaseSchemaVersion: expected.schemaVersion });
    const starting = bin.logs().split("\n").find((l) => l.includes('"msg":"starting"'))!;
    expect(JSON.parse(starting)).toMatchObject(expected);
  } finally {
    expect(await bin.stop()).toBe(0);
  }
}, 60_000);

test("an older binary meeting a database a newer release migrated refuses to start: exit 2, clear message, nothing changed", async () => {
  const dataDir = join(dir, "data");
  const database = await binaryDatabase("newer");
  const env = { GATEHOUSE_DATA_DIR: dataDir, ...database.env };
  try {
    const first = await startBinary({ env });
    expect(await first.stop()).toBe(0);

    // What a newer release leaves behind: one more recorded migration, from after every one this binary carries.
    const newer = migrations.at(-1)!.when + 86_400_000;
    let snapshot: () => Promise<unknown>;
    let close = () => {};
    if (binaryOnPostgres) {
      const sql = database.sql();
      await sql`INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('from-a-newer-release', ${newer})`;
      snapshot = async () => [
        ...(await sql`SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY 1, 2`),
        ...(await sql`SELECT hash, created_at FROM "__drizzle_migrations" ORDER BY id`),
      ];
    } else {
      const db = new Database(join(dataDir, "gatehouse.db"));
      db.run("INSERT INTO __drizzle_migrations (hash, created_at) VALUES ('from-a-newer-release', ?)", [newer]);
      snapshot = async () => db.query("SELECT type, name, sql FROM sqlite_master UNION ALL SELECT 'row', hash, created_at FROM __drizzle_migrations").all();
      close = () => db.close();
    }
    const before = await snapshot();

    for (const args of [["serve"], ["migrate"]]) {
      const r = await runBinaryCommand(args, { ...env, GATEHOUSE_PORT: "0", GATEHOUSE_HOST: "127.0.0.1" });
      expect(r.code).toBe(2);
      const line = JSON.parse(r.stderr.trim().split("\n").at(-1)!);
      expect(line.level).toBe("error");
      // The same numbers as `gatehouse version` on either engine.
      expect(line.msg).toContain(`the database is at schema version ${migrations.length} and this Gatehouse knows schema versions up to ${migrations.length - 1}`);
      expect(line.msg).toContain("restore the backup taken before the upgrade");
      expect(r.stdout).not.toContain('"msg":"listening"');
    }
    expect(await snapshot()).toEqual(before);
    close();
  } finally {
    await database.drop();
  }
}, 60_000);
