/**
 * While the database is away (a primary's failover, a restart, a cut connection) a node's periodic
 * work — the delivery loop's ticks, the leader election — fails on every round until it answers
 * again. That is logged as one warn when the outage starts and one info when it ends, never an
 * error per tick; a real failure (a query the schema does not answer) stays an error each time.
 * The rule in process (a capturing logger); then a node process against a throwaway PostgreSQL
 * server of its own that the test stops and starts.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import postgres from "postgres";
import { outageLog } from "../../src/db/availability";
import { LEADER_RETRY_MS } from "../../src/db/leader";
import { createLogger } from "../../src/log";
import { startBinary } from "../e2e/binary";
import { until } from "../helpers";
import { postgresBinDir, startPostgres, type PostgresServer } from "../support/postgres";

type Line = { level: string; msg: string; [field: string]: unknown };
const capture = () => {
  const lines: Line[] = [];
  return { lines, log: createLogger("debug", (l) => lines.push(JSON.parse(l) as Line)) };
};

test("outageLog: an outage is one warn and one info, however many failures; any other failure an error each time", () => {
  const { lines, log } = capture();
  const failures = outageLog(log, "some loop");
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
  failures.succeeded(); // nothing to recover from
  for (let i = 0; i < 5; i++) failures.failed(refused);
  failures.succeeded();
  failures.succeeded();
  failures.failed(Object.assign(new Error('relation "x" does not exist'), { code: "42P01" }));
  failures.failed(new Error("a bug"));
  expect(lines.map(({ level, msg }) => [level, msg])).toEqual([
    ["warn", "some loop: database unavailable; retrying until it answers"],
    ["info", "some loop: database available again"],
    ["error", "some loop failed"],
    ["error", "some loop failed"],
  ]);
  expect(lines[0]!.reason).toBe("ECONNREFUSED: connect ECONNREFUSED 127.0.0.1:5432");
  expect(typeof lines[1]!.unavailableMs).toBe("number");
  expect(lines[2]!.error).toBe('relation "x" does not exist');
});

let server: PostgresServer;
beforeAll(() => {
  server = startPostgres();
}, 60_000);
afterAll(() => server?.stop());

/** pg_ctl on the throwaway server (as its owner, `nobody`, when the test runs as root). */
function pgCtl(...args: string[]) {
  const argv = [join(postgresBinDir()!, "pg_ctl"), "-D", join(server.dir, "data"), ...args];
  const r = Bun.spawnSync(process.getuid?.() === 0 ? ["runuser", "-u", "nobody", "--", ...argv] : argv);
  if (r.exitCode !== 0) throw new Error(`pg_ctl ${args.join(" ")}: ${r.stderr}`);
}

// A node process (`gatehouse serve` from source), not an app in this process: the outage is seen
// as an operator sees it, in the node's own log lines.
test("the database stopped under a node: its delivery loop and leader election log one warn each, no error; started again: one info each; a broken schema: an error per tick", async () => {
  const node = await startBinary({
    command: [process.execPath, join(import.meta.dir, "../../src/main.ts")],
    env: { BUN_BE_BUN: "1", GATEHOUSE_DATABASE_URL: `${server.url}?connect_timeout=2`, GATEHOUSE_ADMIN_TOKEN: "outage-log-admin-token-0123", GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "50" },
    timeoutMs: 60_000,
  });
  const lines = () => node.logs().split("\n").filter((l) => l.startsWith("{")).map((l) => JSON.parse(l) as Line);
  const count = (level: string, msg: string) => lines().filter((l) => l.level === level && l.msg === msg).length;
  const errors = () => lines().filter((l) => l.level === "error");
  const tickWarn = ["warn", "webhook delivery tick: database unavailable; retrying until it answers"] as const;
  const leaderWarn = ["warn", "leader election: database unavailable; retrying until it answers"] as const;
  const tickBack = ["info", "webhook delivery tick: database available again"] as const;
  const leaderBack = ["info", "leader election: database available again"] as const;
  try {
    await until(() => lines().some((l) => l.msg.startsWith("leader: this node runs")), "the node leads", 15_000);

    pgCtl("-m", "immediate", "-w", "stop");
    // The loop polls every 50 ms, the election tries every 5 s: both fail many times meanwhile.
    await until(() => count(...tickWarn) === 1 && count(...leaderWarn) === 1, "the outage's warns", 20_000);
    await Bun.sleep(LEADER_RETRY_MS + 500);
    expect([count(...tickWarn), count(...leaderWarn)]).toEqual([1, 1]);
    expect(errors()).toEqual([]);
    expect(String(lines().find((l) => l.msg === tickWarn[1])!.reason)).toMatch(/^[A-Z0-9_]+: /); // the driver's code: refused, reset, closed…

    pgCtl("-l", join(server.dir, "log"), "-w", "-o", `-p ${server.port} -k ${server.dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off`, "start");
    await until(() => count(...tickBack) === 1 && count(...leaderBack) === 1, "the recovery's infos", 20_000);
    expect([count(...tickWarn), count(...leaderWarn), count(...tickBack), count(...leaderBack)]).toEqual([1, 1, 1, 1]);
    expect(errors()).toEqual([]);

    // Not an outage but a bug: the loop's query names a table that is not there. An error each tick.
    const sql = postgres(server.url, { max: 1, onnotice: () => {} });
    try {
      await sql`ALTER TABLE webhook_subscriptions RENAME TO webhook_subscriptions_away`;
      try {
        await until(() => count("error", "webhook delivery tick failed") >= 3, "an error per failing tick");
      } finally {
        await sql`ALTER TABLE webhook_subscriptions_away RENAME TO webhook_subscriptions`;
      }
    } finally {
      await sql.end();
    }
    expect(String(errors()[0]!.error)).toContain("webhook_subscriptions");
    expect([count(...tickWarn), count(...tickBack)]).toEqual([1, 1]);
    expect(node.proc.exitCode).toBeNull(); // the same process throughout
  } finally {
    await node.stop();
  }
}, 120_000);
