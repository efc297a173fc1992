/**
 * Command-line grammar, as a pure function so every branch is unit-tested:
 *   gatehouse [serve] [--env-file FILE]
 *   gatehouse migrate [--env-file FILE]
 *   gatehouse backup <file> [--env-file FILE]
 *   gatehouse copy-to-postgres [postgres-url] [--env-file FILE]
 *   gatehouse scim-token <create --name NAME | list | revoke ID> [--env-file FILE]
 *   gatehouse config check [--env-file FILE]
 *   gatehouse version | --version | -v
 *   gatehouse help [command] | --help | -h
 *   gatehouse <command> --help | -h
 * `--env-file` may appear anywhere (also as `--env-file=FILE`).
 */

export type Command =
  | { name: "serve"; envFile: string | null }
  | { name: "migrate"; envFile: string | null }
  | { name: "backup"; envFile: string | null; target: string }
  | { name: "copy-to-postgres"; envFile: string | null; url: string | null }
  | { name: "scim-token"; envFile: string | null; args: string[] }
  | { name: "config-check"; envFile: string | null }
  | { name: "version" }
  | { name: "help"; topic?: HelpTopic };

export type ParseResult = { ok: true; command: Command } | { ok: false; error: string };

export const USAGE = `Usage: gatehouse [command] [--env-file FILE]

Commands:
  serve                 Run the server (the default command)
  migrate               Apply pending database migrations, then exit
  backup <file>         Write a consistent copy of the database to <file>; safe while serving
  copy-to-postgres [url]
                        Copy this instance's SQLite database into an empty PostgreSQL database
  scim-token create --name NAME [--workspace ID] | list | revoke ID
                        Manage the bearer tokens identity providers use for SCIM
  config check          Validate the configuration and print it (secrets masked)
  version               Print the version, schema version, commit, build date, Bun version and target
  help [command]        Show this help, or a command's

Options:
  --env-file FILE       Read GATEHOUSE_* settings from FILE; the process environment wins
  -h, --help            Show help (after a command: that command's)
  -v, --version         Print the version

Exit codes: 0 success, 1 transient failure (retrying may succeed: disk full, I/O error,
crash), 2 the admin must act (usage, configuration, certificate, permissions, port taken).
`;

const ENV_FILE_HELP = `  --env-file FILE   Read GATEHOUSE_* settings from FILE; the process environment wins.
                    With /etc/gatehouse/NAME.env and no GATEHOUSE_DATA_DIR in the file or the
                    environment, the data directory is /var/lib/gatehouse/NAME (as the unit sets it).`;

/** What `gatehouse <command> --help` prints. */
export const COMMAND_HELP = {
  serve: `Usage: gatehouse serve [--env-file FILE]

Runs the server until SIGTERM or SIGINT (graceful: /readyz answers 503 for GATEHOUSE_SHUTDOWN_DRAIN
while requests are still served, then in-flight requests finish, up to GATEHOUSE_SHUTDOWN_GRACE).
SIGHUP re-reads the TLS certificate and key and the admin tokens without a restart; a bad new
certificate is logged and the old one keeps serving.

${ENV_FILE_HELP}
`,
  migrate: `Usage: gatehouse migrate [--env-file FILE]

Applies the migrations this executable carries to the database (creating it if missing), names
each one applied, and exits. \`serve\` does the same at start.

${ENV_FILE_HELP}
`,
  backup: `Usage: gatehouse backup <file> [--env-file FILE]

Writes a consistent, checked copy of the database to <file> (mode 0600) while the server keeps
serving. Refuses to overwrite <file>. The copy holds webhook signing secrets encrypted: a
restore needs the secret key file too (GATEHOUSE_SECRET_KEY_FILE).

${ENV_FILE_HELP}
`,
  "copy-to-postgres": `Usage: gatehouse copy-to-postgres [postgres://USER@HOST:5432/DATABASE?sslmode=…] [--env-file FILE]

Moves an instance to PostgreSQL: copies every row of its SQLite database (in GATEHOUSE_DATA_DIR),
ids kept, into an empty PostgreSQL database, which it first migrates to this executable's schema.
One transaction: the target gets all of it or, after any failure, nothing. The SQLite file is
only read. Prints each table's row count, checked equal on both sides. Then set
GATEHOUSE_DATABASE_URL and start the server (same secret key file: webhook secrets stay sealed).

Without a URL, GATEHOUSE_DATABASE_URL from the configuration is the target (with
GATEHOUSE_DATABASE_CA_FILE); a URL without a password takes it from PGPASSWORD, which keeps it
out of the process list. The password is never printed.

Stop the server first: the copy takes the data directory's lock as \`serve\` does. Refused, with
nothing written (exit 2): a running server, a target holding any row, a database not at this
executable's schema (start the server once, or run \`gatehouse migrate\`, then copy).

${ENV_FILE_HELP}
`,
  "scim-token": `Usage: gatehouse scim-token create --name NAME [--workspace ID] [--env-file FILE]
       gatehouse scim-token list [--env-file FILE]
       gatehouse scim-token revoke ID [--env-file FILE]

Manages the bearer tokens identity providers use for SCIM, in the database of an existing
instance (it refuses to create one). \`create\` prints only the token on stdout.

${ENV_FILE_HELP}
`,
  config: `Usage: gatehouse config check [--env-file FILE]

Validates the configuration as \`serve\` would (keys, values, TLS files, data directory) and prints
every key with its effective value and where it came from; secrets are masked. Exit 0 when
\`serve\` would start with it, 2 otherwise.

${ENV_FILE_HELP}
`,
  version: `Usage: gatehouse version

Prints the version, the database schema version this executable carries, the commit, build date,
Bun version and target platform.
`,
  help: USAGE,
} as const;
export type HelpTopic = keyof typeof COMMAND_HELP;

const isHelpFlag = (a: string) => a === "-h" || a === "--help";

export function parseCommandLine(argv: string[]): ParseResult {
  let envFile: string | null = null;
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--env-file") {
      const v = argv[i + 1];
      if (v === undefined || v === "") return { ok: false, error: "--env-file needs a file name" };
      if (envFile !== null) return { ok: false, error: "--env-file given twice" };
      envFile = v;
      i++;
    } else if (a.startsWith("--env-file=")) {
      const v = a.slice("--env-file=".length);
      if (v === "") return { ok: false, error: "--env-file needs a file name" };
      if (envFile !== null) return { ok: false, error: "--env-file given twice" };
      envFile = v;
    } else {
      rest.push(a);
    }
  }

  const [first, ...args] = rest;
  if (first === "-h" || first === "--help" || first === "help") {
    if (args.length === 0) return { ok: true, command: { name: "help" } };
    const topic = args[0]!;
    if (args.length === 1 && Object.hasOwn(COMMAND_HELP, topic)) return { ok: true, command: { name: "help", topic: topic as HelpTopic } };
    return unexpected(args[0]!, "help");
  }
  if (first === "-v" || first === "--version" || first === "version") {
    if (args.length === 1 && isHelpFlag(args[0]!)) return { ok: true, command: { name: "help", topic: "version" } };
    return args.length === 0 ? { ok: true, command: { name: "version" } } : unexpected(args[0]!, "version");
  }
  if (first === undefined) return { ok: true, command: { name: "serve", envFile } };
  // `gatehouse <command> … --help`: that command's help, whatever else is on the line.
  if (Object.hasOwn(COMMAND_HELP, first) && args.some(isHelpFlag)) return { ok: true, command: { name: "help", topic: first as HelpTopic } };
  switch (first) {
    case "serve":
    case "migrate":
      return args.length === 0 ? { ok: true, command: { name: first, envFile } } : unexpected(args[0]!, first);
    case "backup": {
      const [target, ...extra] = args;
      if (target === undefined || target.startsWith("-")) return target === undefined ? { ok: false, error: "backup needs a target file: gatehouse backup <file>" } : unexpected(target, "backup");
      if (extra.length > 0) return unexpected(extra[0]!, "backup");
      return { ok: true, command: { name: "backup", envFile, target } };
    }
    case "copy-to-postgres": {
      const [url, ...extra] = args;
      if (url !== undefined && url.startsWith("-")) return unexpected(url, "copy-to-postgres");
      if (extra.length > 0) return unexpected(extra[0]!, "copy-to-postgres");
      return { ok: true, command: { name: "copy-to-postgres", envFile, url: url ?? null } };
    }
    case "scim-token":
      // The SCIM token CLI validates its own sub-commands.
      return { ok: true, command: { name: "scim-token", envFile, args } };
    case "config": {
      const [sub, ...extra] = args;
      if (sub !== "check") return { ok: false, error: sub === undefined ? "config needs a sub-command: gatehouse config check" : `unknown config sub-command ${sub} (there is: check)` };
      if (extra.length > 0) return unexpected(extra[0]!, "config check");
      return { ok: true, command: { name: "config-check", envFile } };
    }
    default:
      return first.startsWith("-") ? { ok: false, error: `unknown option ${first}` } : { ok: false, error: `unknown command ${first}` };
  }
}

function unexpected(arg: string, command: string): ParseResult {
  return { ok: false, error: arg.startsWith("-") ? `unknown option ${arg} for ${command}` : `unexpected argument ${arg} for ${command}` };
}
