import type { AppContext } from "../context";
import { DirectoryError } from "../directory/errors";
import { createScimToken, listScimTokens, revokeScimToken } from "./tokens/service";

export type CliOutput = { out: (s: string) => void; err: (s: string) => void };
const processOutput: CliOutput = { out: (s) => process.stdout.write(s), err: (s) => process.stderr.write(s) };

const USAGE = "usage: gatehouse scim-token create --name NAME [--workspace ID] | list | revoke ID\n";

/**
 * `gatehouse scim-token create --name X | list | revoke ID` — the same operations as the admin
 * API, for an admin with shell access. `create` prints ONLY the token on stdout (so
 * `TOKEN=$(gatehouse scim-token create --name entra)` works); messages go to stderr.
 * Exit codes: 0 ok, 1 not found, 2 usage.
 */
export async function scimTokenCli(argv: string[], ctx: AppContext, io: CliOutput = processOutput): Promise<number> {
  const [sub, ...rest] = argv;
  switch (sub) {
    case "create": {
      let name: string | undefined;
      let workspace: string | undefined;
      for (let i = 0; i < rest.length; i++) {
        const a = rest[i]!;
        if (a === "--name") name = rest[++i];
        else if (a.startsWith("--name=")) name = a.slice("--name=".length);
        else if (a === "--workspace") workspace = rest[++i] ?? "";
        else if (a.startsWith("--workspace=")) workspace = a.slice("--workspace=".length);
        else {
          io.err(`gatehouse scim-token create: unexpected argument ${JSON.stringify(a)}\n${USAGE}`);
          return 2;
        }
      }
      if (!name || name.trim() === "" || name.length > 200) {
        io.err(`gatehouse scim-token create: --name NAME is required (1–200 characters)\n${USAGE}`);
        return 2;
      }
      if (workspace !== undefined && !/^[1-9]\d{0,14}$/.test(workspace)) {
        io.err(`gatehouse scim-token create: --workspace takes a workspace id (see GET /api/admin/workspaces)\n${USAGE}`);
        return 2;
      }
      let created: Awaited<ReturnType<typeof createScimToken>>;
      try {
        created = await createScimToken(ctx.db, name.trim(), workspace === undefined ? null : Number(workspace));
      } catch (e) {
        if (!(e instanceof DirectoryError)) throw e;
        io.err(`gatehouse: ${e.message}\n`);
        return 1;
      }
      io.out(`${created.token}\n`);
      io.err(`gatehouse: SCIM token ${created.id} (${created.name}) for ${created.workspaceId === null ? "the organization" : `workspace ${created.workspaceId}`} created; it is shown only now\n`);
      return 0;
    }
    case "list": {
      if (rest.length) {
        io.err(USAGE);
        return 2;
      }
      const tokens = await listScimTokens(ctx.db);
      io.out("ID\tNAME\tWORKSPACE\tCREATED\tLAST USED\tREVOKED\n");
      for (const t of tokens) io.out(`${t.id}\t${t.name}\t${t.workspaceId ?? "organization"}\t${t.createdAt}\t${t.lastUsedAt ?? "-"}\t${t.revokedAt ?? "-"}\n`);
      return 0;
    }
    case "revoke": {
      if (rest.length !== 1 || !/^\d{1,15}$/.test(rest[0]!)) {
        io.err(`gatehouse scim-token revoke: a numeric token ID is required\n${USAGE}`);
        return 2;
      }
      if (!(await revokeScimToken(ctx.db, Number(rest[0])))) {
        io.err(`gatehouse: no SCIM token with ID ${rest[0]}\n`);
        return 1;
      }
      io.err(`gatehouse: SCIM token ${rest[0]} revoked\n`);
      return 0;
    }
    default:
      io.err(USAGE);
      return 2;
  }
}
