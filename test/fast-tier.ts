/**
 * Preloaded by `npm run test:fast` only. The inner loop's temp directories (every test app's
 * SQLite file) go to /dev/shm when it is a tmpfs: the code still calls fdatasync on every group
 * commit, the filesystem just makes it free, so a test measures the same behaviour without waiting
 * on the disk. `npm test` (CI, the whole suite) keeps the real temp directory and its syncs.
 */
import { statfsSync } from "node:fs";

const TMPFS_MAGIC = 0x01021994;
try {
  if (statfsSync("/dev/shm").type === TMPFS_MAGIC) process.env.TMPDIR = "/dev/shm";
} catch {
  // no /dev/shm (macOS): the default temp directory
}
