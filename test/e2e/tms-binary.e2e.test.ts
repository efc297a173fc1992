import { afterAll, beforeAll, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { startBinary, type RunningBinary } from "./binary";

/** The shipped executable: a reporter-style session over HTTP ends in a signed run.completed delivery. */
const ADMIN = "tms-e2e-admin-token";
let bin: RunningBinary;
const received: { event: string; payload: any }[] = [];
let verifier: Webhook;
const receiver = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = await req.text();
    verifier.verify(body, Object.fromEntries(req.headers));
    received.push(JSON.parse(body));
    return new Response("ok");
  },
});

beforeAll(async () => {
  bin = await startBinary({ env: { GATEHOUSE_ADMIN_TOKEN: ADMIN, GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true" } });
}, 120_000);
afterAll(async () => {
  receiver.stop(true);
  if (bin && bin.proc.exitCode === null) await bin.stop();
});

test("compiled binary: token, project, cases, run, v2 results, complete → run.completed delivered and signed", async () => {
  const admin = async (path: string, body: unknown) =>
    (await fetch(`${bin.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<any>;
  const { token } = await admin("/api/admin/api-tokens", { name: "reporter" });
  verifier = new Webhook((await admin("/api/admin/webhooks", { url: `http://127.0.0.1:${receiver.port}/hook`, events: ["run.started", "run.completed"] })).secret);
  const api = async (path: string, body?: unknown) => {
    const r = await fetch(`${bin.url}${path}`, { method: "POST", headers: { token, "content-type": "application/json" }, body: JSON.stringify(body ?? {}) });
    expect(r.status).toBe(200);
    return ((await r.json()) as any).result;
  };
  await api("/api/v1/project", { title: "E2E", code: "E2E" });
  const ids = (await api("/api/v1/case/E2E/bulk", { cases: [{ title: "a" }, { title: "b" }, { title: "c" }] })).ids as number[];
  const run = (await api("/api/v1/run/E2E", { title: "CI", cases: ids, environment_slug: "ci" })).id;
  await api(`/api/v2/E2E/run/${run}/results`, {
    results: [
      { title: "a", testops_id: ids[0], execution: { status: "passed", duration: 5 } },
      { title: "b", testops_id: ids[1], execution: { status: "failed", duration: 7 } },
      { title: "b", testops_id: ids[1], execution: { status: "passed", duration: 6 } },
    ],
  });
  await api(`/api/v1/run/E2E/${run}/complete`);
  const deadline = Date.now() + 10_000;
  while (!received.some((e) => e.event === "run.completed") && Date.now() < deadline) await Bun.sleep(10);
  expect(received.find((e) => e.event === "run.started")?.payload).toEqual({ id: run, title: "CI", description: "", plan_id: null, cases_count: 3, environment: "ci" });
  const done = received.find((e) => e.event === "run.completed")!;
  expect(done.payload).toEqual({ id: run, cases: 3, passed: 2, failed: 0, blocked: 0, duration: done.payload.duration });
}, 60_000);

test("compiled binary: custom fields are per workspace — another workspace's token gets 404, and its workspace-limited subscription gets the event", async () => {
  const admin = async (path: string, body: unknown) =>
    (await fetch(`${bin.url}${path}`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify(body) })).json() as Promise<any>;
  const ws = (await admin("/api/admin/workspaces", { name: "E2E other" })).id as number;
  const [mine, theirs] = [(await admin("/api/admin/api-tokens", { name: "main" })).token, (await admin("/api/admin/api-tokens", { name: "other", workspaceId: ws })).token];
  const deliveries: { headers: Record<string, string>; body: any }[] = [];
  const wsReceiver = Bun.serve({ hostname: "127.0.0.1", port: 0, async fetch(req) {
    deliveries.push({ headers: Object.fromEntries(req.headers), body: JSON.parse(await req.text()) });
    return new Response("ok");
  } });
  try {
    await admin("/api/admin/webhooks", { url: `http://127.0.0.1:${wsReceiver.port}/hook`, events: ["custom_field.created"], workspace: ws });
    const call = (token: string, method: string, path: string, body?: unknown) =>
      fetch(`${bin.url}/api/v1${path}`, { method, headers: { token, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    const created = await call(theirs, "POST", "/custom_field", { title: "Other's", entity: 0, type: 1 });
    expect(created.status).toBe(200);
    const id = ((await created.json()) as any).result.id as number;
    expect((await call(theirs, "GET", `/custom_field/${id}`)).status).toBe(200);
    for (const method of ["GET", "PATCH", "DELETE"]) expect(`${method} ${(await call(mine, method, `/custom_field/${id}`, method === "PATCH" ? { title: "x" } : undefined)).status}`).toBe(`${method} 404`);
    expect(((await (await call(mine, "GET", "/custom_field")).json()) as any).result.total).toBe(0);
    const deadline = Date.now() + 10_000;
    while (deliveries.length === 0 && Date.now() < deadline) await Bun.sleep(10);
    expect(deliveries.map((d) => [d.body.event, d.body.payload.id, d.headers["gatehouse-workspace"]])).toEqual([["custom_field.created", id, String(ws)]]);
  } finally {
    wsReceiver.stop(true);
  }
}, 60_000);
