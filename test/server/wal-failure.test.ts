import { afterAll, expect } from "bun:test";
import { DurabilityError } from "../../src/db/group-commit";
import { testOnSqlite } from "../helpers";
import { ADMIN_TOKEN, startInProcess } from "./harness";

/** Fail-stop: the first failed WAL sync answers 503 to the writes it covered and stops the server. */
let srv: Awaited<ReturnType<typeof startInProcess>>;
afterAll(() => srv?.close());

testOnSqlite("a failed WAL sync answers 503 (never 2xx) and the server stops, as after a crash (SQLite's WAL sync: PostgreSQL syncs its own WAL and stops itself on a failed fsync)", async () => {
  const disk = { sync: () => Promise.reject(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" })), close() {} };
  srv = await startInProcess({}, { walSync: disk, sqliteOnly: true });
  const write = (name: string) =>
    fetch(`${srv.base}/api/admin/api-tokens`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" }, body: JSON.stringify({ name }) });
  const answers = await Promise.all([write("a"), write("b"), write("c")]);
  expect(answers.map((r) => r.status)).toEqual([503, 503, 503]);
  expect(await srv.failed).toBeInstanceOf(DurabilityError);
  expect(srv.lines.some((l) => l.msg === "WAL sync failed: stopping; writes since the last good sync answered 503")).toBe(true);
  expect(srv.lines.some((l) => l.msg === "stopped")).toBe(true);
  await expect(fetch(`${srv.base}/healthz`)).rejects.toThrow(); // no longer listening
});
