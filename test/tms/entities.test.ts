import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { webhookDeliveries } from "../../src/webhooks/tables";
import { tmsHarness, type Harness } from "./harness";

let h: Harness;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Entities", code: "ENT" });
});
afterAll(() => h.close());

const ok = async (method: string, path: string, body?: unknown) => {
  const r = await h.api(method, path, body);
  if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
  return r.body.result;
};

test("project codes are unique (case-insensitive) and read back upper-case with counts", async () => {
  const dup = await h.api("POST", "/project", { title: "Again", code: "ent" });
  expect(dup.status).toBe(409);
  expect(dup.body.error.field).toBe("code");
  const p = await ok("GET", "/project/ent");
  expect(p).toMatchObject({ code: "ENT", title: "Entities", counts: { cases: 0, runs: { total: 0, active: 0 }, defects: { total: 0, open: 0 } } });
});

test("deleting a suite with destination_id moves its cases there instead of deleting them", async () => {
  const from = (await ok("POST", "/suite/ENT", { title: "Old" })).id;
  const sub = (await ok("POST", "/suite/ENT", { title: "Old child", parent_id: from })).id;
  const to = (await ok("POST", "/suite/ENT", { title: "New" })).id;
  const c1 = (await ok("POST", "/case/ENT", { title: "keep me", suite_id: from })).id;
  const c2 = (await ok("POST", "/case/ENT", { title: "keep me too", suite_id: sub })).id;
  await h.clear();
  await ok("DELETE", `/suite/ENT/${from}`, { destination_id: to });
  await h.expectEvent("suite.deleted", (p) => p.id === from);
  await h.expectEvent("suite.deleted", (p) => p.id === sub);
  expect((await ok("GET", `/case/ENT/${c1}`)).suite_id).toBe(to);
  expect((await ok("GET", `/case/ENT/${c2}`)).suite_id).toBe(to);
  expect((await h.inbox()).filter((e) => e.event === "case.deleted")).toEqual([]);
  expect((await h.api("GET", `/suite/ENT/${from}`)).status).toBe(404);
});

test("deleting a milestone keeps its cases with milestone_id null", async () => {
  const m = (await ok("POST", "/milestone/ENT", { title: "Gone soon", due_date: 1795338942 })).id;
  expect((await ok("GET", `/milestone/ENT/${m}`)).due_date).toMatch(/^2026-11-22T/);
  const c = (await ok("POST", "/case/ENT", { title: "in milestone", milestone_id: m })).id;
  await ok("DELETE", `/milestone/ENT/${m}`);
  expect((await ok("GET", `/case/ENT/${c}`)).milestone_id).toBeNull();
});

test("a v1 result naming its case by title finds or creates the case", async () => {
  const run = (await ok("POST", "/run/ENT", { title: "by title" })).id;
  const r1 = await ok("POST", `/result/ENT/${run}`, { status: "passed", case: { title: "Created by a result" } });
  const created = await h.expectEvent("case.created", (p) => p.title === "Created by a result");
  expect(r1.case_id).toBe(created.payload.id);
  const r2 = await ok("POST", `/result/ENT/${run}`, { status: "failed", case: { title: "Created by a result" } });
  expect(r2.case_id).toBe(created.payload.id);
  const noCase = await h.api("POST", `/result/ENT/${run}`, { status: "passed" });
  expect([noCase.status, noCase.body.error.field]).toEqual([400, "case_id"]);
});

test("a case step referencing a shared step copies its text and keeps its hash", async () => {
  const { hash } = await ok("POST", "/shared_step/ENT", { title: "Login", action: "Sign in", expected_result: "Signed in", data: "alice" });
  const c = (await ok("POST", "/case/ENT", { title: "uses shared", steps: [{ shared: hash }, { action: "Then this" }] })).id;
  const got = await ok("GET", `/case/ENT/${c}`);
  expect(got.steps[0]).toMatchObject({ position: 1, action: "Sign in", expected_result: "Signed in", data: "alice", shared_hash: hash });
  expect(got.steps[1]).toMatchObject({ position: 2, action: "Then this", shared_hash: null });
  expect((await ok("GET", `/shared_step/ENT/${hash}`)).title).toBe("Login");
});

test("a subscription scoped to another project receives none of this project's events", async () => {
  const got: string[] = [];
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: async (r) => (got.push(((await r.json()) as any).event), new Response("ok")) });
  try {
    await ok("POST", "/project", { title: "Elsewhere", code: "ELSE" });
    const sub = await h.t.admin("POST", "/api/admin/webhooks", { url: `http://127.0.0.1:${server.port}/`, events: ["*"], project: "ELSE" });
    expect(sub.status).toBe(201);
    const subId = ((await sub.json()) as { id: number }).id;
    await ok("POST", "/case/ENT", { title: "not for ELSE" });
    await ok("POST", "/case/ELSE", { title: "for ELSE" });
    await h.settle();
    const deadline = Date.now() + 5000;
    while (!got.includes("case.created") && Date.now() < deadline) await Bun.sleep(10);
    expect(got).toEqual(["case.created"]);
    // Deterministic: the outbox holds exactly one delivery for the scoped subscription.
    expect((await h.t.ctx.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.subscriptionId, subId))).length).toBe(1);
  } finally {
    server.stop(true);
  }
});

test("a case bulk places its cases after the suite's last case, in body order, per suite; case.created carries each position", async () => {
  const a = (await ok("POST", "/suite/ENT", { title: "Bulk A" })).id;
  const b = (await ok("POST", "/suite/ENT", { title: "Bulk B" })).id;
  const first = (await ok("POST", "/case/ENT", { title: "already in A", suite_id: a })).id;
  await h.clear();
  const { ids } = await ok("POST", "/case/ENT/bulk", { cases: [
    { title: "a1", suite_id: a }, { title: "b1", suite_id: b }, { title: "a2", suite_id: a }, { title: "b2", suite_id: b }, { title: "a3", suite_id: a },
  ] });
  const positions = await Promise.all([first, ...ids].map(async (id: number) => (await ok("GET", `/case/ENT/${id}`)).position));
  expect(positions).toEqual([1, 2, 1, 3, 2, 4]);
  for (const [i, id] of ids.entries()) await h.expectEvent("case.created", (p) => p.id === id && p.position === positions[i + 1]);
});
