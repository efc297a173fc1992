/**
 * Configuration: every key is `GATEHOUSE_*`, read once at start from `--env-file` and/or the
 * process environment, typed and validated. `parseConfig` is pure (env in, config or errors
 * out) so it is unit-tested without processes; `main.ts` turns errors into exit code 2.
 *
 * Adding a key: add it to `KEYS` (name, default, parser, doc). The README table is checked
 * against this list by test/config.test.ts.
 */

import { isIP } from "node:net";
import { resolve } from "node:path";
import { parseDatabaseUrl } from "./db/postgres/url";

export type Config = {
  baseUrl: string;
  host: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  databasePoolSize: number;
  databaseCaFile: string | null;
  tlsCertFile: string | null;
  tlsKeyFile: string | null;
  httpRedirectPort: number | null;
  adminToken: string | null;
  adminTokenPrevious: string | null;
  metricsPublic: boolean;
  trustedProxies: string[];
  secretKeyFile: string | null;
  secretKeyPreviousFile: string | null;
  logLevel: LogLevel;
  scimEnabled: boolean;
  licenseSeats: number | null;
  scimDuplicateStatus: 400 | 409;
  scimRateLimit: number;
  scimRateBurst: number;
  webhookConcurrency: number;
  webhookPerSubscriptionConcurrency: number;
  webhookTimeoutMs: number;
  webhookRetrySchedule: number[];
  webhookAllowPrivateTargets: boolean;
  webhookPollIntervalMs: number;
  webhookRetentionDays: number;
  provisioningLogRetentionDays: number;
  auditRetentionDays: number;
  oidcIssuer: string | null;
  oidcClientId: string | null;
  oidcClientSecret: string | null;
  oidcScopes: string;
  oidcGroupsClaim: string;
  oidcOwnerGroups: string[];
  oidcOperatorGroups: string[];
  oidcViewerGroups: string[];
  adminTokenWithOidc: boolean;
  sessionIdleTimeoutMs: number;
  sessionAbsoluteTimeoutMs: number;
  shutdownDrainMs: number;
  shutdownGraceMs: number;
};

export type LogLevel = "debug" | "info" | "warn" | "error";

type Parser<T> = (raw: string) => T; // throws Error(expected...) on a bad value

const int = (min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> => (raw) => {
  if (!/^\d+$/.test(raw.trim())) throw new Error(`an integer between ${min} and ${max}`);
  const n = Number(raw.trim());
  if (n < min || n > max) throw new Error(`an integer between ${min} and ${max}`);
  return n;
};
const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (["true", "1", "yes", "on"].includes(v)) return true;
  if (["false", "0", "no", "off"].includes(v)) return false;
  throw new Error("true or false");
};
const str: Parser<string> = (raw) => {
  if (raw.trim() === "") throw new Error("a non-empty string");
  return raw.trim();
};
/** Shortest admin token accepted: it guards everything, and nothing rate-limits guesses at it. */
export const MIN_ADMIN_TOKEN_LENGTH = 16;
/** A token that can be sent as `Authorization: Bearer <token>` (visible ASCII, no spaces), long enough to be safe. */
const bearerSecret: Parser<string> = (raw) => {
  const v = raw.trim();
  if (!/^[\x21-\x7e]+$/.test(v)) throw new Error("a token of visible ASCII characters without spaces (it could never be sent as a Bearer token)");
  if (v.length < MIN_ADMIN_TOKEN_LENGTH) throw new Error(`a token of at least ${MIN_ADMIN_TOKEN_LENGTH} characters (e.g. openssl rand -base64 32)`);
  return v;
};
const list: Parser<string[]> = (raw) => raw.split(",").map((v) => v.trim()).filter(Boolean);
const optional = <T>(p: Parser<T>): Parser<T | null> => (raw) => (raw.trim() === "" ? null : p(raw));
const url: Parser<string> = (raw) => {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    throw new Error("an absolute http(s) URL, e.g. https://gatehouse.example.com");
  }
  if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error("an absolute http(s) URL");
  return u.toString().replace(/\/+$/, "");
};

/** Durations like `5s`, `5m`, `2h`, `1d`, or plain milliseconds. */
export function parseDuration(raw: string): number {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(raw.trim());
  if (!m) throw new Error(`a duration like 5s, 5m, 2h or 1d (got "${raw}")`);
  const n = Number(m[1]);
  const unit = m[2] ?? "ms";
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[unit]!;
  return n * factor;
}
const schedule: Parser<number[]> = (raw) => {
  const parts = raw.split(",").map((p) => p.trim()).filter(Boolean);
  if (parts.length === 0) throw new Error("a comma-separated list of durations like 5s,5m,30m");
  return parts.map((p) => {
    try {
      return parseDuration(p);
    } catch {
      throw new Error("a comma-separated list of durations like 5s,5m,30m");
    }
  });
};
/** IP addresses and CIDR ranges (IPv4 or IPv6), comma-separated; empty is none. */
const addressList: Parser<string[]> = (raw) => {
  const items = raw.split(",").map((p) => p.trim()).filter(Boolean);
  for (const item of items) {
    const [address, prefix, extra] = item.split("/");
    const family = isIP(address ?? "");
    const max = family === 4 ? 32 : 128;
    if (!family || extra !== undefined || (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || Number(prefix) > max)))
      throw new Error(`comma-separated IP addresses or CIDR ranges like 127.0.0.1, 10.0.0.0/8, fd00::/8 (not "${item}")`);
  }
  return items;
};
/** A database URL (src/db/postgres/url.ts), kept as written; the parser's messages quote no secret. */
const databaseUrl: Parser<string> = (raw) => {
  parseDatabaseUrl(raw);
  return raw.trim();
};
const oneOf = <T extends string>(values: readonly T[]): Parser<T> => (raw) => {
  const v = raw.trim().toLowerCase() as T;
  if (!values.includes(v)) throw new Error(`one of ${values.join(", ")}`);
  return v;
};

/** `secret`: the value is never printed — not in errors, not by `gatehouse config check`. */
type KeySpec = { key: string; field: keyof Config; default: string; parse: Parser<unknown>; doc: string; secret?: true };

/** The single list of configuration keys: name, default (as written in an env file), parser, meaning. */
export const KEYS: KeySpec[] = [
  { key: "GATEHOUSE_BASE_URL", field: "baseUrl", default: "http://localhost:8080", parse: url, doc: "Public address of this instance; used in SCIM `meta.location` and `Location` headers." },
  { key: "GATEHOUSE_HOST", field: "host", default: "0.0.0.0", parse: str, doc: "Interface to listen on." },
  { key: "GATEHOUSE_PORT", field: "port", default: "8080", parse: int(0, 65535), doc: "Port to listen on (HTTPS when TLS files are set). 0 picks a free port." },
  { key: "GATEHOUSE_DATA_DIR", field: "dataDir", default: "./data", parse: str, doc: "Directory holding `gatehouse.db` (SQLite, WAL)." },
  { key: "GATEHOUSE_DATABASE_URL", field: "databaseUrl", default: "", parse: optional(databaseUrl), secret: true, doc: "Empty: SQLite in the data directory. `postgres://USER:PASSWORD@HOST:5432/DATABASE?sslmode=verify-full` (or `postgresql://`; several `HOST:PORT` separated by commas with `target_session_attrs=read-write`): PostgreSQL 15 or newer. Never printed; errors show it with the password as `***`." },
  { key: "GATEHOUSE_DATABASE_POOL_SIZE", field: "databasePoolSize", default: "10", parse: int(1, 200), doc: "PostgreSQL connections this process opens at most." },
  { key: "GATEHOUSE_DATABASE_CA_FILE", field: "databaseCaFile", default: "", parse: optional(str), doc: "PEM CA certificate(s) the PostgreSQL server's certificate must chain to, with `sslmode=verify-ca` or `verify-full`. Empty: the system's trusted CAs." },
  { key: "GATEHOUSE_TLS_CERT_FILE", field: "tlsCertFile", default: "", parse: optional(str), doc: "PEM certificate chain; with the key file, the server speaks HTTPS." },
  { key: "GATEHOUSE_TLS_KEY_FILE", field: "tlsKeyFile", default: "", parse: optional(str), doc: "PEM private key for the certificate." },
  { key: "GATEHOUSE_HTTP_REDIRECT_PORT", field: "httpRedirectPort", default: "", parse: optional(int(1, 65535)), doc: "Optional plain-HTTP port answering every request with 308 to the HTTPS address (needs TLS)." },
  { key: "GATEHOUSE_ADMIN_TOKEN", field: "adminToken", default: "", parse: optional(bearerSecret), secret: true, doc: "Bearer token for `/api/admin`, the console and remote `/metrics`: at least 16 visible ASCII characters, no spaces (else exit 2). Empty disables the admin API." },
  { key: "GATEHOUSE_ADMIN_TOKEN_PREVIOUS", field: "adminTokenPrevious", default: "", parse: optional(bearerSecret), secret: true, doc: "During an admin-token rotation, the old token, accepted as well as `GATEHOUSE_ADMIN_TOKEN` until you empty it; both are re-read on SIGHUP, so rotating needs no restart." },
  { key: "GATEHOUSE_SECRET_KEY_FILE", field: "secretKeyFile", default: "", parse: optional(str), doc: "File holding the key (base64 of 32 random bytes: `openssl rand -base64 32`) that encrypts webhook signing secrets in the database. Empty: `secret.key` in the data directory, created on first start. Keep it out of the database's backups and back it up separately: a restored database needs it." },
  { key: "GATEHOUSE_SECRET_KEY_PREVIOUS_FILE", field: "secretKeyPreviousFile", default: "", parse: optional(str), doc: "During a key rotation, the old key file: at start, every secret sealed with it is re-encrypted with `GATEHOUSE_SECRET_KEY_FILE`'s key; then remove this line." },
  { key: "GATEHOUSE_TRUSTED_PROXIES", field: "trustedProxies", default: "", parse: addressList, doc: "Reverse proxies (IP addresses or CIDR ranges, comma-separated) whose `X-Forwarded-For` names the client: request logs, the audit log and the loopback rule of `/metrics` and `/version` then see the client's address. From any other peer the header is ignored. Empty: none." },
  { key: "GATEHOUSE_METRICS_PUBLIC", field: "metricsPublic", default: "false", parse: bool, doc: "true opens `/metrics` to anyone who can reach it; by default only direct loopback scrapes go without the admin token (a reverse proxy's requests never count as loopback)." },
  { key: "GATEHOUSE_LOG_LEVEL", field: "logLevel", default: "info", parse: oneOf(["debug", "info", "warn", "error"] as const), doc: "debug, info, warn or error." },
  { key: "GATEHOUSE_SCIM_ENABLED", field: "scimEnabled", default: "true", parse: bool, doc: "Initial state of the SCIM interface (false → every SCIM call answers 403). The admin API can toggle it at run time; the stored toggle wins once set." },
  { key: "GATEHOUSE_LICENSE_SEATS", field: "licenseSeats", default: "", parse: optional(int(0)), doc: "Maximum active `regular` users; empty means unlimited." },
  { key: "GATEHOUSE_SCIM_DUPLICATE_STATUS", field: "scimDuplicateStatus", default: "400", parse: (raw) => { const v = raw.trim(); if (v !== "400" && v !== "409") throw new Error("400 or 409"); return Number(v); }, doc: "Status for a duplicate userName/displayName: 400 `invalidValue` (the spec) or 409 `uniqueness` (RFC 7644, Okta)." },
  { key: "GATEHOUSE_SCIM_RATE_LIMIT", field: "scimRateLimit", default: "200", parse: int(1), doc: "SCIM requests per second allowed per token (token bucket refill rate)." },
  { key: "GATEHOUSE_SCIM_RATE_BURST", field: "scimRateBurst", default: "1000", parse: int(1), doc: "SCIM token bucket size (burst)." },
  { key: "GATEHOUSE_WEBHOOK_CONCURRENCY", field: "webhookConcurrency", default: "32", parse: int(2, 1024), doc: "Webhook HTTP requests in flight at once, across all subscriptions (at least 2)." },
  { key: "GATEHOUSE_WEBHOOK_PER_SUBSCRIPTION_CONCURRENCY", field: "webhookPerSubscriptionConcurrency", default: "8", parse: int(1, 1024), doc: "Webhook requests in flight at once to one subscription, so a slow endpoint cannot starve the others; always at least one below `GATEHOUSE_WEBHOOK_CONCURRENCY` (a larger value is clamped), so one subscription never holds every slot." },
  { key: "GATEHOUSE_WEBHOOK_TIMEOUT_MS", field: "webhookTimeoutMs", default: "15000", parse: int(100, 600_000), doc: "A delivery succeeds on a 2xx received within this many milliseconds." },
  { key: "GATEHOUSE_WEBHOOK_RETRY_SCHEDULE", field: "webhookRetrySchedule", default: "5s,5m,30m,2h,5h,10h,10h", parse: schedule, doc: "Delays before each retry (±20% jitter); after the last the delivery is `failed`." },
  { key: "GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS", field: "webhookAllowPrivateTargets", default: "false", parse: bool, doc: "Allow webhook targets on loopback/private/link-local addresses (SSRF guard off for those)." },
  { key: "GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS", field: "webhookPollIntervalMs", default: "1000", parse: int(10, 60_000), doc: "Fallback poll interval of the delivery loop (it also wakes at once on each event)." },
  { key: "GATEHOUSE_WEBHOOK_RETENTION_DAYS", field: "webhookRetentionDays", default: "30", parse: int(1, 3650), doc: "Delivered deliveries and their attempts older than this are purged." },
  { key: "GATEHOUSE_PROVISIONING_LOG_RETENTION_DAYS", field: "provisioningLogRetentionDays", default: "30", parse: int(1, 3650), doc: "Entries of the provisioning activity log (one per SCIM write) older than this are purged." },
  { key: "GATEHOUSE_OIDC_ISSUER", field: "oidcIssuer", default: "", parse: optional(url), doc: "OpenID Provider (the IdP) issuer URL; with the client id and secret, admins sign in to the console through it (discovery from `/.well-known/openid-configuration`). The redirect URL to register is `GATEHOUSE_BASE_URL/auth/callback`." },
  { key: "GATEHOUSE_OIDC_CLIENT_ID", field: "oidcClientId", default: "", parse: optional(str), doc: "Client id of Gatehouse at the IdP." },
  { key: "GATEHOUSE_OIDC_CLIENT_SECRET", field: "oidcClientSecret", default: "", parse: optional(str), doc: "Client secret of Gatehouse at the IdP (sent with HTTP Basic to the token endpoint)." },
  { key: "GATEHOUSE_OIDC_SCOPES", field: "oidcScopes", default: "openid profile email", parse: str, doc: "Scopes asked for at sign-in (`openid` is always sent); Okta needs `groups` added." },
  { key: "GATEHOUSE_OIDC_GROUPS_CLAIM", field: "oidcGroupsClaim", default: "groups", parse: str, doc: "The claim (ID token or userinfo) that lists the person's groups." },
  { key: "GATEHOUSE_OIDC_OWNER_GROUPS", field: "oidcOwnerGroups", default: "", parse: list, doc: "Comma-separated IdP groups whose members sign in as `owner`." },
  { key: "GATEHOUSE_OIDC_OPERATOR_GROUPS", field: "oidcOperatorGroups", default: "", parse: list, doc: "Comma-separated IdP groups whose members sign in as `operator`." },
  { key: "GATEHOUSE_OIDC_VIEWER_GROUPS", field: "oidcViewerGroups", default: "", parse: list, doc: "Comma-separated IdP groups whose members sign in as `viewer`. Nobody outside these three lists gets in." },
  { key: "GATEHOUSE_ADMIN_TOKEN_WITH_OIDC", field: "adminTokenWithOidc", default: "false", parse: bool, doc: "true keeps `GATEHOUSE_ADMIN_TOKEN` working for the admin API and console while OIDC sign-in is configured (break-glass, automation); by default it is then off." },
  { key: "GATEHOUSE_SESSION_IDLE_TIMEOUT", field: "sessionIdleTimeoutMs", default: "30m", parse: parseDuration, doc: "A console session ends after this long without a request (duration: 30m, 2h)." },
  { key: "GATEHOUSE_SESSION_ABSOLUTE_TIMEOUT", field: "sessionAbsoluteTimeoutMs", default: "12h", parse: parseDuration, doc: "A console session ends this long after sign-in, however active." },
  { key: "GATEHOUSE_AUDIT_RETENTION_DAYS", field: "auditRetentionDays", default: "365", parse: int(1, 36500), doc: "Entries of the admin audit log older than this are purged." },
  { key: "GATEHOUSE_SHUTDOWN_DRAIN", field: "shutdownDrainMs", default: "0s", parse: parseDuration, doc: "On SIGTERM, how long `/readyz` answers 503 while the node still serves every request, before it stops accepting connections: set it to what your load balancer needs to take the node out (its check interval × failures), e.g. `6s` for HAProxy `inter 2s fall 3`." },
  { key: "GATEHOUSE_SHUTDOWN_GRACE", field: "shutdownGraceMs", default: "10s", parse: parseDuration, doc: "On SIGTERM, after the drain, how long in-flight requests get to finish before their connections are closed." },
];

export type ConfigResult = { ok: true; config: Config } | { ok: false; errors: string[] };

/** Pure: environment map in, typed config or a list of "KEY: expected …" messages out. */
export function parseConfig(env: Record<string, string | undefined>): ConfigResult {
  const out: Record<string, unknown> = {};
  const errors: string[] = [];
  for (const spec of KEYS) {
    const raw = env[spec.key] ?? spec.default;
    try {
      out[spec.field] = spec.parse(raw);
    } catch (e) {
      errors.push(`${spec.key}: expected ${(e as Error).message}, got ${spec.secret ? `a value of ${raw.length} characters (not shown: it is a secret)` : JSON.stringify(raw)}`);
    }
  }
  const known = new Set(KEYS.map((k) => k.key));
  for (const k of Object.keys(env)) {
    if (k.startsWith("GATEHOUSE_") && !known.has(k)) errors.push(`${k}: unknown configuration key`);
  }
  if (errors.length === 0) {
    const c = out as Config;
    if ((c.tlsCertFile === null) !== (c.tlsKeyFile === null))
      errors.push("GATEHOUSE_TLS_CERT_FILE: expected both GATEHOUSE_TLS_CERT_FILE and GATEHOUSE_TLS_KEY_FILE, or neither");
    if (c.adminTokenPrevious !== null && c.adminToken === null)
      errors.push("GATEHOUSE_ADMIN_TOKEN_PREVIOUS: expected only together with GATEHOUSE_ADMIN_TOKEN (the new token)");
    const oidc = [c.oidcIssuer, c.oidcClientId, c.oidcClientSecret];
    if (oidc.some((v) => v !== null) && oidc.some((v) => v === null))
      errors.push("GATEHOUSE_OIDC_ISSUER: expected GATEHOUSE_OIDC_ISSUER, GATEHOUSE_OIDC_CLIENT_ID and GATEHOUSE_OIDC_CLIENT_SECRET together, or none");
    else if (c.oidcIssuer !== null && c.oidcOwnerGroups.length + c.oidcOperatorGroups.length + c.oidcViewerGroups.length === 0)
      errors.push("GATEHOUSE_OIDC_OWNER_GROUPS: expected at least one group in GATEHOUSE_OIDC_OWNER_GROUPS, _OPERATOR_GROUPS or _VIEWER_GROUPS (else nobody could sign in)");
    if (c.databaseCaFile !== null && (c.databaseUrl === null || !["verify-ca", "verify-full"].includes(parseDatabaseUrl(c.databaseUrl).sslmode)))
      errors.push("GATEHOUSE_DATABASE_CA_FILE: expected only together with GATEHOUSE_DATABASE_URL and its sslmode=verify-ca or sslmode=verify-full (with require the server's certificate is not checked)");
    if (c.httpRedirectPort !== null && c.tlsCertFile === null)
      errors.push("GATEHOUSE_HTTP_REDIRECT_PORT: expected only together with GATEHOUSE_TLS_CERT_FILE/GATEHOUSE_TLS_KEY_FILE");
  }
  return errors.length ? { ok: false, errors } : { ok: true, config: out as Config };
}

/**
 * The data directory the systemd template unit gives an organization whose env file is
 * /etc/gatehouse/NAME.env (`Environment=GATEHOUSE_DATA_DIR=/var/lib/gatehouse/%i`); null for any
 * other env file.
 */
export function unitDataDir(envFile: string): string | null {
  const m = /^\/etc\/gatehouse\/([^/]+)\.env$/.exec(resolve(envFile));
  return m ? `/var/lib/gatehouse/${m[1]}` : null;
}

/** The effective value of every key as `gatehouse config check` prints it: secrets masked. */
export function describeConfig(config: Config): { key: string; value: string }[] {
  return KEYS.map((spec) => {
    const v = config[spec.field];
    const shown = v === null ? "" : Array.isArray(v) ? v.map((ms) => `${ms}ms`).join(",") : String(v);
    return { key: spec.key, value: spec.secret && shown !== "" ? "(set, not shown)" : shown };
  });
}

/** Parses an env file: KEY=VALUE lines, `#` comments, optional `export `, single/double quotes. */
export function parseEnvFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const trimmed = line.trim();
    if (!trimmed || trimmed.startsWith("#")) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(trimmed);
    if (!m) throw new Error(`cannot read line: ${trimmed}`);
    let value = m[2]!;
    if ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'"))) value = value.slice(1, -1);
    else value = value.replace(/\s+#.*$/, "");
    out[m[1]!] = value;
  }
  return out;
}

/** Defaults for tests: a valid config with overrides. */
export function testConfig(overrides: Partial<Config> = {}): Config {
  const r = parseConfig({});
  if (!r.ok) throw new Error(r.errors.join("; "));
  return { ...r.config, ...overrides };
}
