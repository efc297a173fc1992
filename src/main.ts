#!/usr/bin/env bun
/** Entry point of the `gatehouse` executable; see src/cli/ for the commands. */
import { runCli } from "./cli";

let code: number;
try {
  code = await runCli(process.argv.slice(2));
} catch (e) {
  // Anything a command did not turn into an exit code itself (unwritable data dir, corrupt
  // database…): one readable line, the stack for whoever debugs it, exit 1.
  process.stderr.write(`gatehouse: ${(e as Error)?.message ?? e}\n${(e as Error)?.stack ?? ""}\n`);
  code = 1;
}
process.exit(code);
