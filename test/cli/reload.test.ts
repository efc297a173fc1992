import { afterAll, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createLogger } from "../../src/log";
import { reload } from "../../src/cli/serve";
import { ADMIN_TOKEN, startInProcess } from "../server/harness";

const srv = await startInProcess();
afterAll(() => srv.close());

const NEW_TOKEN = "rotated-admin-token-abcdefghij";
const envFile = join(srv.dir, "acme.env");
const env = { GATEHOUSE_HOST: "127.0.0.1", GATEHOUSE_PORT: "0", GATEHOUSE_DATA_DIR: join(srv.dir, "data") };
const lines: Record<string, unknown>[] = [];
const log = createLogger("debug", (l) => lines.push(JSON.parse(l)));
const adminStatus = async (token: string) => (await fetch(`${srv.base}/api/admin/instance`, { headers: { authorization: `Bearer ${token}` } })).status;

test("admin-token rotation without a restart: SIGHUP's reload accepts both tokens during the switch, then only the new one", async () => {
  expect(await adminStatus(ADMIN_TOKEN)).toBe(200);
  expect(await adminStatus(NEW_TOKEN)).toBe(401);

  writeFileSync(envFile, `GATEHOUSE_ADMIN_TOKEN=${NEW_TOKEN}\nGATEHOUSE_ADMIN_TOKEN_PREVIOUS=${ADMIN_TOKEN}\n`);
  await reload(srv, srv.ctx.config, { envFile, env, log });
  expect(await adminStatus(ADMIN_TOKEN)).toBe(200);
  expect(await adminStatus(NEW_TOKEN)).toBe(200);
  expect(lines.at(-1)).toMatchObject({ msg: "reloaded", adminTokens: "changed", tls: "not configured" });

  writeFileSync(envFile, `GATEHOUSE_ADMIN_TOKEN=${NEW_TOKEN}\nGATEHOUSE_LOG_LEVEL=debug\n`);
  await reload(srv, srv.ctx.config, { envFile, env, log });
  expect(await adminStatus(ADMIN_TOKEN)).toBe(401);
  expect(await adminStatus(NEW_TOKEN)).toBe(200);
  // What SIGHUP cannot apply is named, not silently ignored.
  expect((lines.at(-1)!.changedButNeedRestart as string[])).toContain("GATEHOUSE_LOG_LEVEL");
  expect(JSON.stringify(lines)).not.toContain(NEW_TOKEN);
});

test("a reload with an invalid configuration changes nothing and says why", async () => {
  writeFileSync(envFile, `GATEHOUSE_ADMIN_TOKEN=short\n`);
  await reload(srv, srv.ctx.config, { envFile, env, log });
  expect(lines.at(-1)).toMatchObject({ level: "error", msg: "reload refused: the configuration is not valid; nothing changed" });
  expect(await adminStatus(NEW_TOKEN)).toBe(200);
  expect(JSON.stringify(lines)).not.toContain("short\"");
});
