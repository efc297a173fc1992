/**
 * The rules the directory checks before it writes — unique case-folded userNames, license seats,
 * unique group displayNames per workspace — hold under concurrent transactions on PostgreSQL,
 * where READ COMMITTED transactions really run at once (on SQLite the one writer serializes them
 * anyway). userNames are held by their unique index (the loser of a race waits for the winner's
 * COMMIT and gets the SCIM duplicate answer, not a raw constraint error); the rules no constraint
 * can hold name a `serializeOn` key — without the seats key two creates would both pass the seat
 * count, without the user's key two PATCHes of one user would lose one. Real services over a real
 * server (test/support/postgres.ts).
 */
import { expect, test } from "bun:test";
import postgres from "postgres";
import { testConfig, type Config } from "../../src/config";
import type { Db } from "../../src/db/store";
import { DirectoryError } from "../../src/directory/errors";
import { createGroupService } from "../../src/scim/groups/service";
import { stateFromBody } from "../../src/scim/users/rules";
import { createUsersService } from "../../src/scim/users/service";
import { usePostgresForTest } from "../support/postgres";

let sql: postgres.Sql;
let db: Db;

usePostgresForTest("rules", async (pg) => {
  ({ sql, db } = pg);
  // Every pooled connection open before the races, so their transactions really overlap.
  await Promise.all(Array.from({ length: 10 }, () => sql`SELECT pg_sleep(0.05)`));
}, 10);

const config = (overrides: Partial<Config> = {}) => testConfig({ dataDir: "/nonexistent", adminToken: "x".repeat(24), baseUrl: "https://gatehouse.test", ...overrides });
const user = (userName: string) => stateFromBody({ schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName, name: { givenName: "G", familyName: "F" } }, { requireNames: true, activeWhenOmitted: true });

/** Runs every write at once; the outcomes in order: "ok" or the DirectoryError's status (anything else is rethrown). */
async function race(writes: (() => Promise<unknown>)[]): Promise<(string | number)[]> {
  const settled = await Promise.allSettled(writes.map((w) => w()));
  return settled.map((s) => {
    if (s.status === "fulfilled") return "ok";
    if (s.reason instanceof DirectoryError) return s.reason.status;
    throw s.reason;
  });
}

test("one userName, eight concurrent creates in different cases: one user, seven SCIM duplicates", async () => {
  const users = createUsersService({ db, config: config() } as never);
  const names = ["same@race.example", "SAME@race.example", "Same@Race.example", "same@RACE.EXAMPLE", "sAme@race.example", "samE@race.example", "SAME@RACE.EXAMPLE", "same@race.Example"];
  const outcomes = await race(names.map((n) => () => users.create(user(n))));
  expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
  expect(outcomes.filter((o) => o === 400)).toHaveLength(7);
  expect((await sql`SELECT count(*)::int AS n FROM users WHERE user_name_key = 'same@race.example'`)[0]!.n).toBe(1);
});

test("a rename racing creates of the same folded name: exactly one holds it, the others get the SCIM duplicate", async () => {
  const users = createUsersService({ db, config: config() } as never);
  for (let round = 0; round < 6; round++) {
    const renamed = await Promise.all(Array.from({ length: 2 }, (_, i) => users.create(user(`before${round}-${i}@race.example`))));
    const target = `Taken${round}@Race.example`;
    const outcomes = await race([
      ...renamed.map((r) => () => users.patch(r.id, [{ op: "replace", path: "userName", value: target.toUpperCase() }] as never)),
      () => users.create(user(target)),
      () => users.create(user(target.toLowerCase())),
    ]);
    expect(outcomes.filter((o) => o === "ok")).toHaveLength(1);
    expect(outcomes.filter((o) => o === 400)).toHaveLength(3);
    expect((await sql`SELECT count(*)::int AS n FROM users WHERE user_name_key = ${target.toLowerCase()}`)[0]!.n).toBe(1);
  }
}, 60_000);

test("eight concurrent PATCHes of one user, each adding an e-mail: none is lost (updates wait on the user's key)", async () => {
  const users = createUsersService({ db, config: config() } as never);
  const person = await users.create(user("many.mails@race.example"));
  const outcomes = await race(Array.from({ length: 8 }, (_, i) => () => users.patch(person.id, [{ op: "add", path: "emails", value: [{ value: `m${i}@race.example`, type: "other" }] }] as never)));
  expect(outcomes).toEqual(Array(8).fill("ok"));
  const mails = await sql`SELECT value FROM user_emails WHERE user_id = ${Number(person.id)} ORDER BY value`;
  expect(mails.map((r) => r.value)).toEqual(Array.from({ length: 8 }, (_, i) => `m${i}@race.example`));
});

test("three seats, eight concurrent creates of regular users: three created, five refused 409, never a fourth seat", async () => {
  const users = createUsersService({ db, config: config({ licenseSeats: 3 }) } as never);
  await sql`UPDATE users SET active = 0`; // the previous test's user holds no seat
  const outcomes = await race(Array.from({ length: 8 }, (_, i) => () => users.create(user(`seat${i}@race.example`))));
  expect(outcomes.filter((o) => o === "ok")).toHaveLength(3);
  expect(outcomes.filter((o) => o === 409)).toHaveLength(5);
  expect((await sql`SELECT count(*)::int AS n FROM users WHERE active = 1 AND user_type = 'regular'`)[0]!.n).toBe(3);
});

test("two free seats, reactivations racing creates: never more active regular users than seats", async () => {
  const users = createUsersService({ db, config: config({ licenseSeats: 2 }) } as never);
  await sql`UPDATE users SET active = 0`;
  const inactive = await Promise.all(Array.from({ length: 4 }, (_, i) => users.create({ ...user(`dormant${i}@race.example`), active: false })));
  const outcomes = await race([
    ...inactive.map((u) => () => users.patch(u.id, [{ op: "replace", path: "active", value: true }] as never)),
    ...Array.from({ length: 4 }, (_, i) => () => users.create(user(`fresh${i}@race.example`))),
  ]);
  expect(outcomes.filter((o) => o === "ok")).toHaveLength(2);
  expect(outcomes.filter((o) => o === 409)).toHaveLength(6);
  expect((await sql`SELECT count(*)::int AS n FROM users WHERE active = 1 AND user_type = 'regular'`)[0]!.n).toBe(2);
});

test("group displayNames: concurrent creates and renames to one name in a workspace leave one group holding it", async () => {
  const groups = createGroupService({ db, config: config() });
  const created = await race(Array.from({ length: 6 }, (_, i) => () => groups.create({ displayName: i % 2 ? "Platform" : "PLATFORM" } as never)));
  expect(created.filter((o) => o === "ok")).toHaveLength(1);
  expect(created.filter((o) => o === 400)).toHaveLength(5);
  const others = await Promise.all(["Web", "Mobile", "Data"].map((displayName) => groups.create({ displayName } as never)));
  const renamed = await race(others.map(({ id }) => () => groups.patch(id, [{ op: "replace", path: "displayName", value: "Core" }] as never)));
  expect(renamed.filter((o) => o === "ok")).toHaveLength(1);
  expect(renamed.filter((o) => o === 400)).toHaveLength(2);
  const keys = (await sql`SELECT display_name_key AS k FROM groups`).map((r) => r.k as string);
  expect(keys).toHaveLength(4);
  expect(keys.filter((k) => k === "platform")).toHaveLength(1);
  expect(keys.filter((k) => k === "core")).toHaveLength(1);
});

test("deactivation racing group adds: a deactivated user is never left a member (membership writes wait on the user key)", async () => {
  const users = createUsersService({ db, config: config() } as never);
  const groups = createGroupService({ db, config: config() });
  const group = await groups.create({ displayName: "Deactivation race" } as never);
  for (let round = 0; round < 8; round++) {
    const people = await Promise.all(Array.from({ length: 4 }, (_, i) => users.create(user(`leaver${round}-${i}@race.example`))));
    // Each person is deactivated while two group writes add them: whichever commits first, the
    // other must see it (an add after the deactivation finds an inactive user and adds nothing).
    await race(people.flatMap((p) => [
      () => users.deactivate(p.id),
      () => groups.patch(group.id, [{ op: "add", path: "members", value: [{ value: p.id }] }] as never),
      () => groups.patch(group.id, [{ op: "add", path: "members", value: [{ value: p.id }] }] as never),
    ]));
  }
  const inactiveMembers = await sql`SELECT gm.user_id FROM group_members gm JOIN users u ON u.id = gm.user_id WHERE u.active = 0`;
  expect(inactiveMembers.map((r) => r.user_id)).toEqual([]);
}, 60_000);
