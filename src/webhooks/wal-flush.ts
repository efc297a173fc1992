import { closeSync, fdatasync, openSync } from "node:fs";

/**
 * Makes the delivery loop's own commits durable without stalling the event loop on the disk.
 *
 * With `synchronous=FULL` every COMMIT waits for an fsync of the WAL, and bun:sqlite is
 * synchronous: the whole process (HTTP answers, the next deliveries) stands still for it, about
 * 0.4–1 ms per tick on the machines we measured. The loop's ticks therefore commit with
 * `synchronous=NORMAL` — the WAL frames are written, so a kill -9 loses nothing, but not yet
 * forced to disk — and this class then syncs the WAL file itself (`fdatasync`) on Bun's I/O thread pool.
 *
 * What that changes, and what it does not:
 * - An outcome counts as *recorded* only once the fsync that covers it has returned. Until then
 *   the loop counts it with the sent-but-unrecorded attempts, which stay bounded by
 *   2 × concurrency: after a power loss the duplicates are bounded exactly as with FULL.
 * - A power loss can roll back a tick that has not been flushed yet; that only ever re-sends an
 *   attempt (at-least-once, same `webhook-id`), it never loses an event: events are written by
 *   their producers' transactions, which commit with FULL, and an fsync of the WAL makes every
 *   frame before it durable too (WAL recovery replays frames in order).
 * - Every API write still commits with FULL before its 2xx.
 *
 * The file descriptor stays open for the loop's lifetime. SQLite never locks the `-wal` file (its
 * WAL locks live in `-shm`), so our descriptor cannot drop one of its POSIX locks, and SQLite only
 * deletes the WAL when the last connection closes, which this process's connection prevents.
 */
export class WalFlusher {
  private constructor(private fd: number | null) {}

  /** A flusher for `dbFile`'s WAL, or null when there is none (in-memory database, not in WAL mode). */
  static open(dbFile: string): WalFlusher | null {
    if (!dbFile || dbFile === ":memory:") return null;
    try {
      return new WalFlusher(openSync(`${dbFile}-wal`, "r"));
    } catch {
      return null;
    }
  }

  /**
   * Syncs the WAL file, off the main thread. Covers every frame written before the call.
   * `fdatasync`, as SQLite itself syncs the WAL on Linux: it forces the data and any size change
   * to disk, and skips the journal commit a mere mtime update would cost.
   */
  flush(): Promise<void> {
    const fd = this.fd;
    if (fd === null) return Promise.reject(new Error("WAL flusher is closed"));
    return new Promise((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));
  }

  close(): void {
    if (this.fd === null) return;
    try {
      closeSync(this.fd);
    } catch {
      /* already gone */
    }
    this.fd = null;
  }
}
