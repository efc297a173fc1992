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
    // a workspace with no project yet can be subscribed to: its projects to come are in it
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

test("a subscription's project is a project code of an existing project of the subscription's workspace", async () => {
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
    // a project no one has created (yet) is refused, with or without a workspace: subscribe to the workspace instead
    for (const body of [{ project: "LATER" }, { project: "later", workspace: ws.id }]) {
      const r = await subscribe(body);
      expect(r.status).toBe(400);
      const { error } = await json(r);
      expect(error.field).toBe("project");
      expect(error.message).toContain("there is no project LATER");
    }
    expect((await json(await subscribe({ project: "alp" }))).project).toBe("ALP"); // every workspace: any existing project
    // a PATCH is held to the same rule, for the project and the workspace alike
    for (const patch of [{ project: "x\ny" }, { project: "LATER" }, { workspace: 1 }]) {
      const r = await t.admin("PATCH", `/api/admin/webhooks/${ok.id}`, patch);
      expect(r.status).toBe(400);
      expect((await json(r)).error.field).toBe("project");
    }
    expect((await json(await t.admin("GET", `/api/admin/webhooks/${ok.id}`)))).toMatchObject({ project: "ALP", workspace: ws.id });
  } finally {
    t.close();
  }
});

test("deleting a project disables the subscriptions limited to it; a later project under its code inherits none; re-enabling needs an existing project", async () => {
  const t = createTestApp({ webhookAllowPrivateTargets: true });
  try {
    const json = async (r: Response) => (await r.json()) as any;
    const ws = await json(await t.admin("POST", "/api/admin/workspaces", { name: "Alpha" }));
    const alphaToken = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "alpha", workspaceId: ws.id }))).token;
    const defaultToken = (await json(await t.admin("POST", "/api/admin/api-tokens", { name: "default" }))).token;
    const v1 = (token: string, method: string, path: string, body?: unknown) => t.request(method, `/api/v1${path}`, { body, headers: { token } });
    expect((await v1(alphaToken, "POST", "/project", { title: "Alpha", code: "ALP" })).status).toBe(200);
    expect((await v1(defaultToken, "POST", "/project", { title: "Main", code: "MAI" })).status).toBe(200);
    const subscribe = async (body: object) => (await json(await t.admin("POST", "/api/admin/webhooks", { url: "http://127.0.0.1:9/x", events: ["*"], ...body }))).id as number;
    const subs = {
      alpInAlpha: await subscribe({ project: "ALP", workspace: ws.id }),
      alpAnywhere: await subscribe({ project: "ALP" }),
      alpha: await subscribe({ workspace: ws.id }),
      main: await subscribe({ project: "MAI" }),
      all: await subscribe({}),
    };
    const get = async (id: number) => json(await t.admin("GET", `/api/admin/webhooks/${id}`));
    const deliveries = async (id: number) => (await json(await t.admin("GET", `/api/admin/webhooks/${id}/deliveries`))).total as number;

    expect((await v1(alphaToken, "DELETE", "/project/ALP")).status).toBe(200);
    for (const id of [subs.alpInAlpha, subs.alpAnywhere]) expect(await get(id)).toMatchObject({ project: "ALP", enabled: false, disabledReason: "Project ALP was deleted" });
    for (const id of [subs.alpha, subs.main, subs.all]) expect(await get(id)).toMatchObject({ enabled: true, disabledReason: null });

    // re-enabling is refused while the project is missing; other changes are not
    const reenable = await t.admin("PATCH", `/api/admin/webhooks/${subs.alpAnywhere}`, { enabled: true });
    expect(reenable.status).toBe(400);
    expect((await json(reenable)).error).toMatchObject({ field: "project", message: expect.stringContaining("there is no project ALP") });
    expect((await t.admin("PATCH", `/api/admin/webhooks/${subs.alpInAlpha}`, { description: "old Alpha project" })).status).toBe(200);
    expect((await get(subs.alpInAlpha)).enabled).toBe(false);

    // the code is free again: another workspace's new ALP sends nothing to the old subscriptions
    expect((await v1(defaultToken, "POST", "/project", { title: "Another", code: "ALP" })).status).toBe(200);
    expect((await v1(defaultToken, "POST", "/case/ALP", { title: "a case of the new ALP" })).status).toBe(200);
    expect(await deliveries(subs.all)).toBe(1);
    for (const id of [subs.alpInAlpha, subs.alpAnywhere, subs.alpha, subs.main]) expect(await deliveries(id)).toBe(0);
    // ALP now belongs to the default workspace, not to this subscription's; pointed at the whole workspace it runs again
    expect((await t.admin("PATCH", `/api/admin/webhooks/${subs.alpInAlpha}`, { enabled: true })).status).toBe(400);
    expect(await json(await t.admin("PATCH", `/api/admin/webhooks/${subs.alpInAlpha}`, { project: null, enabled: true }))).toMatchObject({ project: null, workspace: ws.id, enabled: true, disabledReason: null });
  } finally {
    t.close();
  }
});
