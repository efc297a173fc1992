/**
 * Random interleavings (seeded, so a failure replays) of user deactivation/reactivation and
 * group PATCH/PUT. Invariants after every step: no deactivated user is in any group, no
 * membership row points at nothing, `PRAGMA foreign_key_check` is empty — and, when requests run
 * one at a time, the member lists equal a simple model of the rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createScimTestApp, json, newUser } from "./helpers";
import { sql } from "drizzle-orm";
import { rowsOf } from "../../src/db/statement";

const GROUP_URN = "urn:ietf:params:scim:schemas:core:2.0:Group";
const PATCH_URN = "urn:ietf:params:scim:api:messages:2.0:PatchOp";

/** mulberry32: a tiny deterministic PRNG. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const t = await createScimTestApp();
afterAll(() => t.close());

const USERS = 12;
const GROUPS = 4;
let userIds: number[] = [];
let groupIds: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < USERS; i++) userIds.push(Number((await json(await t.scim("POST", "/Users", newUser(`c${i}@example.com`)))).id));
  for (let i = 0; i < GROUPS; i++) groupIds.push((await json(await t.scim("POST", "/Groups", { schemas: [GROUP_URN], displayName: `C${i}` }))).id);
});

async function assertInvariants(context: string) {
  const inactiveMembers = await rowsOf(t.ctx.db, sql`SELECT gm.group_id, gm.user_id FROM group_members gm JOIN users u ON u.id = gm.user_id WHERE u.active = 0`);
  const dangling = await rowsOf(
    t.ctx.db,
    sql`SELECT gm.group_id, gm.user_id FROM group_members gm LEFT JOIN users u ON u.id = gm.user_id LEFT JOIN groups g ON g.id = gm.group_id WHERE u.id IS NULL OR g.id IS NULL`,
  );
  // SQLite checks foreign keys only when asked; PostgreSQL's are always enforced.
  const fk = t.ctx.sqlite ? t.ctx.sqlite.query("PRAGMA foreign_key_check").all() : [];
  if (inactiveMembers.length || dangling.length || fk.length)
    throw new Error(`${context}: inactive=${JSON.stringify(inactiveMembers)} dangling=${JSON.stringify(dangling)} fk=${JSON.stringify(fk)}`);
}

type Step = { describe: string; run: () => Promise<Response>; model: (m: Model) => void };
type Model = { active: Map<number, boolean>; members: Map<string, Set<number>> };

function randomStep(rand: () => number): Step {
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const subset = () => userIds.filter(() => rand() < 0.35);
  const asMembers = (ids: number[]) => ids.map((id) => ({ value: rand() < 0.5 ? String(id) : id }));
  const roll = rand();
  if (roll < 0.15) {
    const u = pick(userIds);
    return {
      describe: `DELETE /Users/${u}`,
      run: () => t.scim("DELETE", `/Users/${u}`),
      model: (m) => deactivate(m, u),
    };
  }
  if (roll < 0.3) {
    const u = pick(userIds);
    return {
      describe: `PATCH /Users/${u} active false`,
      run: () => t.scim("PATCH", `/Users/${u}`, { schemas: [PATCH_URN], Operations: [{ op: "replace", path: "active", value: false }] }),
      model: (m) => deactivate(m, u),
    };
  }
  if (roll < 0.45) {
    const u = pick(userIds);
    return {
      describe: `PATCH /Users/${u} active true`,
      run: () => t.scim("PATCH", `/Users/${u}`, { schemas: [PATCH_URN], Operations: [{ op: "Replace", value: { active: "True" } }] }),
      model: (m) => void m.active.set(u, true),
    };
  }
  const g = pick(groupIds);
  const ids = subset();
  const activeOnly = (m: Model) => ids.filter((id) => m.active.get(id));
  if (roll < 0.6)
    return {
      describe: `PATCH add ${ids}`,
      run: () => t.scim("PATCH", `/Groups/${g}`, { schemas: [PATCH_URN], Operations: [{ op: "Add", path: "members", value: asMembers(ids) }] }),
      model: (m) => activeOnly(m).forEach((id) => m.members.get(g)!.add(id)),
    };
  if (roll < 0.7)
    return {
      describe: `PATCH remove ${ids}`,
      run: () => t.scim("PATCH", `/Groups/${g}`, { schemas: [PATCH_URN], Operations: [{ op: "Remove", path: "members", value: asMembers(ids) }] }),
      model: (m) => ids.forEach((id) => m.members.get(g)!.delete(id)),
    };
  if (roll < 0.8) {
    const u = pick(userIds);
    return {
      describe: `PATCH remove members[value eq ${u}]`,
      run: () => t.scim("PATCH", `/Groups/${g}`, { schemas: [PATCH_URN], Operations: [{ op: "remove", path: `members[value eq "${u}"]` }] }),
      model: (m) => void m.members.get(g)!.delete(u),
    };
  }
  if (roll < 0.9)
    return {
      describe: `PATCH replace members ${ids}`,
      run: () => t.scim("PATCH", `/Groups/${g}`, { schemas: [PATCH_URN], Operations: [{ op: "replace", path: "members", value: asMembers(ids) }] }),
      model: (m) => void m.members.set(g, new Set(activeOnly(m))),
    };
  return {
    describe: `PUT ${ids}`,
    run: () => t.scim("PUT", `/Groups/${g}`, { schemas: [GROUP_URN], displayName: `C${groupIds.indexOf(g)}`, members: asMembers(ids) }),
    model: (m) => void m.members.set(g, new Set(activeOnly(m))),
  };
}

function deactivate(m: Model, u: number) {
  m.active.set(u, false);
  for (const s of m.members.values()) s.delete(u);
}

async function readModel(): Promise<Model> {
  const active = new Map<number, boolean>();
  for (const u of userIds) active.set(u, (await json(await t.scim("GET", `/Users/${u}`))).active);
  const members = new Map<string, Set<number>>();
  for (const g of groupIds) members.set(g, new Set((await json(await t.scim("GET", `/Groups/${g}`))).members.map((x: any) => x.value)));
  return { active, members };
}

describe("membership consistency under random interleavings", () => {
  test("sequential: every step matches the model and keeps the invariants", async () => {
    const rand = prng(20261122);
    const model = await readModel();
    for (let i = 0; i < 250; i++) {
      const step = randomStep(rand);
      const r = await step.run();
      if (r.status !== 200 && r.status !== 204) throw new Error(`step ${i} ${step.describe}: ${r.status} ${await r.text()}`);
      step.model(model);
      await assertInvariants(`step ${i} ${step.describe}`);
    }
    const actual = await readModel();
    expect(actual.active).toEqual(model.active);
    for (const g of groupIds) expect([...actual.members.get(g)!].sort((a, b) => a - b)).toEqual([...model.members.get(g)!].sort((a, b) => a - b));
    }, 60_000); // 250 requests, each followed by the invariant queries: seconds on PostgreSQL under load

  test("concurrent batches: requests in flight together never break the invariants", async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const rand = prng(seed);
      for (let batch = 0; batch < 8; batch++) {
        const steps = Array.from({ length: 8 }, () => randomStep(rand));
        const results = await Promise.all(steps.map((s) => s.run()));
        for (const [i, r] of results.entries()) if (r.status !== 200 && r.status !== 204) throw new Error(`${steps[i]!.describe}: ${r.status} ${await r.text()}`);
        await assertInvariants(`seed ${seed} batch ${batch}`);
      }
      // Every member a group reports is an active user, seen through the API too.
      const model = await readModel();
      for (const members of model.members.values()) for (const u of members) expect(model.active.get(u)).toBe(true);
    }
    }, 60_000);
});
