import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { migrations } from "../../src/db/migrations.generated";
import { ADMIN_TOKEN, startInProcess } from "../server/harness";

const ROOT = join(import.meta.dir, "../..");
let srv: Awaited<ReturnType<typeof startInProcess>>;
beforeAll(async () => {
  srv = await startInProcess();
});
afterAll(() => srv?.close());

// Run from source, so: the checkout's commit, no build date, the host platform marked as source.
const git = (...args: string[]) => Bun.spawnSync(["git", ...args], { cwd: ROOT }).stdout.toString().trim();
const build = {
  version: pkg.version,
  schemaVersion: migrations.length - 1,
  commit: git("rev-parse", "--short=12", "HEAD") + (git("status", "--porcelain", "--untracked-files=no") ? "-dirty" : ""),
  builtAt: null,
  bun: Bun.version,
  target: `source (${process.platform}-${process.arch})`,
};
// /version adds the database's own schema version: a migrated database is at the executable's.
const expected = { ...build, databaseSchemaVersion: migrations.length - 1 };

test("the starting log line says which build runs", () => {
  const starting = srv.lines.find((l) => l.msg === "starting");
  expect(starting).toMatchObject(build);
});

test("/version answers the same from loopback; through a proxy only with the admin token", async () => {
  const local = await fetch(`${srv.base}/version`);
  expect(local.status).toBe(200);
  expect(await local.json()).toEqual(expected);

  const proxied = await fetch(`${srv.base}/version`, { headers: { "x-forwarded-for": "203.0.113.9" } });
  expect(proxied.status).toBe(401);
  const withToken = await fetch(`${srv.base}/version`, { headers: { "x-forwarded-for": "203.0.113.9", authorization: `Bearer ${ADMIN_TOKEN}` } });
  expect(withToken.status).toBe(200);
  expect(await withToken.json()).toEqual(expected);
});

test("/metrics carries the build as labels of gatehouse_build_info", async () => {
  const text = await (await fetch(`${srv.base}/metrics`)).text();
  expect(text).toContain(`gatehouse_build_info{version="${expected.version}",commit="${expected.commit}",target="${expected.target}"} 1`);
});
