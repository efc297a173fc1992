/**
 * Opening PostgreSQL (`GATEHOUSE_DATABASE_URL`): the postgres.js pool Gatehouse runs on, and the
 * checks that turn every reason it cannot into one clear line and the right exit code before the
 * server starts (`DatabaseConnectError`: transient → 1, else 2). Every mention of the URL goes
 * through `redactDatabaseUrl`; messages from the driver are scrubbed of the password too.
 */
import { readFileSync } from "node:fs";
import { connect as tcpConnect } from "node:net";
import postgres from "postgres";
import type { Config } from "../../config";
import { DatabaseConnectError } from "./connect-error";
import { formatDatabaseUrl, parseDatabaseUrl, type DatabaseUrl } from "./url";

export { DatabaseConnectError } from "./connect-error";
export { redactDatabaseUrl } from "./url";

export type PostgresSettings = { url: string; poolSize: number; caFile: string | null };

/**
 * How long one statement may run on a pooled connection (PostgreSQL's `statement_timeout`): a
 * request's query, or its wait for a lock, answers 503 after this instead of hanging. Generous —
 * the costliest bounded query (a SCIM filter at its cost limit) takes well under a second.
 * Migrations lift it on their own session.
 */
export const STATEMENT_TIMEOUT_MS = 30_000;
/** A transaction left idle this long (its node stalled or cut off) is ended by the server, with its locks. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;

/** The oldest server Gatehouse runs on (Debian 12's), as `server_version_num`. */
export const MIN_SERVER_VERSION = 150000;

/** PostgreSQL's settings from the configuration, or null when Gatehouse runs on SQLite. */
export function postgresSettings(config: Pick<Config, "databaseUrl" | "databasePoolSize" | "databaseCaFile">): PostgresSettings | null {
  return config.databaseUrl === null ? null : { url: config.databaseUrl, poolSize: config.databasePoolSize, caFile: config.databaseCaFile };
}

/**
 * int8 (counts, ids, every INTEGER column) and numeric (sums) as JS numbers, as SQLite gives them;
 * parameters from numbers or bigints. Exact up to 2^53, which no id or count of Gatehouse reaches.
 */
const NUMBER_TYPES = {
  int8: { to: 20, from: [20], serialize: (x: number | bigint) => String(x), parse: (x: string) => Number(x) },
  numeric: { to: 1700, from: [1700], serialize: (x: number | bigint) => String(x), parse: (x: string) => Number(x) },
};

/**
 * The pool over `settings`, not yet connected (postgres.js connects on the first query): the one
 * place its options are chosen. `connectPostgres` opens it and checks the server; tests whose server
 * is known open it directly.
 */
export function openPool(settings: PostgresSettings): { sql: postgres.Sql; url: DatabaseUrl; where: string } {
  let url: DatabaseUrl;
  try {
    url = parseDatabaseUrl(settings.url);
  } catch (e) {
    throw new DatabaseConnectError(`GATEHOUSE_DATABASE_URL: expected ${(e as Error).message}`, false);
  }
  const where = `PostgreSQL at ${formatDatabaseUrl(url)}`;
  const sql = postgres({
    // Arrays, one entry per host: postgres.js takes them as its multi-host form (its types say
    // string, and a "host:port,…" string would split IPv6 addresses on their colons).
    host: url.hosts.map((h) => h.host) as unknown as string,
    port: url.hosts.map((h) => h.port) as unknown as number,
    user: url.user,
    pass: url.password,
    database: url.database,
    ssl: tlsOptions(url, settings.caFile),
    max: settings.poolSize,
    prepare: true,
    types: NUMBER_TYPES,
    onnotice: () => {},
    // Deadlines on the server's side: no statement (nor a wait for a row or advisory lock) runs
    // past STATEMENT_TIMEOUT_MS, and a session that stops mid-transaction gives its locks back.
    connection: { application_name: "gatehouse", statement_timeout: STATEMENT_TIMEOUT_MS, idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS },
    connect_timeout: url.connectTimeoutSeconds,
    target_session_attrs: driverSessionAttrs(url),
  });
  return { sql, url, where };
}

/**
 * Opens the pool and checks that Gatehouse can run on it: reachable, authenticated, 15 or newer,
 * writable (a primary), and allowed to create its tables. Throws DatabaseConnectError otherwise,
 * with the pool closed. `minServerVersion` is for tests, which have only one server version to
 * see the refusal on.
 */
export async function connectPostgres(
  settings: PostgresSettings,
  { minServerVersion = MIN_SERVER_VERSION }: { minServerVersion?: number } = {},
): Promise<{ sql: postgres.Sql; serverVersion: number }> {
  const { sql, url, where } = openPool(settings);
  try {
    const serverVersion = await withDeadline(checkServer(sql, url, where, minServerVersion), url, where);
    return { sql, serverVersion };
  } catch (e) {
    await sql.end({ timeout: 0 }).catch(() => {});
    if (e instanceof DatabaseConnectError) throw e;
    throw await describeFailure(e, url, where, settings.caFile);
  }
}

/**
 * postgres.js knows `primary` (not a hot standby) but its `read-write` looks only at
 * default_transaction_read_only, which a hot standby reports as off: both become `primary`,
 * and `checkServer` refuses a read-only primary. `any` takes the first host that answers.
 */
function driverSessionAttrs(url: DatabaseUrl): "primary" | undefined {
  return url.targetSessionAttrs === "any" ? undefined : "primary";
}

/** libpq's sslmode in node:tls terms: require encrypts without checking; verify-ca checks the chain; verify-full also the host name. */
function tlsOptions(url: DatabaseUrl, caFile: string | null): postgres.Options<{}>["ssl"] {
  if (url.sslmode === "disable") return false;
  if (url.sslmode === "prefer" || url.sslmode === "require") return url.sslmode;
  const ca = caFile === null ? undefined : readCa(caFile);
  // postgres.js passes a DNS host as servername; an IP address is checked against the certificate's IP entries.
  const verified = { rejectUnauthorized: true, ...(ca === undefined ? {} : { ca }) };
  return url.sslmode === "verify-ca" ? { ...verified, checkServerIdentity: () => undefined } : verified;
}

function readCa(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new DatabaseConnectError(`GATEHOUSE_DATABASE_CA_FILE: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, false);
  }
  if (!text.includes("-----BEGIN CERTIFICATE-----")) throw new DatabaseConnectError(`GATEHOUSE_DATABASE_CA_FILE: ${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`, false);
  return text;
}

type ServerState = {
  version: number; recovery: boolean; read_only: string; role: string; database: string; schema: string | null; can_create: boolean | null;
  encoding: string; collate: string; ctype: string; provider: string | null;
};

/** libc locales that compare and order text by its bytes (UTF-8's byte order is code point order), as SQLite's BINARY does. */
const BYTEWISE_LOCALE = /^(C|POSIX)(\.UTF-?8)?$/i;

async function checkServer(sql: postgres.Sql, url: DatabaseUrl, where: string, minServerVersion: number): Promise<number> {
  // has_schema_privilege with a list is true when ANY is held: USAGE and CREATE are asked apart.
  const [state] = await sql<ServerState[]>`
    SELECT current_setting('server_version_num')::int AS version,
           pg_is_in_recovery() AS recovery,
           current_setting('transaction_read_only') AS read_only,
           current_user AS role,
           current_database() AS database,
           current_schema() AS schema,
           has_schema_privilege(current_schema(), 'USAGE') AND has_schema_privilege(current_schema(), 'CREATE') AS can_create,
           pg_encoding_to_char(d.encoding) AS encoding, d.datcollate AS collate, d.datctype AS ctype,
           to_jsonb(d) ->> 'datlocprovider' AS provider
      FROM pg_database d WHERE d.datname = current_database()`;
  const s = state!;
  if (s.version < minServerVersion)
    throw new DatabaseConnectError(`${where}: the server is PostgreSQL ${versionName(s.version)}; Gatehouse needs ${Math.floor(minServerVersion / 10000)} or newer`, false);
  const locale = localeProblem(s);
  if (locale)
    throw new DatabaseConnectError(
      `${where}: database "${s.database}" ${locale}; Gatehouse compares and orders text by its bytes, as on SQLite, and needs a UTF8 database with the C or C.UTF-8 locale: ` +
        `CREATE DATABASE ${quoteIdent(s.database)} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER libc LC_COLLATE 'C.UTF-8' LC_CTYPE 'C.UTF-8' (under another name, then move the data with pg_dump and pg_restore)`,
      false,
    );
  if (s.recovery || s.read_only === "on")
    throw new DatabaseConnectError(
      `${where}: the server ${s.recovery ? "is in recovery (a standby)" : "accepts only read-only transactions (default_transaction_read_only)"}; Gatehouse needs the primary` +
        (url.hosts.length > 1 ? " (with several hosts, target_session_attrs=read-write picks it)" : "") +
        " — retrying, a failover may be under way",
      true,
    );
  if (s.schema === null)
    throw new DatabaseConnectError(`${where}: no schema of the search_path exists in database "${s.database}" for role "${s.role}" (CREATE SCHEMA, or ALTER ROLE … SET search_path)`, false);
  if (!s.can_create)
    throw new DatabaseConnectError(
      `${where}: role "${s.role}" may not create tables in schema "${s.schema}" of database "${s.database}": ` +
        `GRANT USAGE, CREATE ON SCHEMA ${s.schema} TO ${s.role} (PostgreSQL 15 no longer lets every role create in public), or make it the database's owner`,
      false,
    );
  return s.version;
}

/**
 * Why the database's text rules are not the ones Gatehouse's SQL relies on, or null. Plain text
 * comparisons and ORDER BY follow the database's collation (docs/storage-postgres.md: titles,
 * ISO dates compared as text, keyset pages), and the one `lower()` without COLLATE "C" its ctype:
 * under any other locale the same query would answer differently than on SQLite.
 */
function localeProblem(s: ServerState): string | null {
  if (s.encoding !== "UTF8") return `has the encoding ${s.encoding}`;
  if (s.provider !== null && s.provider !== "c") return `takes its collation from ICU (locale provider "${s.provider === "i" ? "icu" : s.provider}")`;
  if (!BYTEWISE_LOCALE.test(s.collate)) return `sorts text by the collation "${s.collate}" (LC_COLLATE)`;
  if (!BYTEWISE_LOCALE.test(s.ctype)) return `classifies characters by "${s.ctype}" (LC_CTYPE)`;
  return null;
}

function quoteIdent(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

function versionName(num: number): string {
  return num >= 100000 ? `${Math.floor(num / 10000)}.${num % 10000}` : `${Math.floor(num / 10000)}.${Math.floor(num / 100) % 100}.${num % 100}`;
}

/**
 * postgres.js retries the next host at once when one refuses or is not the primary, endlessly
 * while none is: the whole check gets each host's connect timeout, once, plus a second.
 */
async function withDeadline<T>(work: Promise<T>, url: DatabaseUrl, where: string): Promise<T> {
  const seconds = url.connectTimeoutSeconds * url.hosts.length + 1;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new DatabaseConnectError(
            `${where}: ${url.hosts.length > 1 ? "no host accepted a connection as the primary (each refused, timed out or is a standby)" : "no answer"} within ${seconds} s (connect_timeout=${url.connectTimeoutSeconds}) — retrying`,
            true,
          ),
        ),
      seconds * 1000,
    );
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** SQLSTATEs the admin must fix (exit 2), by what to say. */
const ADMIN_SQLSTATES = new Map<string, string>([
  ["28P01", "authentication failed (wrong password, or no such role)"],
  ["28000", "the server refused the login (no such role, or pg_hba.conf has no entry for this host, user and database)"],
  ["3D000", "the database does not exist (createdb, or CREATE DATABASE … OWNER …)"],
  ["42501", "permission denied (GRANT CONNECT ON DATABASE … TO …)"],
  ["0A000", "a feature this role or server refuses"],
]);

/** Codes of connection and TLS failures node:net / node:tls and postgres.js raise, by what to say. */
const TRANSIENT_CODES = new Map<string, string>([
  ["ECONNREFUSED", "connection refused (is the server running and listening there?)"],
  ["CONNECT_TIMEOUT", "no answer within connect_timeout"],
  ["ETIMEDOUT", "no answer (timed out)"],
  ["EHOSTUNREACH", "host unreachable"],
  ["ENETUNREACH", "network unreachable"],
  ["ECONNRESET", "the connection was reset"],
  ["ENOTFOUND", "the host name does not resolve"],
  ["EAI_AGAIN", "the host name does not resolve (DNS not answering)"],
  ["CONNECTION_CLOSED", "the server closed the connection"],
  ["CONNECTION_DESTROYED", "the server is not the primary (a standby in recovery)"],
  ["CONNECTION_ENDED", "the connection ended"],
]);

async function describeFailure(e: unknown, url: DatabaseUrl, where: string, caFile: string | null): Promise<DatabaseConnectError> {
  const err = e as { code?: string; message?: string; address?: string; port?: number };
  const code = err.code ?? "";
  const detail = scrub(err.message ?? String(e), url.password);
  const at = err.address ? ` (${err.address}${err.port ? `:${err.port}` : ""})` : "";
  if (ADMIN_SQLSTATES.has(code)) return new DatabaseConnectError(`${where}: ${ADMIN_SQLSTATES.get(code)}: ${detail}`, false);
  if (code === "57P03") return new DatabaseConnectError(`${where}: the server is not accepting connections yet (starting up, shutting down or in recovery): ${detail} — retrying`, true);
  if (code === "53300") return new DatabaseConnectError(`${where}: the server has no free connection slot (max_connections): ${detail} — retrying`, true);
  if (code === "ERR_TLS_CERT_ALTNAME_INVALID")
    return new DatabaseConnectError(`${where}: the server's certificate does not name the host (sslmode=verify-full): ${detail} — connect by a name the certificate holds, or use sslmode=verify-ca`, false);
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(code))
    return new DatabaseConnectError(
      `${where}: the server's certificate is not signed by ${caFile === null ? "a CA this system trusts (set GATEHOUSE_DATABASE_CA_FILE to the server's CA)" : `the CA in GATEHOUSE_DATABASE_CA_FILE (${caFile})`}: ${detail} (${code})`,
      false,
    );
  // A server without TLS answers the SSLRequest with 'N'; postgres.js then sends its TLS hello anyway and the server hangs up.
  if (code === "ECONNRESET" && url.sslmode !== "disable" && url.sslmode !== "prefer") {
    const plain = await hostsWithoutTls(url);
    if (plain.length > 0) return new DatabaseConnectError(`${where}: ${plain.join(", ")} does not accept TLS (ssl=off on the server), and sslmode=${url.sslmode} requires it`, false);
  }
  if (TRANSIENT_CODES.has(code)) return new DatabaseConnectError(`${where}: cannot connect${at}: ${TRANSIENT_CODES.get(code)} — retrying`, true);
  if (/^(AUTH_TYPE_NOT_IMPLEMENTED|SASL_SIGNATURE_MISMATCH|MESSAGE_NOT_SUPPORTED)$/.test(code)) return new DatabaseConnectError(`${where}: authentication failed: ${detail}`, false);
  // Anything else (a connection exception of class 08, a TLS alert, …) may pass: retried.
  return new DatabaseConnectError(`${where}: cannot connect: ${detail}${code ? ` (${code})` : ""} — retrying`, true);
}

/** The hosts that answer PostgreSQL's SSLRequest with 'N' (TLS off), as host:port. */
async function hostsWithoutTls(url: DatabaseUrl): Promise<string[]> {
  const answers = await Promise.all(url.hosts.map(({ host, port }) => tlsAnswer(host, port).then((a) => (a === "N" ? `${host}:${port}` : null))));
  return answers.filter((a): a is string => a !== null);
}

function tlsAnswer(host: string, port: number): Promise<string | null> {
  return new Promise((resolve) => {
    const socket = tcpConnect({ host, port });
    const done = (answer: string | null) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(answer);
    };
    const timer = setTimeout(() => done(null), 2000);
    // SSLRequest: length 8, code 80877103.
    socket.on("connect", () => socket.write(Buffer.from([0, 0, 0, 8, 0x04, 0xd2, 0x16, 0x2f])));
    socket.once("data", (b: Buffer) => done(String.fromCharCode(b[0]!)));
    socket.on("error", () => done(null));
  });
}

/** Removes the password from a driver's message, as written and percent-encoded. */
function scrub(message: string, password: string): string {
  if (password.length < 3) return message;
  return message.split(password).join("***").split(encodeURIComponent(password)).join("***");
}
