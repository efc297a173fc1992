/**
 * Command-line grammar, as a pure function so every branch is unit-tested:
 *   gatehouse [serve] [--env-file FILE]
 *   gatehouse migrate [--env-file FILE]
 *   gatehouse backup <file> [--env-file FILE]
 *   gatehouse scim-token <create --name NAME | list | revoke ID> [--env-file FILE]
 *   gatehouse version | --version | -v
 *   gatehouse help | --help | -h
 * `--env-file` may appear anywhere (also as `--env-file=FILE`).
 */

export type Command =
  | { name: "serve"; envFile: string | null }
  | { name: "migrate"; envFile: string | null }
  | { name: "backup"; envFile: string | null; target: string }
  | { name: "scim-token"; envFile: string | null; args: string[] }
  | { name: "version" }
  | { name: "help" };

export type ParseResult = { ok: true; command: Command } | { ok: false; error: string };

export const USAGE = `Usage: gatehouse [command] [--env-file FILE]

Commands:
  serve                 Run the server (the default command)
  migrate               Apply pending database migrations, then exit
  backup <file>         Write a consistent copy of the database to <file>; safe while serving
  scim-token create --name NAME [--workspace ID] | list | revoke ID
                        Manage the bearer tokens identity providers use for SCIM
  version               Print the version, commit, build date, Bun version and target
  help                  Show this help

Options:
  --env-file FILE       Read GATEHOUSE_* settings from FILE; the process environment wins
  -h, --help            Show this help
  -v, --version         Print the version

Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.
`;

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
    return args.length === 0 ? { ok: true, command: { name: "help" } } : unexpected(args[0]!, "help");
  }
  if (first === "-v" || first === "--version" || first === "version") {
    return args.length === 0 ? { ok: true, command: { name: "version" } } : unexpected(args[0]!, "version");
  }
  if (first === undefined) return { ok: true, command: { name: "serve", envFile } };
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
    case "scim-token":
      // The SCIM token CLI validates its own sub-commands.
      return { ok: true, command: { name: "scim-token", envFile, args } };
    default:
      return first.startsWith("-") ? { ok: false, error: `unknown option ${first}` } : { ok: false, error: `unknown command ${first}` };
  }
}

function unexpected(arg: string, command: string): ParseResult {
  return { ok: false, error: arg.startsWith("-") ? `unknown option ${arg} for ${command}` : `unexpected argument ${arg} for ${command}` };
}
