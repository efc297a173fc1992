/**
 * `GATEHOUSE_DATABASE_URL`, read and redacted. Pure: the config parser validates with it at start
 * (exit 2 on a bad URL) and `connect.ts` builds postgres.js's options from its result, so
 * postgres.js never parses the URL itself (it would send unknown query parameters to the server as
 * settings and split IPv6 hosts on their colons).
 *
 * The shape is libpq's, restricted to what Gatehouse supports:
 * `postgres[ql]://USER[:PASSWORD]@HOST[:PORT][,HOST[:PORT]…][/DATABASE][?sslmode=…&target_session_attrs=…&connect_timeout=…]`.
 * No error message here contains the password, nor any part of the URL a misplaced password
 * could have ended up in.
 */

export const SSL_MODES = ["disable", "prefer", "require", "verify-ca", "verify-full"] as const;
export type SslMode = (typeof SSL_MODES)[number];

/** libpq's names. Gatehouse writes, so whichever host is chosen must accept writes (checked at connect). */
export const TARGET_SESSION_ATTRS = ["read-write", "primary", "any"] as const;
export type TargetSessionAttrs = (typeof TARGET_SESSION_ATTRS)[number];

export type DatabaseUrl = {
  /** One or more servers, tried in order (libpq's multi-host form). IPv6 addresses without brackets. */
  hosts: { host: string; port: number }[];
  user: string;
  password: string;
  /** Defaults to the user name, as libpq's does. */
  database: string;
  /** Defaults to `prefer`, as libpq's does. */
  sslmode: SslMode;
  /** Defaults to `read-write`: a standby listed first must not be chosen. */
  targetSessionAttrs: TargetSessionAttrs;
  /** Seconds to wait for each connection attempt (libpq's `connect_timeout`); default 30. */
  connectTimeoutSeconds: number;
};

const EXAMPLE = "postgres://gatehouse:PASSWORD@db.example.com:5432/gatehouse?sslmode=verify-full";
const KNOWN_PARAMETERS = ["sslmode", "target_session_attrs", "connect_timeout"];
export const DEFAULT_CONNECT_TIMEOUT_SECONDS = 30;

/** Parses a database URL; throws an Error whose message completes "expected …" and never quotes a secret. */
export function parseDatabaseUrl(raw: string): DatabaseUrl {
  const text = raw.trim();
  const scheme = /^(postgres|postgresql):\/\//i.exec(text);
  if (!scheme) throw new Error(`a postgres:// or postgresql:// URL, e.g. ${EXAMPLE}`);
  if (text.includes("#")) throw new Error("a URL without '#' (in a password, write it as %23)");
  const rest = text.slice(scheme[0].length);
  const authorityEnd = rest.search(/[/?]/);
  const authority = authorityEnd === -1 ? rest : rest.slice(0, authorityEnd);
  const tail = authorityEnd === -1 ? "" : rest.slice(authorityEnd);
  if (tail.includes("@"))
    throw new Error("a URL whose user name and password are percent-encoded (an '@' follows the host part: write / as %2F, ? as %3F, @ as %40 in a password)");

  const at = authority.lastIndexOf("@");
  if (at === -1) throw new Error(`a user name in the URL, e.g. ${EXAMPLE}`);
  const userinfo = authority.slice(0, at);
  const colon = userinfo.indexOf(":");
  const user = decode(colon === -1 ? userinfo : userinfo.slice(0, colon), "user name");
  const password = colon === -1 ? "" : decode(userinfo.slice(colon + 1), "password");
  if (user === "") throw new Error(`a user name in the URL, e.g. ${EXAMPLE}`);

  const hosts = authority
    .slice(at + 1)
    .split(",")
    .map(parseHost);

  const queryStart = tail.indexOf("?");
  const path = queryStart === -1 ? tail : tail.slice(0, queryStart);
  const dbName = decode(path.replace(/^\//, ""), "database name");
  if (dbName.includes("/")) throw new Error("a single database name after the host, e.g. /gatehouse");

  const params = new URLSearchParams(queryStart === -1 ? "" : tail.slice(queryStart + 1));
  const seen = new Set<string>();
  for (const name of params.keys()) {
    if (!KNOWN_PARAMETERS.includes(name))
      throw new Error(`only the URL parameters ${KNOWN_PARAMETERS.join(", ")} (not "${printable(name)}"; the CA certificate is GATEHOUSE_DATABASE_CA_FILE)`);
    if (seen.has(name)) throw new Error(`the URL parameter ${name} once`);
    seen.add(name);
  }
  const sslmode = oneOf(params.get("sslmode") ?? "prefer", SSL_MODES, "sslmode");
  const targetSessionAttrs = oneOf(params.get("target_session_attrs") ?? "read-write", TARGET_SESSION_ATTRS, "target_session_attrs");
  const timeout = params.get("connect_timeout");
  if (timeout !== null && (!/^\d{1,4}$/.test(timeout) || Number(timeout) < 1 || Number(timeout) > 3600))
    throw new Error("connect_timeout in seconds, between 1 and 3600");

  return {
    hosts,
    user,
    password,
    database: dbName === "" ? user : dbName,
    sslmode,
    targetSessionAttrs,
    connectTimeoutSeconds: timeout === null ? DEFAULT_CONNECT_TIMEOUT_SECONDS : Number(timeout),
  };
}

function parseHost(entry: string): { host: string; port: number } {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/.exec(entry);
  if (!m) throw new Error(`each host as NAME[:PORT] or [IPv6][:PORT], separated by commas (Unix sockets are not supported), e.g. ${EXAMPLE}`);
  const port = m[3] === undefined ? 5432 : Number(m[3]);
  if (port < 1 || port > 65535) throw new Error("each host's port between 1 and 65535");
  return { host: m[1] ?? m[2]!, port };
}

function decode(part: string, what: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new Error(`a percent-encoded ${what} in the URL (a '%' must start an escape such as %25)`);
  }
}

function oneOf<T extends string>(value: string, values: readonly T[], name: string): T {
  if (!(values as readonly string[]).includes(value)) throw new Error(`${name} one of ${values.join(", ")} (not "${printable(value)}")`);
  return value as T;
}

/** A parameter name or value, quoted in an error only when it is short and plain. */
function printable(v: string): string {
  return /^[\w.-]{1,40}$/.test(v) ? v : "…";
}

/** The URL as Gatehouse shows it, anywhere: the password replaced by `***`. */
export function formatDatabaseUrl(u: DatabaseUrl, password = u.password === "" ? "" : "***"): string {
  const hosts = u.hosts.map(({ host, port }) => `${host.includes(":") ? `[${host}]` : host}:${port}`).join(",");
  const userinfo = encodeURIComponent(u.user) + (password === "" ? "" : `:${password}`);
  const query = [`sslmode=${u.sslmode}`, `target_session_attrs=${u.targetSessionAttrs}`];
  if (u.connectTimeoutSeconds !== DEFAULT_CONNECT_TIMEOUT_SECONDS) query.push(`connect_timeout=${u.connectTimeoutSeconds}`);
  return `postgres://${userinfo}@${hosts}/${encodeURIComponent(u.database)}?${query.join("&")}`;
}

/**
 * Any string meant as a database URL, safe to print: a valid one with its password as `***`; one
 * that does not parse with everything before its last '@' (user and password) as `***`.
 */
export function redactDatabaseUrl(raw: string): string {
  try {
    return formatDatabaseUrl(parseDatabaseUrl(raw));
  } catch {
    const text = raw.trim();
    const at = text.lastIndexOf("@");
    // Without an '@' there is no password, unless the '@' was forgotten: show only plain host:port lists.
    if (at === -1) return /^[a-z][a-z0-9+.-]*:\/\/[\w.-]+(:\d{1,5})?(,[\w.-]+(:\d{1,5})?)*(\/[\w.-]*)?$/i.test(text) ? text : "(not shown: not a valid URL)";
    const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(text)?.[0] ?? "";
    return `${scheme}***@${text.slice(at + 1)}`;
  }
}
