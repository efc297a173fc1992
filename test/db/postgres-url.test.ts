import { describe, expect, test } from "bun:test";
import { describeConfig, parseConfig, testConfig } from "../../src/config";
import { parseDatabaseUrl, redactDatabaseUrl } from "../../src/db/postgres/url";

/** A password with every character a URL gives a meaning to, percent-encoded as it must be in the URL. */
const NASTY_PASSWORD = "p@ss:w/rd?#%&=+ é";
const NASTY_URL = `postgres://gatehouse:${encodeURIComponent(NASTY_PASSWORD)}@db.example.com:6432/gh?sslmode=verify-full`;

describe("parseDatabaseUrl", () => {
  test("the libpq shape: user, password, hosts, database, parameters, with libpq's defaults", () => {
    expect(parseDatabaseUrl(NASTY_URL)).toEqual({
      hosts: [{ host: "db.example.com", port: 6432 }],
      user: "gatehouse",
      password: NASTY_PASSWORD,
      database: "gh",
      sslmode: "verify-full",
      targetSessionAttrs: "read-write",
      connectTimeoutSeconds: 30,
    });
    const bare = parseDatabaseUrl("postgresql://alice@localhost");
    expect(bare).toMatchObject({ hosts: [{ host: "localhost", port: 5432 }], user: "alice", password: "", database: "alice", sslmode: "prefer" });
  });

  test("several hosts, IPv6 in brackets, target_session_attrs and connect_timeout", () => {
    const u = parseDatabaseUrl("postgres://u:p@pg1.internal:5432,pg2.internal,[fd00::2]:5433/gh?target_session_attrs=primary&connect_timeout=5");
    expect(u.hosts).toEqual([
      { host: "pg1.internal", port: 5432 },
      { host: "pg2.internal", port: 5432 },
      { host: "fd00::2", port: 5433 },
    ]);
    expect(u.targetSessionAttrs).toBe("primary");
    expect(u.connectTimeoutSeconds).toBe(5);
    expect(parseDatabaseUrl("postgres://u@h/d?target_session_attrs=any").targetSessionAttrs).toBe("any");
  });

  test.each([
    ["mysql://u:p@h/d", "postgres:// or postgresql://"],
    ["db.example.com:5432", "postgres:// or postgresql://"],
    ["postgres://h/d", "a user name"],
    ["postgres://:secret@h/d", "a user name"],
    ["postgres://u:secret@h:99999/d", "port between 1 and 65535"],
    ["postgres://u:secret@/d", "NAME[:PORT]"],
    ["postgres://u:secret@h,/d", "NAME[:PORT]"],
    ["postgres://u:secret@h/d/e", "a single database name"],
    ["postgres://u:secret@h/d?sslmode=verify", "sslmode one of disable, prefer, require, verify-ca, verify-full"],
    ["postgres://u:secret@h/d?sslmode=allow", "sslmode one of"],
    ["postgres://u:secret@h/d?target_session_attrs=standby", "target_session_attrs one of read-write, primary, any"],
    ["postgres://u:secret@h/d?connect_timeout=0", "connect_timeout in seconds"],
    ["postgres://u:secret@h/d?sslrootcert=/etc/ca.pem", "GATEHOUSE_DATABASE_CA_FILE"],
    ["postgres://u:secret@h/d?sslmode=require&sslmode=disable", "the URL parameter sslmode once"],
    ["postgres://u:se/cret@h/d", "percent-encoded"],
    ["postgres://u:se?cret@h/d", "percent-encoded"],
    ["postgres://u:se#cret@h/d", "%23"],
    ["postgres://u:100%secret@h/d", "percent-encoded password"],
  ])("%s is refused: expected %s, and the message never quotes the password", (url, expected) => {
    let message = "";
    try {
      parseDatabaseUrl(url);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain(expected);
    expect(message).not.toContain("secret");
    expect(message).not.toContain("cret");
  });
});

describe("redactDatabaseUrl", () => {
  test("a valid URL keeps everything but the password, which becomes ***", () => {
    const shown = redactDatabaseUrl(NASTY_URL);
    expect(shown).toBe("postgres://gatehouse:***@db.example.com:6432/gh?sslmode=verify-full&target_session_attrs=read-write");
    for (const piece of [NASTY_PASSWORD, encodeURIComponent(NASTY_PASSWORD), "p@ss", "w/rd", "%40"]) expect(shown).not.toContain(piece);
    expect(redactDatabaseUrl("postgres://alice@[::1]:5432/gh")).toBe("postgres://alice@[::1]:5432/gh?sslmode=prefer&target_session_attrs=read-write");
  });

  test.each([
    // Not percent-encoded: everything up to the last '@' may be password.
    ["postgres://gatehouse:p@ss/w?rd@db.example.com/gh", "postgres://***@db.example.com/gh"],
    ["postgres://gatehouse:hunter2@db.example.com/gh?sslmode=bogus", "postgres://***@db.example.com/gh?sslmode=bogus"],
    ["gatehouse:hunter2@db.example.com", "***@db.example.com"],
    // The '@' forgotten: the password would read as a port; not shown at all.
    ["postgres://gatehouse:hunter2db.example.com/gh", "(not shown: not a valid URL)"],
    ["postgres://db.example.com:5432/gh", "postgres://db.example.com:5432/gh"],
  ])("a URL that does not parse (%s) is shown without anything that may be the password", (raw, shown) => {
    expect(redactDatabaseUrl(raw)).toBe(shown);
  });
});

describe("the configuration keys", () => {
  test("unset: SQLite, a pool of 10, no CA file", () => {
    const c = testConfig();
    expect({ url: c.databaseUrl, pool: c.databasePoolSize, ca: c.databaseCaFile }).toEqual({ url: null, pool: 10, ca: null });
  });

  test("a bad URL is named by its key, with what was expected, and never printed", () => {
    const secret = "s3cr3t-Passw0rd";
    for (const url of [`mysql://u:${secret}@h/d`, `postgres://u:${secret}@h/d?sslmode=nope`, `postgres://u:${secret}/x@h/d`]) {
      const r = parseConfig({ GATEHOUSE_DATABASE_URL: url });
      expect(r.ok).toBe(false);
      const errors = r.ok ? "" : r.errors.join("\n");
      expect(errors).toStartWith("GATEHOUSE_DATABASE_URL: expected ");
      expect(errors).toContain("(not shown: it is a secret)");
      expect(errors).not.toContain(secret);
    }
  });

  test("`config check` shows the URL as set, not its value", () => {
    const r = parseConfig({ GATEHOUSE_DATABASE_URL: NASTY_URL });
    if (!r.ok) throw new Error(r.errors.join("; "));
    expect(r.config.databaseUrl).toBe(NASTY_URL);
    const shown = describeConfig(r.config).find((k) => k.key === "GATEHOUSE_DATABASE_URL")!;
    expect(shown.value).toBe("(set, not shown)");
  });

  test("pool size 1..200", () => {
    expect(parseConfig({ GATEHOUSE_DATABASE_POOL_SIZE: "200" }).ok).toBe(true);
    for (const bad of ["0", "201", "ten"]) {
      const r = parseConfig({ GATEHOUSE_DATABASE_POOL_SIZE: bad });
      expect(r.ok ? "" : r.errors[0]).toStartWith("GATEHOUSE_DATABASE_POOL_SIZE: expected an integer between 1 and 200");
    }
  });

  test("the CA file only with a URL whose sslmode verifies the certificate", () => {
    const ca = { GATEHOUSE_DATABASE_CA_FILE: "/etc/gatehouse/db-ca.pem" };
    expect(parseConfig({ ...ca, GATEHOUSE_DATABASE_URL: "postgres://u@h/d?sslmode=verify-full" }).ok).toBe(true);
    expect(parseConfig({ ...ca, GATEHOUSE_DATABASE_URL: "postgres://u@h/d?sslmode=verify-ca" }).ok).toBe(true);
    for (const env of [ca, { ...ca, GATEHOUSE_DATABASE_URL: "postgres://u@h/d?sslmode=require" }, { ...ca, GATEHOUSE_DATABASE_URL: "postgres://u@h/d" }]) {
      const r = parseConfig(env);
      expect(r.ok ? "" : r.errors.join()).toStartWith("GATEHOUSE_DATABASE_CA_FILE: expected only together with GATEHOUSE_DATABASE_URL and its sslmode=verify-ca or sslmode=verify-full");
    }
  });
});
