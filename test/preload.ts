/**
 * Loaded before every test file (bunfig.toml). Its `afterAll` runs once, after the last file: the
 * process-wide clean-ups (test/support/at-end.ts). In the PostgreSQL run every query is a network round
 * trip and each test app a database of its own, so a test that makes hundreds of requests takes
 * several times its SQLite time: the default per-test limit is 20 s there instead of bun's 5 s.
 * (Tests with a longer limit of their own keep it.)
 */
import { afterAll, setDefaultTimeout } from "bun:test";
import { runAtEnd } from "./support/at-end";

// Servers, temp dirs and databases the helpers made for the whole process (test/support/at-end.ts).
afterAll(runAtEnd);

if (process.env.GATEHOUSE_TEST_ENGINE === "postgres") setDefaultTimeout(20_000);
