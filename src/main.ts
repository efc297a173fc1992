#!/usr/bin/env bun
/** Entry point of the `gatehouse` executable; see src/cli/ for the commands. */
import { runCli } from "./cli";
import { classifyFailure } from "./cli/exit-codes";

// Everything Gatehouse creates (data directory, database, WAL, lock, backups, key file) holds
// secrets or their digests: owner-only, whatever umask the shell or the init system left.
process.umask(0o077);

let code: number;
try {
  code = await runCli(process.argv.slice(2));
} catch (e) {
  // Anything a command did not turn into an exit code itself: still one JSON line.
  const failure = classifyFailure(e);
  process.stderr.write(JSON.stringify({ time: new Date().toISOString(), level: "error", msg: failure.message, stack: (e as Error)?.stack }) + "\n");
  code = failure.code;
}
process.exit(code);
