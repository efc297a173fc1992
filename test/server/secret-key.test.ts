/**
 * One secret key for every node (issue 27), through the real start-up path (startGatehouse, and
 * `gatehouse serve` from source for the exit code): the database records the id of the key its
 * secrets are sealed with; on PostgreSQL a node with another key is refused (exit 2, naming
 * GATEHOUSE_SECRET_KEY_FILE) even before any webhook secret exists, a rotation through
 * GATEHOUSE_SECRET_KEY_PREVIOUS_FILE re-seals and records the new id, after which the old key alone
 * is refused. On SQLite (one process) a replaced key is refused only when a secret is sealed with
 * the lost one.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { engine, useEngine } from "../../src/db/engine";
import { StartupConfigError } from "../../src/server";
import { RECORDED_KEY_SETTING } from "../../src/server/secret-key";
import { secretBox } from "../../src/lib/secret-box";
import { testOnSqlite } from "../helpers";
import { freshDatabase } from "../support/postgres";
import { ADMIN_TOKEN, startInProcess } from "./harness";

const dir = mkdtempSync(join(tmpdir(), "gatehouse-secret-key-"));
const engineBefore = engine();
afterAll(() => {
  useEngine(engineBefore);
  rmSync(dir, { recursive: true, force: true });
});

/** A key file of fresh random bytes; returns its path and the id the box gives it. */
function keyFile(name: string): { file: string; id: string } {
  const key = randomBytes(32);
  const file = join(dir, `${name}.key`);
  writeFileSync(file, key.toString("base64") + "\n", { mode: 0o600 });
  return { file, id: secretBox(key).keyId };
}

const createSubscription = async (base: string) => {
  const r = await fetch(`${base}/api/admin/webhooks`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ url: "https://hooks.example.com/k", events: ["*"] }) });
  expect(r.status).toBe(201);
};

/** startGatehouse's refusal, or null when it started (then it is stopped). */
async function refusal(overrides: Parameters<typeof startInProcess>[0], opts: Parameters<typeof startInProcess>[1] = {}): Promise<Error | null> {
  try {
    const node = await startInProcess(overrides, opts);
    await node.close();
    return null;
  } catch (e) {
    return e as Error;
  }
}

describe("SQLite: one process, harmless", () => {
  testOnSqlite("a lost key is replaced when no secret is sealed with it (logged); once one is, the start is refused (SQLite's own rule: one process behind the data directory's lock)", async () => {
    const dataDir = join(dir, "sqlite-data");
    const first = await startInProcess({ dataDir }, { sqliteOnly: true });
    await first.close();
    // The key file in the data directory is lost: the next start makes a new one.
    rmSync(join(dataDir, "secret.key"));
    const second = await startInProcess({ dataDir }, { sqliteOnly: true });
    try {
      expect(second.lines.some((l) => l.msg === "the database recorded another secret key, which no stored secret uses: recorded this one")).toBe(true);
      await createSubscription(second.base);
    } finally {
      await second.close();
    }
    rmSync(join(dataDir, "secret.key"));
    const error = await refusal({ dataDir }, { sqliteOnly: true });
    expect(error).toBeInstanceOf(StartupConfigError);
    expect(error!.message).toContain("GATEHOUSE_SECRET_KEY_FILE");
  }, 60_000);
});

describe("PostgreSQL: every node's key is the database's", () => {
  let db: { url: string; drop(): Promise<void> };
  let sql: postgres.Sql;
  beforeAll(async () => {
    db = await freshDatabase("secretkey");
    sql = postgres(db.url, { max: 1, onnotice: () => {} });
  }, 60_000);
  afterAll(async () => {
    await sql?.end();
    await db?.drop();
  });
  const recorded = async () => (await sql<{ value: string }[]>`SELECT value FROM settings WHERE key = ${RECORDED_KEY_SETTING}`)[0]?.value ?? null;

  const a = keyFile("a");
  const b = keyFile("b");

  test("the first node records its key; a second node with the same key joins; one with its own key is refused before any secret exists", async () => {
    const n1 = await startInProcess({ databaseUrl: db.url, secretKeyFile: a.file });
    try {
      expect(await recorded()).toBe(a.id);
      const n2 = await startInProcess({ databaseUrl: db.url, secretKeyFile: a.file });
      await n2.close();
      // No webhook secret yet: without the record nothing would tell the keys apart.
      expect(Number((await sql`SELECT count(*) AS n FROM webhook_subscriptions`)[0]!.n)).toBe(0);
      for (const other of [{ secretKeyFile: b.file }, {}]) {
        const error = await refusal({ databaseUrl: db.url, ...other });
        expect(error).toBeInstanceOf(StartupConfigError);
        expect(error!.message).toStartWith("GATEHOUSE_SECRET_KEY_FILE: this node's key (");
        expect(error!.message).toContain(`is not the key the database's secrets are sealed with (id ${a.id})`);
        expect(error!.message).toContain("GATEHOUSE_SECRET_KEY_PREVIOUS_FILE");
      }
      expect(await recorded()).toBe(a.id);
      await createSubscription(n1.base);
    } finally {
      await n1.close();
    }
  }, 120_000);

  test("a rotation (new key, old one as previous) re-seals and records the new id; then the old key alone is refused, the new one starts", async () => {
    const rotated = await startInProcess({ databaseUrl: db.url, secretKeyFile: b.file, secretKeyPreviousFile: a.file });
    try {
      expect(rotated.lines.find((l) => l.msg === "webhook signing secrets encrypted with the current key")).toMatchObject({ secrets: 1, keyId: b.id });
    } finally {
      await rotated.close();
    }
    expect(await recorded()).toBe(b.id);
    const sealed = (await sql<{ secret: string }[]>`SELECT secret FROM webhook_subscriptions`)[0]!.secret;
    expect(sealed).toStartWith(`gh-sealed:v1:${b.id}:`);
    const error = await refusal({ databaseUrl: db.url, secretKeyFile: a.file });
    expect(error).toBeInstanceOf(StartupConfigError);
    expect(error!.message).toContain(`(id ${b.id})`);
    expect(await refusal({ databaseUrl: db.url, secretKeyFile: b.file })).toBeNull();
  }, 120_000);

  test("`gatehouse serve` with another key exits 2, naming GATEHOUSE_SECRET_KEY_FILE", async () => {
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/main.ts"), "serve"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", BUN_BE_BUN: "1", GATEHOUSE_DATABASE_URL: db.url, GATEHOUSE_SECRET_KEY_FILE: a.file, GATEHOUSE_DATA_DIR: join(dir, "serve-data"), GATEHOUSE_PORT: "0", GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    const killer = setTimeout(() => proc.kill("SIGKILL"), 60_000);
    const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
    clearTimeout(killer);
    expect({ code, named: stderr.includes(`GATEHOUSE_SECRET_KEY_FILE: this node's key (${a.file}, id ${a.id})`) }).toEqual({ code: 2, named: true });
    expect(await recorded()).toBe(b.id);
  }, 90_000);
});
