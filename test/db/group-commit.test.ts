import { afterEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { testConfig } from "../../src/config";
import { closeDatabase, openDatabase, type DbHandle } from "../../src/db/connection";
import { databaseFile, openSqliteStorage } from "../../src/db/open";
import { writeTransaction } from "../../src/db/transaction";
import { DurabilityError, GroupCommit, WalFile, WRITE_HOLD_MAX_MS, WRITE_OPEN_MIN_MS, type WalSync } from "../../src/db/group-commit";

/** A WAL "disk" whose syncs finish only when the test says so (or fail). */
function heldDisk() {
  const syncs: { resolve(): void; reject(e: Error): void }[] = [];
  const disk: WalSync & { syncs: typeof syncs; releaseAll(): void } = {
    syncs,
    sync: () => new Promise<void>((resolve, reject) => syncs.push({ resolve, reject })),
    close() {},
    releaseAll() {
      for (const s of syncs.splice(0)) s.resolve();
    },
  };
  return disk;
}

const handles: { h: DbHandle; dir: string }[] = [];
afterEach(() => {
  for (const { h, dir } of handles.splice(0)) {
    closeDatabase(h);
    rmSync(dir, { recursive: true, force: true });
  }
});

function open(wal: WalSync | true) {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-gc-"));
  const h = openDatabase(join(dir, "gatehouse.db"), { groupCommit: wal });
  h.sqlite.exec("CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT)");
  handles.push({ h, dir });
  const insert = h.sqlite.query("INSERT INTO t (v) VALUES (?1)");
  return { h, gc: h.groupCommit, write: (v = "x") => h.sqlite.transaction(() => insert.run(v)).immediate() };
}

const settled = async (p: Promise<unknown>) => {
  let done = false;
  p.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  return done;
};

test("a write is durable only after a sync that started after its commit; the connection commits with synchronous=NORMAL", async () => {
  const disk = heldDisk();
  const { h, gc, write } = open(disk);
  expect((h.sqlite.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(1);
  expect(gc.grouped).toBe(true);
  write();
  const p = gc.durable();
  expect(await settled(p)).toBe(false);
  expect(disk.syncs.length).toBe(1);
  disk.releaseAll();
  await p;
  // Nothing written since: no sync, resolved at once.
  const syncs = gc.syncCount;
  await gc.durable();
  expect(gc.syncCount).toBe(syncs);
});

test("commits that land while a sync runs share the next one; a caller already covered joins the running one", async () => {
  const disk = heldDisk();
  const { gc, write } = open(disk);
  write();
  const first = gc.durable();
  await settled(first); // the first sync has started
  expect(disk.syncs.length).toBe(1);
  const covered = gc.durable(gc.mark()); // nothing new: rides on the running sync
  const later: Promise<void>[] = [];
  for (let i = 0; i < 10; i++) {
    write();
    later.push(gc.durable());
  }
  expect(await settled(Promise.all(later))).toBe(false);
  expect(disk.syncs.length).toBe(1); // the ten wait for the running sync to end, then share one
  disk.syncs.shift()!.resolve();
  await first;
  await covered;
  expect(await settled(Promise.all(later))).toBe(false);
  expect(disk.syncs.length).toBe(1);
  disk.releaseAll();
  await Promise.all(later);
  expect(gc.syncCount).toBe(2);
});

test("a failed sync rejects everything it covered and everything queued; later writes never become durable", async () => {
  const disk = heldDisk();
  const { gc, write } = open(disk);
  const failures: DurabilityError[] = [];
  gc.onFailure((e) => failures.push(e));
  write();
  const covered = gc.durable();
  await settled(covered);
  write();
  const queued = gc.durable();
  disk.syncs.shift()!.reject(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
  await expect(covered).rejects.toBeInstanceOf(DurabilityError);
  await expect(queued).rejects.toBeInstanceOf(DurabilityError);
  write();
  await expect(gc.durable()).rejects.toThrow("EIO");
  expect(failures.length).toBe(1);
  expect(disk.syncs.length).toBe(0); // no retry: after a failed fsync the WAL on disk is unknown
});

test("no sync starts while a transaction is open (its changes are counted but not committed); it starts as the transaction ends", async () => {
  const disk = heldDisk();
  const { h, gc } = open(disk);
  let p!: Promise<void>;
  await writeTransaction(h.db, async () => {
    h.sqlite.query("INSERT INTO t (v) VALUES ('in tx')").run();
    p = gc.durable();
    // Turns of the event loop pass while the body awaits: still no sync.
    expect(await settled(p)).toBe(false);
    expect(disk.syncs.length).toBe(0);
  });
  // Started in the gap after COMMIT, before anything else could run.
  expect(disk.syncs.length).toBe(1);
  disk.releaseAll();
  await p;
});

test("close starts the queued sync and waits for it", async () => {
  const disk = heldDisk();
  const { gc, write } = open(disk);
  write();
  const p = gc.durable();
  const closing = gc.close();
  expect(disk.syncs.length).toBe(1);
  disk.releaseAll();
  await closing;
  await p;
  write();
  await expect(gc.durable()).rejects.toThrow("closed");
});

test("WalFile fdatasyncs the WAL of a real database; an in-memory database has none and commits with FULL", async () => {
  const { gc, write } = open(true);
  write();
  await gc.durable();
  expect(gc.syncCount).toBe(1);
  const mem = openDatabase(":memory:", { groupCommit: true });
  expect(mem.groupCommit.grouped).toBe(false);
  expect((mem.sqlite.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(2);
  mem.sqlite.exec("CREATE TABLE x (a)");
  mem.sqlite.exec("INSERT INTO x VALUES (1)");
  await mem.groupCommit.durable(); // nothing to wait for
  closeDatabase(mem);
  expect(WalFile.open(":memory:")).toBeNull();
  expect(WalFile.open(join(tmpdir(), "gatehouse-no-such-db"))).toBeNull();
  const plain = new GroupCommit(open(true).h.sqlite, null);
  expect(plain.isDurable(Number.MAX_SAFE_INTEGER)).toBe(true);
});

test("the CLI's connection (migrate, scim-token: openSqliteStorage, no group commit) keeps synchronous=FULL", () => {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-gc-"));
  const h = openSqliteStorage(databaseFile(testConfig({ dataDir: dir }))).handle;
  handles.push({ h, dir });
  expect((h.sqlite.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous).toBe(2);
  expect(h.groupCommit.grouped).toBe(false);
});

test("holdWrites: request writes wait until the loop catches up, at most WRITE_HOLD_MAX_MS, then run freely for WRITE_OPEN_MIN_MS", async () => {
  const { gc } = open(true);
  expect(gc.admitWrite()).toBeUndefined();
  gc.holdWrites(true);
  const held = gc.admitWrite()!;
  expect(await settled(held)).toBe(false);
  gc.holdWrites(false); // caught up
  await held;
  expect(gc.admitWrite()).toBeUndefined();

  gc.holdWrites(true);
  const start = performance.now();
  await gc.admitWrite(); // the loop never reports back: the hold runs out
  expect(performance.now() - start).toBeGreaterThanOrEqual(WRITE_HOLD_MAX_MS - 5);
  gc.holdWrites(true); // ignored during the free run that follows
  expect(gc.admitWrite()).toBeUndefined();
  await Bun.sleep(WRITE_OPEN_MIN_MS + 10);
  gc.holdWrites(true);
  expect(gc.holdingWrites).toBe(true);
  await gc.close(); // closing lets everybody through
  expect(gc.holdingWrites).toBe(false);
});
