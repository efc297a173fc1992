import { expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { createTestApp, until } from "../helpers";
import { startDeliveryLoop } from "../../src/webhooks/dispatcher";
import { startReceiver } from "./harness";

/** Subscriptions limited to a workspace; every delivery of a project's event names its workspace. */
test("a subscription limited to a workspace receives only that workspace's events; deliveries carry gatehouse-workspace and gatehouse-project", async () => {
  const t = createTestApp({ webhookAllowPrivateTargets: true, webhookPollIntervalMs: 20, webhookTimeoutMs: 2000 });
  const limitedReceiver = startReceiver();
  const allReceiver = startReceiver();
  const loop = startDeliveryLoop(t.ctx);
  try {
    const json = async (r: Response) => (await r.json()) as any;
    const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Alpha" }));
    const limited = await t.admin("POST", "/api/admin/webhooks", { url: limitedReceiver.url, events: ["*"], workspace: ws.id });
    expect(limited.status).toBe(201);
    const limitedSub = await json(limited);
    expect(limitedSub.workspace).toBe(ws.id);
    const all = await json(await t.admin("POST", "/api/admin/webhooks", { url: allReceiver.url, events: ["*"] }));
    expect(all.workspace).toBeNull();
    expect((await t.admin("POST", "/api/admin/webhooks", { url: allReceiver.url, events: ["*"], workspace: 999 })).status).toBe(400);

    const alphaToken = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "alpha", workspaceId: ws.id }))).token;
    const defaultToken = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "default" }))).token;
    const call = (token: string, path: string, body: unknown) => t.request("POST", `/api/v1${path}`, { body, headers: { token } });
    await call(alphaToken, "/project", { title: "Alpha", code: "ALP" });
    await call(defaultToken, "/project", { title: "Main", code: "MAI" });
    await call(alphaToken, "/case/ALP", { title: "alpha case" });
    await call(defaultToken, "/case/MAI", { title: "main case" });

    await allReceiver.waitFor(2);
    await limitedReceiver.waitFor(1);
    await Bun.sleep(200); // nothing more arrives at the limited one
    const titles = (r: typeof allReceiver) => r.received.map((x) => [JSON.parse(x.body).payload.title, x.headers["gatehouse-workspace"], x.headers["gatehouse-project"]]);
    expect(titles(limitedReceiver)).toEqual([["alpha case", String(ws.id), "ALP"]]);
    expect(titles(allReceiver).sort()).toEqual([["alpha case", String(ws.id), "ALP"], ["main case", "1", "MAI"]].sort());
    // the admin API's record of the attempt shows the headers as they were sent
    const logged = await json(await t.admin("GET", `/api/admin/webhooks/${limitedSub.id}/deliveries`));
    await until(async () => (await json(await t.admin("GET", `/api/admin/deliveries/${logged.items[0].id}`))).attempts.length === 1, "the attempt logged");
    const attempt = (await json(await t.admin("GET", `/api/admin/deliveries/${logged.items[0].id}`))).attempts[0];
    expect([attempt.requestHeaders["gatehouse-workspace"], attempt.requestHeaders["gatehouse-project"]]).toEqual([String(ws.id), "ALP"]);
    // a subscription names its project as typed; it is kept, answered and sent upper-case, as the project's code
    const scoped = await json(await t.admin("POST", "/api/admin/webhooks", { url: limitedReceiver.url, events: ["*"], project: "alp" }));
    expect(scoped.project).toBe("ALP");
    expect((await t.admin("POST", `/api/admin/webhooks/${scoped.id}/test`, { event: "case.created" })).status).toBe(202);
    await until(() => limitedReceiver.received.find((x) => JSON.parse(x.body).payload.title !== "alpha case"), "the test event arrived");
    expect(limitedReceiver.received.at(-1)!.headers["gatehouse-project"]).toBe("ALP");
    // the signature still verifies: the headers are not part of what is signed
    const verifier = new Webhook(limitedSub.secret);
    expect(() => verifier.verify(limitedReceiver.received[0]!.body, limitedReceiver.received[0]!.headers)).not.toThrow();
  } finally {
    await loop.stop();
    limitedReceiver.stop();
    allReceiver.stop();
    t.close();
  }
});

test("a subscription's project is a project code, and a project of another workspace than the subscription's is refused", async () => {
  const t = createTestApp({ webhookAllowPrivateTargets: true });
  try {
    const json = async (r: Response) => (await r.json()) as any;
    const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Alpha" }));
    const alphaToken = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "alpha", workspaceId: ws.id }))).token;
    expect((await t.request("POST", "/api/v1/project", { body: { title: "A", code: "ALP" }, headers: { token: alphaToken } })).status).toBe(200);
    const subscribe = (body: object) => t.admin("POST", "/api/admin/webhooks", { url: "http://127.0.0.1:9/x", events: ["*"], ...body });
    for (const project of ["abc\r\nX-Injected: yes", "ÄÖÜ✓", "A", "1ABC", "has space"]) {
      const r = await subscribe({ project });
      expect(r.status).toBe(400);
      expect((await json(r)).error.field).toBe("project");
    }
    expect((await subscribe({ project: "alp", workspace: 1 })).status).toBe(400); // ALP is Alpha's
    const ok = await json(await subscribe({ project: "alp", workspace: ws.id }));
    expect(ok.project).toBe("ALP");
    expect((await subscribe({ project: "LATER" })).status).toBe(201); // a project to come
    // a PATCH is held to the same rule, for the project and the workspace alike
    expect((await t.admin("PATCH", `/api/admin/webhooks/${ok.id}`, { project: "x\ny" })).status).toBe(400);
    expect((await t.admin("PATCH", `/api/admin/webhooks/${ok.id}`, { workspace: 1 })).status).toBe(400);
    expect((await json(await t.admin("GET", `/api/admin/webhooks/${ok.id}`)))).toMatchObject({ project: "ALP", workspace: ws.id });
  } finally {
    t.close();
  }
});
