#!/usr/bin/env bun
/** Entry point of the `gatehouse` executable; see src/cli/ for the commands. */
import { runCli } from "./cli";

const code = await runCli(process.argv.slice(2));
process.exit(code);
