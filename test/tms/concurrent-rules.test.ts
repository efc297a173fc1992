import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, count, eq } from "drizzle-orm";
import { first } from "../../src/db/transaction";
import { webhookEvents } from "../../src/webhooks/tables";
import { tmsHarness, type Harness } from "./harness";

// Rules a write checks before it writes, sent at the same time: each holds by a constraint, a
// row update or the transaction's serialization key, on either engine (on PostgreSQL these
// transactions really overlap). No request fails with a 500.
let h: Harness;
beforeAll(async () => {
  h = await tmsHarness();
  await h.api("POST", "/project", { title: "Concurrent", code: "CON" });
});
afterAll(() => h.close());

const at = <T>(n: number, send: (i: number) => Promise<T>) => Promise.all(Array.from({ length: n }, (_, i) => send(i)));
const events = async (name: string) =>
  (await first(h.t.ctx.db.select({ n: count() }).from(webhookEvents).where(and(eq(webhookEvents.name, name), eq(webhookEvents.projectCode, "CON")))))!.n;

test("a project code is taken once: one 200, the others 409", async () => {
  const answers = await at(6, () => h.api("POST", "/project", { title: "Twice", code: "TWICE" }));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
});

test("a run is completed once: every request answers 200, run.completed is sent once; an abort after it is a 409", async () => {
  const c = (await h.api("POST", "/case/CON", { title: "c" })).body.result.id;
  const run = (await h.api("POST", "/run/CON", { title: "r", cases: [c] })).body.result.id;
  const answers = await at(6, () => h.api("POST", `/run/CON/${run}/complete`));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200]);
  expect(await events("run.completed")).toBe(1);
  expect((await h.api("POST", `/run/CON/${run}/abort`)).status).toBe(409);
});

test("a defect is resolved once: one 200, the others 409, defect.resolved sent once", async () => {
  const d = (await h.api("POST", "/defect/CON", { title: "d", actual_result: "boom" })).body.result.id;
  const answers = await at(6, () => h.api("PATCH", `/defect/CON/resolve/${d}`));
  expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409, 409]);
  expect(await events("defect.resolved")).toBe(1);
});

test("the same v2 batch sent at once stores each result once, and batches into other runs create each new case once", async () => {
  const runs = await at(4, async (i) => (await h.api("POST", "/run/CON", { title: `reporter ${i}` })).body.result.id as number);
  const batch = { results: [{ id: "r-1", title: "found or created once", execution: { status: "passed" } }, { id: "r-2", title: "another", execution: { status: "failed" } }] };
  // Each run gets the batch twice (a retry); all eight requests at once.
  const answers = await at(8, (i) => h.api("POST", `/api/v2/CON/run/${runs[i % 4]}/results`, batch));
  expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200, 200, 200, 200]);
  for (const run of runs) expect((await h.api("GET", `/result/CON?run=${run}&limit=100`)).body.result.filtered).toBe(2);
  const cases = await h.api("GET", "/case/CON?search=found%20or%20created&limit=100");
  expect(cases.body.result.entities.map((x: { title: string }) => x.title)).toEqual(["found or created once"]);
});
