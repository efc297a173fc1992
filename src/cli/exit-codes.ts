/**
 * The exit-code table, one place. systemd's unit restarts on 1 and not on 2
 * (`RestartPreventExitStatus=2`): 2 means the admin must act — restarting cannot fix it and a
 * restart loop only buries the message; 1 means a retry may succeed (space freed, disk back).
 *
 *   0  success
 *   1  transient: disk full, I/O error, WAL sync failure, crash; PostgreSQL unreachable,
 *      starting up or not (yet) the primary
 *   2  the admin must act: usage, configuration, TLS files, data directory permissions or lock,
 *      port taken or not allowed, database newer than this executable; PostgreSQL refusing the
 *      login, the database or a privilege, or older than 15
 */
import { DatabaseNewerThanBinaryError } from "../db/migrate";
import { DatabaseConnectError } from "../db/postgres/connect-error";
import { sqliteCode } from "../db/lock-wait";
import { StartupConfigError } from "../server";

export const EXIT_OK = 0;
export const EXIT_TRANSIENT = 1;
export const EXIT_ADMIN_MUST_ACT = 2;

export type Failure = { code: typeof EXIT_TRANSIENT | typeof EXIT_ADMIN_MUST_ACT; message: string; stack?: string };

const FULL_OR_IO = /^(SQLITE_FULL|SQLITE_IOERR|ENOSPC|EIO|EDQUOT)/;

/** What an error that ended a command means for the exit code, and the one line that says it. */
export function classifyFailure(e: unknown): Failure {
  const message = (e as Error)?.message ?? String(e);
  if (e instanceof StartupConfigError || e instanceof DatabaseNewerThanBinaryError) return { code: EXIT_ADMIN_MUST_ACT, message };
  if (e instanceof DatabaseConnectError) return { code: e.transient ? EXIT_TRANSIENT : EXIT_ADMIN_MUST_ACT, message };
  const errno = (e as NodeJS.ErrnoException)?.code;
  const sqlite = sqliteCode(e);
  if ((errno && FULL_OR_IO.test(errno)) || (sqlite && FULL_OR_IO.test(sqlite)) || /disk is full|database or disk is full|disk I\/O error/i.test(message))
    return { code: EXIT_TRANSIENT, message: `storage failure (retrying once space or the disk is back): ${message}` };
  if (errno === "EADDRINUSE")
    return { code: EXIT_ADMIN_MUST_ACT, message: `cannot listen: address in use — another process (another organization's instance?) has GATEHOUSE_HOST/GATEHOUSE_PORT/GATEHOUSE_HTTP_REDIRECT_PORT: ${message}` };
  if (errno === "EACCES" || errno === "EPERM") return { code: EXIT_ADMIN_MUST_ACT, message: `not permitted: ${message}` };
  return { code: EXIT_TRANSIENT, message, stack: (e as Error)?.stack };
}
