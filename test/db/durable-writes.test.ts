import { afterEach, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import type { WalSync } from "../../src/db/group-commit";
import { rowsOf } from "../../src/db/statement";
import { createScimTestApp, USER_SCHEMA } from "../scim/helpers";
import { testOnSqlite } from "../helpers";

/**
 * Through `app.handle`, as clients see it: no write answers before the WAL sync covering its
 * commit has returned, and a failed sync answers 503 to every write it covered, never 2xx.
 */

type Held = { resolve(): void; reject(e: Error): void };
function disk() {
  const held: Held[] = [];
  let mode: "pass" | "hold" = "pass";
  const walSync: WalSync = {
    sync: () => (mode === "pass" ? Promise.resolve() : new Promise<void>((resolve, reject) => held.push({ resolve, reject }))),
    close() {},
  };
  return { walSync, held, hold: () => (mode = "hold"), pass: () => (mode = "pass") };
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

async function setup() {
  const d = disk();
  const t = await createScimTestApp({}, { walSync: d.walSync });
  cleanups.push(() => t.close());
  const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "bench" })).json()) as { token: string }).token;
  const api = (method: string, path: string, body?: unknown) => t.request(method, `/api/v1${path}`, { body, headers: { token } });
  expect((await api("POST", "/project", { title: "Durable", code: "DUR" })).status).toBe(200);
  const user = (n: number) => ({ schemas: [USER_SCHEMA], userName: `user${n}@example.com`, name: { givenName: "U", familyName: `N${n}` }, emails: [{ value: `user${n}@example.com`, type: "work", primary: true }], active: true });
  /** One of each kind of write route: SCIM, the entity API, the admin API. */
  const writes = (n: number) => [
    t.scim("POST", "/Users", user(n)),
    api("POST", "/case/DUR", { title: `case ${n}` }),
    t.admin("POST", "/api/admin/webhooks", { url: `https://hooks.example.com/${n}`, events: ["*"] }),
  ];
  return { ...d, t, api, writes, user };
}

/** Resolves to the responses that have arrived after the event loop has had several turns. */
async function answered(ps: Promise<Response>[]): Promise<Response[]> {
  const got: Response[] = [];
  for (const p of ps) p.then((r) => got.push(r));
  for (let i = 0; i < 20; i++) await new Promise((r) => setTimeout(r, 5));
  return got;
}

testOnSqlite("no write answers before its sync: SCIM, entity and admin writes wait for the held sync; reads do not (SQLite's group commit: on PostgreSQL COMMIT returns once the WAL is flushed)", async () => {
  const s = await setup();
  s.hold();
  const inflight = [...s.writes(1), ...s.writes(2), ...s.writes(3)];
  expect(await answered(inflight)).toEqual([]);
  expect(s.held.length).toBe(1); // nine writes, one sync
  // Reads answer meanwhile (they may show the committed rows; see docs/storage.md).
  const read = await s.t.scim("GET", `/Users?filter=${encodeURIComponent('userName eq "user1@example.com"')}`);
  expect(read.status).toBe(200);
  // Writes that commit while the sync runs wait for the next one.
  const later = s.writes(4);
  s.held.shift()!.resolve();
  const first = await Promise.all(inflight);
  expect(first.map((r) => r.status)).toEqual([201, 200, 201, 201, 200, 201, 201, 200, 201]);
  expect(await answered(later)).toEqual([]);
  expect(s.held.length).toBe(1);
  s.pass();
  s.held.shift()!.resolve();
  expect((await Promise.all(later)).map((r) => r.status)).toEqual([201, 200, 201]);
});

testOnSqlite("a failed sync answers 503 to every write it covered, never 2xx, in each protocol's error format; later writes too (SQLite's group commit: on PostgreSQL COMMIT returns once the WAL is flushed)", async () => {
  const s = await setup();
  s.hold();
  const inflight = [...s.writes(1), ...s.writes(2)];
  expect(await answered(inflight)).toEqual([]);
  const queued = s.writes(3);
  await answered(queued);
  s.held.shift()!.reject(Object.assign(new Error("EIO: i/o error, fdatasync"), { code: "EIO" }));
  const all = await Promise.all([...inflight, ...queued]);
  expect(all.map((r) => r.status)).toEqual(Array(9).fill(503));
  const scim = (await all[0]!.json()) as { schemas: string[]; status: string };
  expect(scim.schemas).toEqual(["urn:ietf:params:scim:api:messages:2.0:Error"]);
  expect(scim.status).toBe("503");
  expect(((await all[1]!.json()) as { status: boolean }).status).toBe(false);
  // The disk's state is unknown from here on: no later write is acknowledged either.
  expect((await Promise.all(s.writes(4))).map((r) => r.status)).toEqual([503, 503, 503]);
  expect(s.held.length).toBe(0);
});

testOnSqlite("a request that fails before writing does not wait for anybody's sync (SQLite's group commit: on PostgreSQL COMMIT returns once the WAL is flushed)", async () => {
  const s = await setup();
  s.hold();
  const pending = s.writes(1);
  await answered(pending);
  // An error answer (here validation) never waits: only answers from handlers do.
  const bad = await s.t.scim("POST", "/Users", { schemas: [USER_SCHEMA] });
  expect(bad.status).toBe(400);
  s.pass();
  s.held.shift()!.resolve();
  await Promise.all(pending);
});

test("while the delivery loop is behind, a write's handler waits (nothing is written yet); reads go on", async () => {
  const s = await setup();
  s.t.ctx.groupCommit.holdWrites(true, 60_000); // a hold that cannot run out during the test
  const create = s.api("POST", "/case/DUR", { title: "held" });
  expect(await answered([create])).toEqual([]);
  const count = async () => (await rowsOf<{ n: number }>(s.t.ctx.db, sql`SELECT count(*) AS n FROM tms_cases`))[0]!.n;
  expect(await count()).toBe(0);
  expect((await s.t.scim("GET", "/Users")).status).toBe(200);
  s.t.ctx.groupCommit.holdWrites(false);
  expect((await create).status).toBe(200);
  expect(await count()).toBe(1);
});
