import { expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { createApp } from "../../src/app";
import { rowsOf } from "../../src/db/statement";
import { startInProcess } from "./harness";

test("shutdown lets in-flight requests finish, refuses new ones, stops the loop before closing the database", async () => {
  const events: string[] = [];
  let releaseSlow!: () => void;
  const slowGate = new Promise<void>((r) => (releaseSlow = r));
  const srv = await startInProcess({}, {
    buildApp: (ctx) =>
      createApp(ctx).get("/test/slow", async () => {
        events.push("slow started");
        await slowGate;
        events.push("slow finished");
        return { done: true };
      }),
    startLoop: (ctx) => ({
      async stop() {
        // The database must still be open when the loop stops (it may record a last attempt).
        await rowsOf(ctx.db, sql`SELECT 1`);
        events.push("loop stopped");
      },
    }),
  });

  const inFlight = fetch(`${srv.base}/test/slow`).then(async (r) => ({ status: r.status, body: await r.json() }));
  while (!events.includes("slow started")) await Bun.sleep(5);

  const shutdown = srv.shutdown("test");
  // Stopped accepting: a new connection is refused while the slow request is still running.
  await Bun.sleep(20);
  await expect(fetch(`${srv.base}/healthz`)).rejects.toThrow();
  expect(events).not.toContain("loop stopped");

  releaseSlow();
  expect(await inFlight).toEqual({ status: 200, body: { done: true } });
  await shutdown;
  expect(events).toEqual(["slow started", "slow finished", "loop stopped"]);
  // Closed: SQLite's writer, or PostgreSQL's pool.
  if (srv.ctx.sqlite) expect(() => srv.ctx.sqlite!.query("SELECT 1").get()).toThrow();
  else await expect(rowsOf(srv.ctx.db, sql`SELECT 1`)).rejects.toThrow();
  expect(srv.lines.map((l) => l.msg)).toContain("stopped");
  await srv.close(); // idempotent: a second shutdown is a no-op
});
