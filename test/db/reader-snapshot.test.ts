/**
 * SQLite's reader shares one read transaction between reads while nothing commits
 * (src/db/connection.ts, ReaderSnapshot): a commit by any connection — this process's writer or
 * another process — must be seen by the very next read, and a snapshot that nothing renews must
 * still end, so it never holds the WAL for long.
 */
import { Database } from "bun:sqlite";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeDatabase, openDatabase } from "../../src/db/connection";
import { useEngine } from "../../src/db/engine";
import { preparedQuery } from "../../src/db/statement";
import { writeTransaction } from "../../src/db/transaction";

const engineBefore = (await import("../../src/db/engine")).engine();
useEngine("sqlite");
const dir = mkdtempSync(join(tmpdir(), "gatehouse-reader-snapshot-"));
const file = join(dir, "gatehouse.db");
const handle = openDatabase(file, { groupCommit: true });
const db = handle.db;
afterAll(() => {
  closeDatabase(handle);
  rmSync(dir, { recursive: true, force: true });
  useEngine(engineBefore);
});

const settingOf = preparedQuery<{ value: string }, [string]>("SELECT value FROM settings WHERE key = ?1");
const valueOf = async (key: string) => (await settingOf.get(db, key))?.value;
const upsert = "INSERT INTO settings (key, value) VALUES (?1, ?2) ON CONFLICT (key) DO UPDATE SET value = excluded.value";

test("a commit by another connection (another process's) is seen by the next read at once", async () => {
  const other = new Database(file, { strict: true });
  try {
    other.exec("PRAGMA busy_timeout = 5000");
    for (let i = 0; i < 30; i++) {
      const before = i === 0 ? undefined : String(i - 1);
      expect(await valueOf("snapshot.a")).toBe(before); // these two reads share a snapshot
      expect(await valueOf("snapshot.a")).toBe(before);
      other.query(upsert).run("snapshot.a", String(i));
      expect(await valueOf("snapshot.a")).toBe(String(i));
    }
  } finally {
    other.close();
  }
});

test("a commit of this process's writer is seen by the next read at once, within the same turn", async () => {
  for (let i = 0; i < 30; i++) {
    await valueOf("snapshot.b");
    await writeTransaction(db, async (tx) => void (await preparedQuery(upsert).run(tx, "snapshot.b", String(i))));
    expect(await valueOf("snapshot.b")).toBe(String(i));
  }
});

test("a snapshot nothing renews ends on its own: another connection can then checkpoint and truncate the whole WAL", async () => {
  const other = new Database(file, { strict: true });
  try {
    other.exec("PRAGMA busy_timeout = 0");
    other.query(upsert).run("snapshot.c", "1");
    expect(await valueOf("snapshot.c")).toBe("1"); // the reader now holds a snapshot of the last frame
    expect((other.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy).toBe(1);
    await Bun.sleep(100);
    expect((other.query("PRAGMA wal_checkpoint(TRUNCATE)").get() as { busy: number }).busy).toBe(0);
    expect(await valueOf("snapshot.c")).toBe("1");
  } finally {
    other.close();
  }
});

test("under steady reads between this process's commits the WAL still restarts: the snapshot ends before each COMMIT's checkpoint", async () => {
  // Each commit writes a fresh 3 kB value (at least one new page); a read follows each one, as a
  // create's read-back does, so the reader always holds a snapshot when the next commit comes.
  // 3000 commits are three times the checkpoint threshold (1000 pages): a WAL that never restarts
  // ends past 12 MB; one that restarts stays near the threshold.
  const big = "x".repeat(3000);
  for (let i = 0; i < 3000; i++) {
    await writeTransaction(db, async (tx) => void (await preparedQuery(upsert).run(tx, `snapshot.wal.${i % 50}`, `${i}${big}`)));
    expect((await valueOf(`snapshot.wal.${i % 50}`))?.startsWith(String(i))).toBe(true);
  }
  expect(statSync(`${file}-wal`).size).toBeLessThan(8 * 1024 * 1024);
}, 60_000);
