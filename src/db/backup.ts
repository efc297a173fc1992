import { Database } from "bun:sqlite";
import { chmodSync, existsSync, statSync } from "node:fs";

/** `transient`: retrying may succeed (disk full, I/O error); otherwise the admin must act. */
export class BackupError extends Error {
  constructor(
    message: string,
    readonly transient = false,
  ) {
    super(message);
  }
}

/**
 * Writes a consistent copy of the database to `target` with `VACUUM INTO`: one read
 * transaction, so it is safe while the server writes (WAL readers never block the writer,
 * nor the writer them), and the copy is compacted and self-contained (no -wal file).
 * The copy is then opened and checked before we call it done.
 */
export function backupDatabase(source: string, target: string): { bytes: number } {
  if (!existsSync(source)) throw new BackupError(`no database at ${source} (check GATEHOUSE_DATA_DIR)`);
  if (existsSync(target)) throw new BackupError(`${target} already exists; refusing to overwrite it`);
  const db = new Database(source, { readonly: true });
  try {
    db.exec("PRAGMA busy_timeout = 5000");
    db.query("VACUUM INTO ?").run(target);
  } catch (e) {
    throw new BackupError(`backup failed: ${(e as Error).message}`, !/unable to open|readonly|permission|not a directory/i.test((e as Error).message));
  } finally {
    db.close();
  }
  // Owner-only whatever the umask: the copy holds token digests and sealed webhook secrets.
  chmodSync(target, 0o600);
  const copy = new Database(target, { readonly: true });
  try {
    const check = copy.query("PRAGMA quick_check").get() as { quick_check: string } | null;
    if (check?.quick_check !== "ok") throw new BackupError(`the copy at ${target} failed its integrity check: ${check?.quick_check}`);
  } finally {
    copy.close();
  }
  return { bytes: statSync(target).size };
}
