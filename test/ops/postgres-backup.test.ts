/**
 * The README's backup of a PostgreSQL instance, as documented: `pg_dump --format=custom` while the
 * server runs, `pg_restore --no-owner --role=… -d` into an empty database, the same secret key
 * file — and a server on the restored database answers the same reads, accepts the old tokens,
 * numbers the next case after the last, and signs with the old webhook secret.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Webhook } from "standardwebhooks";
import { ADMIN_TOKEN, startInProcess } from "../server/harness";
import { startReceiver } from "../webhooks/harness";
import { freshDatabase, postgresBinDir, testServerUrl } from "../support/postgres";

type Server = Awaited<ReturnType<typeof startInProcess>>;
const databases: Awaited<ReturnType<typeof freshDatabase>>[] = [];
let receiver: ReturnType<typeof startReceiver>;
const dumpDir = mkdtempSync(join(tmpdir(), "gatehouse-pg-backup-"));

beforeAll(async () => {
  testServerUrl(); // starts the run's server when there is none, outside any test's time limit
  receiver = startReceiver();
}, 120_000);
afterAll(async () => {
  receiver?.stop();
  rmSync(dumpDir, { recursive: true, force: true });
  for (const d of databases) await d.drop();
});

const tool = (name: string, ...args: string[]) => {
  const r = Bun.spawnSync([join(postgresBinDir() ?? "/usr/bin", name), ...args], { stdout: "pipe", stderr: "pipe" });
  expect({ tool: name, code: r.exitCode, stderr: r.stderr.toString() }).toEqual({ tool: name, code: 0, stderr: "" });
};

test("pg_dump while serving, pg_restore into an empty database: the same reads, tokens, numbers and webhook secret", async () => {
  const source = await freshDatabase("backup_src");
  const target = await freshDatabase("backup_dst");
  databases.push(source, target);
  const dump = join(dumpDir, "acme.dump");

  let first: Server | null = await startInProcess({ databaseUrl: source.url, webhookAllowPrivateTargets: true, webhookPollIntervalMs: 50 });
  const keyFile = join(dumpDir, "secret.key"); // the key file, backed up beside the dump
  const call = async (srv: Server, method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const r = await fetch(`${srv.base}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: r.status, body: (await r.json()) as any };
  };
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
  let reads: unknown[];
  let apiToken: string;
  let scimToken: string;
  let subscriptionSecret: string;
  try {
    scimToken = (await call(first, "POST", "/api/admin/scim-tokens", admin, { name: "idp" })).body.token;
    apiToken = (await call(first, "POST", "/api/admin/api-tokens", admin, { name: "ci" })).body.token;
    const sub = await call(first, "POST", "/api/admin/webhooks", admin, { url: receiver.url, events: ["case.created"] });
    expect(sub.status).toBe(201);
    subscriptionSecret = sub.body.secret;
    expect((await call(first, "POST", "/scim/v2/Users", { authorization: `Bearer ${scimToken}` }, { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ada@example.com", name: { givenName: "Ada", familyName: "Lovelace" } })).status).toBe(201);
    expect((await call(first, "POST", "/api/v1/project", { token: apiToken }, { title: "Backup", code: "BK" })).status).toBe(200);
    for (const title of ["one", "two", "three"]) expect((await call(first, "POST", "/api/v1/case/BK", { token: apiToken }, { title })).status).toBe(200);
    await receiver.waitFor(3);

    // The backup, taken while the server runs, and the key file beside it.
    tool("pg_dump", "--format=custom", `--file=${dump}`, source.url);
    copyFileSync(join(first.dir, "data", "secret.key"), keyFile);
    reads = await Promise.all([
      call(first, "GET", "/scim/v2/Users", { authorization: `Bearer ${scimToken}` }),
      call(first, "GET", "/api/v1/case/BK?limit=100", { token: apiToken }),
      call(first, "GET", "/api/admin/webhooks", admin),
    ]);
  } finally {
    await first?.close();
    first = null;
  }

  // The restore: into an empty database, owned by the restoring role, with the same key file.
  const empty = new URL(target.url);
  tool("pg_restore", "--no-owner", `--role=${empty.username}`, "-d", target.url, dump);
  const restored = await startInProcess({ databaseUrl: target.url, secretKeyFile: keyFile, webhookAllowPrivateTargets: true, webhookPollIntervalMs: 50 });
  try {
    const again = await Promise.all([
      call(restored, "GET", "/scim/v2/Users", { authorization: `Bearer ${scimToken}` }),
      call(restored, "GET", "/api/v1/case/BK?limit=100", { token: apiToken }),
      call(restored, "GET", "/api/admin/webhooks", admin),
    ]);
    expect(again as unknown[]).toEqual(reads);
    // The counters came along: the next case is number 4, and its event is signed with the old secret.
    const next = await call(restored, "POST", "/api/v1/case/BK", { token: apiToken }, { title: "four" });
    expect(next.body.result.id).toBe(4);
    await receiver.waitFor(4);
    const last = receiver.received[3]!;
    expect(() => new Webhook(subscriptionSecret).verify(last.body, last.headers)).not.toThrow();
    expect(receiver.received.length).toBe(4); // nothing delivered before the backup is sent again
  } finally {
    await restored.close();
  }
}, 120_000);
