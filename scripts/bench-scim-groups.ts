/**
 * Benchmark: SCIM Groups with a 10 000-member team.
 *
 *   node_modules/.bin/bun scripts/bench-scim-groups.ts [--iterations 200]
 *
 * Setup (bulk inserts, not timed): a fresh data directory, 10 000 + 100 active users, a group
 * holding the first 10 000, a SCIM token. The server is the real `src/main.ts` in its own
 * process (so the load generator's work does not share its event loop); this process sends one
 * request at a time over keep-alive HTTP on 127.0.0.1 and records each latency.
 *
 * Scenarios, all in the same run:
 * - baseline: GET /Users/{id} (one indexed row — the cheapest SCIM read);
 * - GET /Groups/{id} with its 10 000 members;
 * - GET /Groups/{id}?excludedAttributes=members (what Entra asks for);
 * - the same with members' display and $ref requested (joins users) and Entra's lookup by
 *   `displayName eq` with members excluded;
 * - PATCH adding 100 members to the 10 000-member group (the response carries all 10 100
 *   members, as the spec requires); each add is followed by an untimed PATCH removing the same
 *   100, so every timed add starts from 10 000 members.
 * Target: PATCH add-100 p99 under 20 ms.
 */
import { spawn } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, closeDatabase } from "../src/db/connection";
import { displayNameKey, groupMembers, groups, users } from "../src/directory/tables";
import { sql } from "drizzle-orm";
import { newGroupId } from "../src/directory/groups";
import { createScimToken } from "../src/scim/tokens/service";

const GROUP_SIZE = 10_000;
const ADD = 100;
const argIndex = process.argv.indexOf("--iterations");
const ITERATIONS = argIndex > 0 ? Number(process.argv[argIndex + 1]) : 200;
const root = join(import.meta.dir, "..");

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

async function freePort(): Promise<number> {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

// ---- setup -------------------------------------------------------------------------------
const dataDir = mkdtempSync(join(tmpdir(), "gatehouse-bench-groups-"));
const handle = openDatabase(join(dataDir, "gatehouse.db"));
const token = (await createScimToken(handle.db, "bench")).token;
const now = new Date().toISOString();
const userIds: number[] = [];
handle.db.transaction((tx) => {
  const CHUNK = 500;
  for (let start = 0; start < GROUP_SIZE + ADD; start += CHUNK) {
    const rows = [];
    for (let i = start; i < Math.min(start + CHUNK, GROUP_SIZE + ADD); i++) {
      const userName = `bench-user-${i}@example.com`;
      rows.push({ userName, userNameKey: userName, displayName: `Bench User ${i}`, createdAt: now, updatedAt: now });
    }
    for (const r of tx.insert(users).values(rows).returning({ id: users.id }).all()) userIds.push(r.id);
  }
  // the users are members of the default workspace, as SCIM-provisioned ones are (group members must be)
  tx.run(sql`INSERT INTO workspace_members (workspace_id, user_id, created_at) SELECT 1, id, created_at FROM users`);
  const groupId = newGroupId();
  tx.insert(groups).values({ id: groupId, displayName: "Big team", displayNameKey: displayNameKey("Big team"), createdAt: now, updatedAt: now }).run();
  for (let start = 0; start < GROUP_SIZE; start += 5000)
    tx.insert(groupMembers).values(userIds.slice(start, Math.min(start + 5000, GROUP_SIZE)).map((userId) => ({ groupId, userId }))).run();
});
const groupId = handle.db.select({ id: groups.id }).from(groups).get()!.id;
handle.sqlite.exec("PRAGMA wal_checkpoint(TRUNCATE)");
closeDatabase(handle);

// ---- server in its own process ----------------------------------------------------------
const port = await freePort();
const server = spawn([process.execPath, join(root, "src/main.ts"), "serve"], {
  cwd: root,
  env: {
    PATH: process.env.PATH ?? "",
    GATEHOUSE_HOST: "127.0.0.1",
    GATEHOUSE_PORT: String(port),
    GATEHOUSE_BASE_URL: `http://127.0.0.1:${port}`,
    GATEHOUSE_DATA_DIR: dataDir,
    GATEHOUSE_LOG_LEVEL: "warn",
    // The benchmark is one client hammering on purpose; the per-token limiter is not under test.
    GATEHOUSE_SCIM_RATE_LIMIT: "1000000",
    GATEHOUSE_SCIM_RATE_BURST: "1000000",
  },
  stdout: "inherit",
  stderr: "inherit",
});
const base = `http://127.0.0.1:${port}/scim/v2`;
const headers = { authorization: `Bearer ${token}`, accept: "application/scim+json", "content-type": "application/scim+json" };

try {
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/healthz`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 200) throw new Error("server did not start");
    await Bun.sleep(50);
  }

  async function timed(method: string, url: string, body?: unknown, expectStatus = 200): Promise<{ ms: number; bytes: number }> {
    const started = performance.now();
    const r = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const buf = await r.arrayBuffer();
    const ms = performance.now() - started;
    if (r.status !== expectStatus) throw new Error(`${method} ${url}: ${r.status} ${new TextDecoder().decode(buf).slice(0, 300)}`);
    return { ms, bytes: buf.byteLength };
  }

  type Row = { scenario: string; n: number; p50: number; p99: number; mean: number; bytes: number };
  const rows: Row[] = [];
  async function scenario(name: string, n: number, once: (i: number) => Promise<{ ms: number; bytes: number }>) {
    for (let i = 0; i < Math.min(20, n); i++) await once(i); // warm-up (JIT, page cache)
    const samples: number[] = [];
    let bytes = 0;
    for (let i = 0; i < n; i++) {
      const s = await once(i);
      samples.push(s.ms);
      bytes = s.bytes;
    }
    samples.sort((a, b) => a - b);
    rows.push({ scenario: name, n, p50: percentile(samples, 50), p99: percentile(samples, 99), mean: samples.reduce((a, b) => a + b, 0) / n, bytes });
  }

  const newcomers = userIds.slice(GROUP_SIZE, GROUP_SIZE + ADD).map((id) => ({ value: String(id) }));
  const patchBody = (op: string) => ({ schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op, path: "members", value: newcomers }] });

  await scenario("baseline: GET /Users/{id}", ITERATIONS * 2, (i) => timed("GET", `${base}/Users/${userIds[i % GROUP_SIZE]}`));
  await scenario("GET /Groups/{id}?excludedAttributes=members", ITERATIONS * 2, () => timed("GET", `${base}/Groups/${groupId}?excludedAttributes=members`));
  await scenario(`GET /Groups/{id} (${GROUP_SIZE} members)`, ITERATIONS, () => timed("GET", `${base}/Groups/${groupId}`));
  await scenario(`GET /Groups/{id}?attributes=members,members.display,members.$ref (joins users)`, ITERATIONS, () =>
    timed("GET", `${base}/Groups/${groupId}?attributes=${encodeURIComponent("members,members.display,members.$ref")}`),
  );
  await scenario("GET /Groups?filter=displayName eq …&excludedAttributes=members (Entra lookup)", ITERATIONS * 2, () =>
    timed("GET", `${base}/Groups?excludedAttributes=members&filter=${encodeURIComponent('displayName eq "big TEAM"')}`),
  );
  await scenario(`PATCH add ${ADD} members to a ${GROUP_SIZE}-member group`, ITERATIONS, async () => {
    const added = await timed("PATCH", `${base}/Groups/${groupId}`, patchBody("Add"));
    await timed("PATCH", `${base}/Groups/${groupId}`, patchBody("Remove")); // back to 10 000, untimed
    return added;
  });

  const f = (x: number) => x.toFixed(2);
  console.log(`\nSCIM groups benchmark — ${new Date().toISOString()}, bun ${Bun.version}, ${navigator.hardwareConcurrency} CPUs (shared machine: expect noise)\n`);
  console.log("| scenario | requests | p50 ms | p99 ms | mean ms | response bytes |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows) console.log(`| ${r.scenario} | ${r.n} | ${f(r.p50)} | ${f(r.p99)} | ${f(r.mean)} | ${r.bytes} |`);
  const patchRow = rows.find((r) => r.scenario.startsWith("PATCH"))!;
  console.log(`\nTarget PATCH add-${ADD} p99 < 20 ms: ${patchRow.p99 < 20 ? "met" : "NOT met"} (${f(patchRow.p99)} ms).`);
} finally {
  server.kill();
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
