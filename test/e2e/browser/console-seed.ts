/**
 * The console's test fixture: a compiled binary with an organization's worth of data, and a real
 * webhook receiver on 127.0.0.1 with one endpoint answering 200, one 500 and one 410. Everything
 * is seeded through the public APIs (SCIM with a SCIM token, /api/v1 with an API token, the admin
 * API), as an IdP, a reporter and an admin would.
 */
import { startBinary, type RunningBinary } from "../binary";
import { until } from "../../helpers";

export const ADMIN_TOKEN = "console-test-admin-token-0123456789";
const SCIM = "application/scim+json";

export type Receiver = { base: string; hits: Record<string, number>; stop(): void };

export function startReceiver(): Receiver {
  const hits: Record<string, number> = { ok: 0, fail: 0, gone: 0 };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      await req.text();
      const path = new URL(req.url).pathname.slice(1);
      hits[path] = (hits[path] ?? 0) + 1;
      if (path === "ok") return new Response('{"received":true}', { headers: { "content-type": "application/json", "x-receiver": "ok" } });
      if (path === "gone") return new Response("this hook was removed", { status: 410, headers: { "x-receiver": "gone" } });
      return new Response("receiver exploded", { status: 500, headers: { "x-receiver": "fail" } });
    },
  });
  return { base: `http://127.0.0.1:${server.port}`, hits, stop: () => server.stop(true) };
}

export type Seeded = {
  bin: RunningBinary;
  rx: Receiver;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<T>;
  /** Polls `check` until truthy (the delivery loop works in the background). */
  until<T>(check: () => Promise<T>, what: string, timeoutMs?: number): Promise<NonNullable<T>>;
  subs: { ok: number; fail: number; gone: number; projectOnly: number; disabledByAdmin: number; runs: number };
  scimToken: string;
  userIds: number[];
  groupIds: string[];
  stop(): Promise<void>;
};

export async function seedConsole(): Promise<Seeded> {
  const rx = startReceiver();
  const bin = await startBinary({
    env: {
      GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN,
      GATEHOUSE_WEBHOOK_ALLOW_PRIVATE_TARGETS: "true",
      GATEHOUSE_WEBHOOK_RETRY_SCHEDULE: "100ms,100ms",
      GATEHOUSE_WEBHOOK_POLL_INTERVAL_MS: "50",
      GATEHOUSE_LICENSE_SEATS: "100",
    },
  });
  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown) => {
    const res = await fetch(bin.url + path, { method, headers: { ...headers, ...(body === undefined ? {} : { "content-type": headers["content-type"] ?? "application/json" }) }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : null };
  };
  const admin = async (method: string, path: string, body?: unknown) => {
    const r = await call(method, "/api/admin" + path, { authorization: `Bearer ${ADMIN_TOKEN}` }, body);
    if (r.status >= 300) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  };
  // SCIM: an IdP provisions 50 users in 5 teams, trips over a duplicate, deactivates one, writes to an unknown id.
  const scimToken = (await admin("POST", "/scim-tokens", { name: "Entra ID production" })).token as string;
  await admin("POST", "/scim-tokens", { name: "Okta staging" });
  const scim = (method: string, path: string, body?: unknown) => call(method, "/scim/v2" + path, { authorization: `Bearer ${scimToken}`, accept: SCIM, "content-type": SCIM }, body);
  const first = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald", "Frances", "Ken", "Margaret", "Tim"];
  const last = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth", "Allen", "Thompson", "Hamilton", "Berners-Lee"];
  const userIds: number[] = [];
  for (let i = 0; i < 50; i++) {
    const given = first[i % 10]!;
    const family = last[Math.floor(i / 5) % 10]!;
    const userName = `${given.toLowerCase()}.${family.toLowerCase()}${i}@example.com`;
    const r = await scim("POST", "/Users", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"],
      userName,
      name: { givenName: given, familyName: family },
      emails: [{ value: userName, type: "work", primary: true }],
      userType: i % 10 === 9 ? "read-only" : i % 17 === 16 ? "billing" : "regular",
    });
    if (r.status !== 201) throw new Error(`seed user ${i}: ${r.status} ${JSON.stringify(r.body)}`);
    userIds.push(Number(r.body.id));
  }
  await scim("POST", "/Users", { schemas: ["urn:ietf:params:scim:schemas:core:2.0:User"], userName: "ada.lovelace0@example.com", name: { givenName: "Ada", familyName: "Again" } }); // duplicate → 400
  await scim("DELETE", `/Users/${userIds[49]}`);
  // A write to an id Gatehouse never gave out → 404, logged with that id.
  await scim("PATCH", "/Users/999999", { schemas: ["urn:ietf:params:scim:api:messages:2.0:PatchOp"], Operations: [{ op: "replace", path: "active", value: false }] });
  const groupIds: string[] = [];
  for (const [g, name] of ["Platform", "Mobile", "QA guild", "Payments", "Release managers"].entries()) {
    const r = await scim("POST", "/Groups", {
      schemas: ["urn:ietf:params:scim:schemas:core:2.0:Group"],
      displayName: name,
      members: userIds.slice(g * 10, g * 10 + 6).map((id) => ({ value: String(id) })),
    });
    groupIds.push(r.body.id);
  }

  // Test management: two projects and an API token attributed to a user.
  const apiToken = (await admin("POST", "/api-tokens", { name: "CI reporter", userId: userIds[1] })).token as string;
  for (const [code, title] of [["WEB", "Web app"], ["MOB", "Mobile app"]]) {
    const r = await call("POST", "/api/v1/project", { token: apiToken }, { title, code });
    if (r.status !== 200) throw new Error(`seed project ${code}: ${r.status} ${JSON.stringify(r.body)}`);
  }

  // Webhooks: six subscriptions; failed deliveries on the 500 endpoint; the 410 one disables itself.
  const sub = async (body: Record<string, unknown>) => (await admin("POST", "/webhooks", body)).id as number;
  const subs = {
    ok: await sub({ url: rx.base + "/ok", events: ["*"], description: "Audit trail" }),
    fail: await sub({ url: rx.base + "/fail", events: ["case.created", "run.completed", "defect.created"], description: "Jira bridge" }),
    gone: await sub({ url: rx.base + "/gone", events: ["*"], description: "Old Slack hook" }),
    projectOnly: await sub({ url: rx.base + "/ok?project", events: ["run.completed"], project: "WEB", description: "Web release dashboard" }),
    disabledByAdmin: await sub({ url: rx.base + "/ok?paused", events: ["suite.created"], description: "Paused integration", enabled: false }),
    runs: await sub({ url: rx.base + "/ok?runs", events: ["run.started", "run.completed", "run.aborted"], description: "Run notifications" }),
  };
  await admin("POST", `/webhooks/${subs.fail}/test`, { event: "case.created", count: 30 });
  await admin("POST", `/webhooks/${subs.fail}/test`, { event: "run.completed", count: 12 });
  await admin("POST", `/webhooks/${subs.ok}/test`, { event: "case.created", count: 5 });
  await admin("POST", `/webhooks/${subs.gone}/test`, { event: "case.deleted" });
  await until(async () => (await admin("GET", `/webhooks/${subs.fail}/deliveries?status=failed&limit=1`)).total === 42, "42 failed deliveries");
  await until(async () => (await admin("GET", `/webhooks/${subs.gone}`)).enabled === false, "the 410 subscription disabled");
  await until(async () => (await admin("GET", `/webhooks/${subs.ok}/deliveries?status=delivered&limit=1`)).total === 5, "5 delivered");

  return {
    bin,
    rx,
    admin,
    until,
    subs,
    scimToken,
    userIds,
    groupIds,
    async stop() {
      await bin.stop();
      rx.stop();
    },
  };
}
