/**
 * `connectPostgres` against real servers (test/support/postgres.ts): one that asks for passwords
 * and speaks TLS with a certificate from a CA made here, one without TLS (restarted last), and a
 * streaming standby of it. Every refusal is checked for its message, its exit code through the
 * CLI's table, and the absence of the password.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { classifyFailure, EXIT_ADMIN_MUST_ACT, EXIT_TRANSIENT } from "../../src/cli/exit-codes";
import { connectPostgres, DatabaseConnectError, type PostgresSettings } from "../../src/db/postgres/connect";
import { postgresBinDir, startPostgres, type PostgresServer } from "../support/postgres";

/** Every character a URL gives a meaning to; percent-encoded in the URLs below. */
const PASSWORD = "p@ss:w/rd?#%&=+ é'x";
const ENCODED = encodeURIComponent(PASSWORD);

const certs = mkdtempSync(join(tmpdir(), "gatehouse-pg-tls-"));
const openssl = (...args: string[]) => {
  const r = spawnSync("openssl", args, { cwd: certs, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`openssl ${args[0]} failed: ${r.stderr}`);
};
/** A CA, a server certificate it signs for DNS:localhost only (not 127.0.0.1), and an unrelated CA. */
function makeCertificates() {
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt", "-days", "1", "-subj", "/CN=Gatehouse test CA");
  openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "other-ca.key", "-out", "other-ca.crt", "-days", "1", "-subj", "/CN=Some other CA");
  openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost");
  writeFileSync(join(certs, "server.ext"), "subjectAltName=DNS:localhost\n");
  openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.crt", "-days", "1", "-extfile", "server.ext");
}
const caFile = join(certs, "ca.crt");
const otherCaFile = join(certs, "other-ca.crt");

let secured: PostgresServer; // TLS, passwords for every role but the superuser
let plain: PostgresServer; // no TLS, trust
const admin = (server: PostgresServer, database = "postgres") => postgres({ host: "127.0.0.1", port: server.port, user: "gatehouse", database, max: 1, onnotice: () => {} });

beforeAll(async () => {
  makeCertificates();
  secured = startPostgres(["ssl=on", "ssl_cert_file=server.crt", "ssl_key_file=server.key"], {
    files: { "server.crt": readFileSync(join(certs, "server.crt"), "utf8"), "server.key": readFileSync(join(certs, "server.key"), "utf8") },
    hba: ["local all all trust", "host all gatehouse 127.0.0.1/32 trust", "host all all 127.0.0.1/32 scram-sha-256", "host all all ::1/128 scram-sha-256", ""].join("\n"),
  });
  plain = startPostgres();
  const a = admin(secured);
  try {
    await a.unsafe(`CREATE ROLE app LOGIN PASSWORD '${PASSWORD.replaceAll("'", "''")}'`);
    await a.unsafe("CREATE DATABASE gatehouse_app OWNER app");
    await a.unsafe("CREATE DATABASE not_app_owned"); // owned by the superuser: PostgreSQL 15 gives app no CREATE in its public schema
    await a.unsafe("CREATE DATABASE no_connect");
    await a.unsafe("REVOKE CONNECT ON DATABASE no_connect FROM PUBLIC");
    await a.unsafe("CREATE DATABASE read_only");
    await a.unsafe("ALTER DATABASE read_only SET default_transaction_read_only = on");
  } finally {
    await a.end();
  }
}, 120_000);

afterAll(() => {
  secured?.stop();
  plain?.stop();
  rmSync(certs, { recursive: true, force: true });
});

const appUrl = (database = "gatehouse_app", query = "sslmode=require", host = "127.0.0.1", password = ENCODED) => `postgres://app:${password}@${host}:${secured.port}/${database}?${query}`;
const settings = (url: string, caFile: string | null = null): PostgresSettings => ({ url, poolSize: 3, caFile });

/** Connects, runs `check` on the pool, closes it. */
async function connected(s: PostgresSettings, check: (sql: postgres.Sql, serverVersion: number) => Promise<void> = async () => {}) {
  const { sql, serverVersion } = await connectPostgres(s);
  try {
    await check(sql, serverVersion);
  } finally {
    await sql.end();
  }
}

/** The refusal's message (which must hold `says` and not the password) and its exit code. */
async function refusal(s: PostgresSettings, says: string | RegExp, exit: number, options?: { minServerVersion?: number }) {
  let error: unknown = null;
  try {
    const { sql } = await connectPostgres(s, options);
    await sql.end();
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(DatabaseConnectError);
  const message = (error as Error).message;
  if (typeof says === "string") expect(message).toContain(says);
  else expect(message).toMatch(says);
  for (const secret of [PASSWORD, ENCODED, "w/rd", "p@ss", "rd?"]) expect(message).not.toContain(secret);
  expect({ message, exit: classifyFailure(error).code as number }).toEqual({ message, exit });
  return message;
}

describe("a good URL", () => {
  test("connects (the password with URL-special characters decoded), reports the version, and sets the pool up as Gatehouse needs it", async () => {
    await connected(settings(appUrl()), async (sql, serverVersion) => {
      expect(serverVersion).toBeGreaterThanOrEqual(150000);
      const [row] = await sql`
        SELECT current_user AS role, current_setting('application_name') AS app,
               (SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()) AS tls,
               count(*) AS n, 9007199254740991::int8 AS big, sum(x) AS total, ${12n as unknown as number}::int8 AS from_bigint, ${7}::int8 AS from_number
        FROM (VALUES (1::int8), (2::int8)) AS t(x)`;
      // int8 and numeric come back as numbers, as SQLite's INTEGER does; a bigint parameter is
      // serialized too (the cast: postgres.Sql's parameter types know no bigint).
      expect(row).toEqual({ role: "app", app: "gatehouse", tls: true, n: 2, big: 9007199254740991, total: 3, from_bigint: 12, from_number: 7 });
      expect(sql.options.max).toBe(3);
      expect(sql.options.prepare).toBe(true);
    });
  });

  test("postgresql:// is the same; several hosts: the first that answers as the primary", async () => {
    await connected(settings(`postgresql://app:${ENCODED}@127.0.0.1:1,127.0.0.1:${secured.port}/gatehouse_app?sslmode=require`), async (sql) => {
      const [row] = await sql`SELECT inet_server_port() AS port`;
      expect(row!.port).toBe(secured.port);
    });
  });
});

describe("refusals the admin must act on: exit 2", () => {
  test("a bad URL names the key and what was expected", async () => {
    await refusal(settings(`mysql://app:${ENCODED}@127.0.0.1/x`), "GATEHOUSE_DATABASE_URL: expected a postgres:// or postgresql:// URL", EXIT_ADMIN_MUST_ACT);
    await refusal(settings(`postgres://app:${PASSWORD}@127.0.0.1/x`), /^GATEHOUSE_DATABASE_URL: expected a URL/, EXIT_ADMIN_MUST_ACT);
  });

  test("a wrong password", async () => {
    const wrong = encodeURIComponent(`${PASSWORD}!`);
    await refusal(settings(appUrl("gatehouse_app", "sslmode=require", "127.0.0.1", wrong)), 'authentication failed (wrong password, or no such role): password authentication failed for user "app"', EXIT_ADMIN_MUST_ACT);
  });

  test("an unknown role", async () => {
    await refusal(settings(`postgres://nobody_here:${ENCODED}@127.0.0.1:${secured.port}/gatehouse_app?sslmode=require`), "authentication failed", EXIT_ADMIN_MUST_ACT);
    await refusal(settings(`postgres://nobody_here@127.0.0.1:${plain.port}/postgres`), 'the server refused the login (no such role, or pg_hba.conf has no entry for this host, user and database): role "nobody_here" does not exist', EXIT_ADMIN_MUST_ACT);
  });

  test("a database that does not exist", async () => {
    await refusal(settings(appUrl("missing_db")), 'the database does not exist (createdb, or CREATE DATABASE … OWNER …): database "missing_db" does not exist', EXIT_ADMIN_MUST_ACT);
  });

  test("no CONNECT privilege on the database", async () => {
    await refusal(settings(appUrl("no_connect")), 'permission denied (GRANT CONNECT ON DATABASE … TO …): permission denied for database "no_connect"', EXIT_ADMIN_MUST_ACT);
  });

  test("a role that may not create tables in its schema, until granted", async () => {
    await refusal(
      settings(appUrl("not_app_owned")),
      'role "app" may not create tables in schema "public" of database "not_app_owned": GRANT USAGE, CREATE ON SCHEMA public TO app',
      EXIT_ADMIN_MUST_ACT,
    );
    const a = admin(secured, "not_app_owned");
    try {
      await a`GRANT USAGE, CREATE ON SCHEMA public TO app`;
    } finally {
      await a.end();
    }
    await connected(settings(appUrl("not_app_owned")));
  });

  test("a server older than required (the refusal shown on the one server version there is)", async () => {
    await refusal(settings(appUrl()), /: the server is PostgreSQL 1\d\.\d+; Gatehouse needs 99 or newer$/, EXIT_ADMIN_MUST_ACT, { minServerVersion: 990000 });
  });
});

describe("refusals a retry may cure: exit 1", () => {
  test("connection refused", async () => {
    const message = await refusal(settings(`postgres://app:${ENCODED}@127.0.0.1:1/gatehouse_app`), "cannot connect (127.0.0.1:1): connection refused (is the server running and listening there?) — retrying", EXIT_TRANSIENT);
    expect(message).toStartWith("PostgreSQL at postgres://app:***@127.0.0.1:1/gatehouse_app?");
  });

  test("a server that accepts the connection and never answers: connect_timeout", async () => {
    const silent = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    try {
      const started = performance.now();
      await refusal(settings(`postgres://app:${ENCODED}@127.0.0.1:${silent.port}/gatehouse_app?connect_timeout=1&sslmode=disable`), "no answer within connect_timeout — retrying", EXIT_TRANSIENT);
      expect(performance.now() - started).toBeLessThan(5000);
    } finally {
      silent.stop(true);
    }
  });

  test("several hosts, none answering: refused within each host's connect_timeout, not left hanging", async () => {
    const started = performance.now();
    await refusal(
      settings(`postgres://app:${ENCODED}@127.0.0.1:1,127.0.0.1:2/gatehouse_app?connect_timeout=1`),
      "no host accepted a connection as the primary (each refused, timed out or is a standby) within 3 s (connect_timeout=1) — retrying",
      EXIT_TRANSIENT,
    );
    expect(performance.now() - started).toBeLessThan(6000);
  });

  test("a server that only accepts read-only transactions", async () => {
    await refusal(settings(`postgres://gatehouse@127.0.0.1:${secured.port}/read_only?sslmode=require`), "accepts only read-only transactions (default_transaction_read_only); Gatehouse needs the primary", EXIT_TRANSIENT);
  });
});

describe("TLS (sslmode)", () => {
  test("verify-full: the certificate chains to the CA file and names the host", async () => {
    await connected(settings(appUrl("gatehouse_app", "sslmode=verify-full", "localhost"), caFile), async (sql) => {
      const [row] = await sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`;
      expect(row!.ssl).toBe(true);
    });
  });

  test("verify-full refuses a host the certificate does not name; verify-ca does not check the name", async () => {
    await refusal(settings(appUrl("gatehouse_app", "sslmode=verify-full", "127.0.0.1"), caFile), "the server's certificate does not name the host (sslmode=verify-full)", EXIT_ADMIN_MUST_ACT);
    await connected(settings(appUrl("gatehouse_app", "sslmode=verify-ca", "127.0.0.1"), caFile));
  });

  test("verify-full and verify-ca refuse a certificate from another CA, or none this system trusts", async () => {
    for (const mode of ["verify-full", "verify-ca"]) {
      await refusal(settings(appUrl("gatehouse_app", `sslmode=${mode}`, "localhost"), otherCaFile), `the server's certificate is not signed by the CA in GATEHOUSE_DATABASE_CA_FILE (${otherCaFile})`, EXIT_ADMIN_MUST_ACT);
    }
    await refusal(settings(appUrl("gatehouse_app", "sslmode=verify-full", "localhost")), "is not signed by a CA this system trusts (set GATEHOUSE_DATABASE_CA_FILE to the server's CA)", EXIT_ADMIN_MUST_ACT);
  });

  test("a CA file that cannot be read, or holds no certificate", async () => {
    await refusal(settings(appUrl("gatehouse_app", "sslmode=verify-full", "localhost"), join(certs, "absent.pem")), `GATEHOUSE_DATABASE_CA_FILE: cannot read ${join(certs, "absent.pem")}: ENOENT`, EXIT_ADMIN_MUST_ACT);
    await refusal(settings(appUrl("gatehouse_app", "sslmode=verify-full", "localhost"), join(certs, "server.ext")), "holds no PEM certificate", EXIT_ADMIN_MUST_ACT);
  });

  test("require encrypts without checking the certificate (libpq's meaning); disable does not encrypt", async () => {
    await connected(settings(appUrl("gatehouse_app", "sslmode=require", "127.0.0.1")), async (sql) => {
      expect((await sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`)[0]!.ssl).toBe(true);
    });
    await connected(settings(`postgres://gatehouse@127.0.0.1:${secured.port}/postgres?sslmode=disable`), async (sql) => {
      expect((await sql`SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()`)[0]!.ssl).toBe(false);
    });
  });

  test("require against a server without TLS says so (exit 2); prefer falls back to plain", async () => {
    await refusal(settings(`postgres://gatehouse@127.0.0.1:${plain.port}/postgres?sslmode=require`), `127.0.0.1:${plain.port} does not accept TLS (ssl=off on the server), and sslmode=require requires it`, EXIT_ADMIN_MUST_ACT);
    await connected(settings(`postgres://gatehouse@127.0.0.1:${plain.port}/postgres?sslmode=prefer`));
  });
});

const bin = postgresBinDir()!;
function asServerUser(command: string, ...args: string[]) {
  const argv = [join(bin, command), ...args];
  const r = process.getuid?.() === 0 ? spawnSync("runuser", ["-u", "nobody", "--", ...argv], { encoding: "utf8" }) : spawnSync(argv[0]!, argv.slice(1), { encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${command} failed: ${r.stderr}${r.stdout}`);
}

describe("a streaming standby (what the cluster's failover looks like)", () => {
  let standbyDir = "";
  let standbyPort = 0;
  beforeAll(() => {
    standbyDir = mkdtempSync(join(tmpdir(), "gatehouse-pg-standby-"));
    chmodSync(standbyDir, 0o777);
    asServerUser("pg_basebackup", "-h", "127.0.0.1", "-p", String(plain.port), "-U", "gatehouse", "-D", join(standbyDir, "data"), "-R", "-X", "stream", "--checkpoint=fast", "--no-sync");
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    standbyPort = probe.port;
    probe.stop(true);
    asServerUser("pg_ctl", "-D", join(standbyDir, "data"), "-l", join(standbyDir, "log"), "-w", "-o", `-p ${standbyPort} -k ${standbyDir} -c listen_addresses=127.0.0.1 -c max_connections=300`, "start");
  }, 120_000);
  afterAll(() => {
    try {
      asServerUser("pg_ctl", "-D", join(standbyDir, "data"), "-m", "immediate", "-w", "stop");
    } finally {
      rmSync(standbyDir, { recursive: true, force: true });
    }
  });

  test("why read-write is asked of postgres.js as `primary`: its own read-write takes a hot standby", async () => {
    const raw = postgres({ host: "127.0.0.1", port: standbyPort, user: "gatehouse", database: "postgres", target_session_attrs: "read-write", max: 1, onnotice: () => {} });
    try {
      const [row] = await raw`SELECT pg_is_in_recovery() AS standby`;
      expect(row!.standby).toBe(true);
    } finally {
      await raw.end();
    }
  });

  test("a standby alone: refused as not the primary (exit 1: a failover may be under way), whatever target_session_attrs says", async () => {
    await refusal(settings(`postgres://gatehouse@127.0.0.1:${standbyPort}/postgres?target_session_attrs=read-write`), "the server is not the primary (a standby in recovery) — retrying", EXIT_TRANSIENT);
    await refusal(settings(`postgres://gatehouse@127.0.0.1:${standbyPort}/postgres?target_session_attrs=any`), "the server is in recovery (a standby); Gatehouse needs the primary", EXIT_TRANSIENT);
  });

  test("standby listed first, then the primary: the pool connects to the primary", async () => {
    await connected(settings(`postgres://gatehouse@127.0.0.1:${standbyPort},127.0.0.1:${plain.port}/postgres`), async (sql) => {
      const rows = await Promise.all([1, 2, 3].map(() => sql`SELECT inet_server_port() AS port, pg_is_in_recovery() AS standby, pg_sleep(0.05)`));
      for (const [row] of rows) expect({ port: row!.port, standby: row!.standby }).toEqual({ port: plain.port, standby: false });
    });
  });
});

describe("the pool across a server restart", () => {
  test("while the server shuts down, a new start is retried (exit 1); while it is down, queries fail at once (not hang); once it is back, they succeed again", async () => {
    const { sql } = await connectPostgres(settings(`postgres://gatehouse@127.0.0.1:${plain.port}/postgres?connect_timeout=2`));
    const attempt = () =>
      Promise.race([sql`SELECT 1 AS one`.then(() => "ok", (e: { code?: string }) => `error ${e.code}`), Bun.sleep(4000).then(() => "hanging")]);
    try {
      await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.02)`));
      // A smart shutdown waits for the open sessions (the pool's) and refuses new ones meanwhile: 57P03, retried.
      asServerUser("pg_ctl", "-D", join(plain.dir, "data"), "-m", "smart", "-W", "stop");
      await refusal(settings(`postgres://gatehouse@127.0.0.1:${plain.port}/postgres`), "the server is not accepting connections yet (starting up, shutting down or in recovery): the database system is shutting down — retrying", EXIT_TRANSIENT);
      asServerUser("pg_ctl", "-D", join(plain.dir, "data"), "-m", "fast", "-w", "stop");
      const whileDown: string[] = [];
      for (let i = 0; i < 4; i++) whileDown.push(await attempt());
      expect(whileDown.filter((r) => !r.startsWith("error "))).toEqual([]);
      asServerUser("pg_ctl", "-D", join(plain.dir, "data"), "-l", join(plain.dir, "log"), "-w", "-o", `-p ${plain.port} -k ${plain.dir} -c listen_addresses=127.0.0.1 -c max_connections=300`, "start");
      // A pooled connection that saw the shutdown may fail its next query once (57P01), and on a loaded machine a
      // reconnect begun while the server was down may still time out (CONNECT_TIMEOUT): each such try fails at once,
      // never hangs, and within a few tries three in a row answer.
      const afterwards: string[] = [];
      while (afterwards.length < 12 && afterwards.slice(-3).join() !== "ok,ok,ok") afterwards.push(await attempt());
      expect(afterwards.slice(-3)).toEqual(["ok", "ok", "ok"]);
      expect(afterwards.filter((r) => r !== "ok" && !r.startsWith("error "))).toEqual([]);
    } finally {
      await sql.end({ timeout: 1 });
    }
  }, 60_000);
});
