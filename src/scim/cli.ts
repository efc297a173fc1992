import type { AppContext } from "../context";

/**
 * `gatehouse scim-token create --name X | list | revoke ID`.
 * PLACEHOLDER until the SCIM token work lands: same signature, replaced at merge.
 */
export async function scimTokenCli(_argv: string[], _ctx: AppContext): Promise<number> {
  process.stderr.write("gatehouse scim-token: not available yet\n");
  return 2;
}
