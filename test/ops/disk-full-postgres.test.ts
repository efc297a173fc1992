/**
 * A full disk under PostgreSQL, for real: the database lives in a tablespace on a small tmpfs, which
 * fills; the server answers ENOSPC as 53100 (disk_full). Gatehouse must answer 507 in each
 * protocol's format, report /readyz not writable, keep reads going, and recover by itself once the
 * filesystem has room again — the checks of test/ops/full-disk.ts, as on SQLite.
 *
 * Mounting the tmpfs needs root (as `.ci/run` runs); the test says so in its name and is skipped
 * elsewhere.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { migratePostgres } from "../../src/db/postgres/migrate";
import { atEnd } from "../support/at-end";
import { openTestNode, type TestNode } from "../support/in-process-nodes";
import { testServerUrl } from "../support/postgres";
import { withScimToken } from "../scim/helpers";
import { apiOf, expectFullThenRecovered } from "./full-disk";

const asRoot = process.getuid?.() === 0;
const name = `full_${process.pid}_${Date.now().toString(36)}`;
let mountPoint = "";
let admin: postgres.Sql;
let url = "";
let node: (TestNode & { scim: (method: string, path: string, body?: unknown) => Promise<Response> }) | null = null;

const run = (cmd: string, args: string[]) => {
  const r = spawnSync(cmd, args, { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr}`);
};

async function cleanUp() {
  await node?.close().catch(() => {});
  node = null;
  if (admin) {
    await admin.unsafe(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch(() => {});
    await admin.unsafe(`DROP TABLESPACE IF EXISTS "${name}"`).catch(() => {});
    await admin.end().catch(() => {});
  }
  if (mountPoint) {
    spawnSync("umount", [mountPoint]);
    rmSync(mountPoint, { recursive: true, force: true });
    mountPoint = "";
  }
}

beforeAll(async () => {
  if (!asRoot) return;
  const server = testServerUrl();
  admin = postgres(server, { max: 1, onnotice: () => {} });
  // The tablespace's directory must belong to the server's own OS user: the owner of its data directory.
  const [{ data_directory: dataDir }] = await admin<{ data_directory: string }[]>`SELECT current_setting('data_directory') AS data_directory`;
  const { uid, gid } = statSync(dataDir);
  mountPoint = mkdtempSync(join(tmpdir(), "gatehouse-pgfull-"));
  atEnd(() => {
    if (mountPoint) spawnSync("umount", [mountPoint]);
  });
  // Room for the database's catalogs and the migrated schema, not much more.
  run("mount", ["-t", "tmpfs", "-o", `size=24m,uid=${uid},gid=${gid},mode=0700`, "tmpfs", mountPoint]);
  await admin.unsafe(`CREATE TABLESPACE "${name}" LOCATION '${mountPoint}'`);
  await admin.unsafe(`CREATE DATABASE "${name}" TABLESPACE "${name}"`);
  const target = new URL(server);
  target.pathname = `/${name}`;
  url = target.toString();
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await migratePostgres(sql);
  } finally {
    await sql.end();
  }
  node = await withScimToken(openTestNode(url));
}, 120_000);

afterAll(cleanUp, 60_000);

test.skipIf(!asRoot)("PostgreSQL on a full disk: writes answer 507 in each protocol's format, /readyz says not writable, reads go on, and all recovers once the disk has room (root only: a tmpfs tablespace is the disk)", async () => {
  const t = node!;
  const api = await apiOf(t);
  expect((await t.request("GET", "/readyz")).status).toBe(200);

  // Fill what is left with incompressible rows stored in line, until the server refuses (53100).
  const fill = postgres(url, { max: 1, onnotice: () => {} });
  try {
    await fill.unsafe(`CREATE TABLE filler (b text)`);
    await fill.unsafe(`ALTER TABLE filler ALTER COLUMN b SET STORAGE EXTERNAL`);
    let full = false;
    for (let i = 0; i < 400 && !full; i++) {
      await fill.unsafe(`INSERT INTO filler SELECT (SELECT string_agg(md5(random()::text || g::text || s::text), '') FROM generate_series(1, 64) s) FROM generate_series(1, 200) g`).catch((e) => {
        expect((e as { code?: string }).code).toBe("53100");
        full = true;
      });
    }
    expect(full).toBe(true);
  } finally {
    await fill.end();
  }

  // The disk grows (an admin freed space): readiness and writes come back without a restart.
  await expectFullThenRecovered(t, api, () => run("mount", ["-o", "remount,size=96m", mountPoint]));
}, 120_000);
