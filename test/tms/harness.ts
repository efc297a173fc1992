import { Configuration } from "qase-api-client";
import { Webhook } from "standardwebhooks";
import { count } from "drizzle-orm";
import { createTestApp } from "../helpers";
import { startDeliveryLoop } from "../../src/webhooks/dispatcher";
import { webhookEvents } from "../../src/webhooks/tables";
import { startReceiver } from "../webhooks/harness";
import { first } from "../../src/db/transaction";

export type Envelope = { event: string; timestamp: number; payload: any };

/**
 * A Gatehouse test app with an API token, a webhook subscriber (Bun.serve on 127.0.0.1)
 * subscribed to every event through the admin API, and the real delivery loop running.
 * `api()` calls /api/v1 (or /api/v2) with the `Token` header; `expectEvent()` waits for an
 * envelope the subscriber actually received (signature verified with `standardwebhooks`).
 */
/** `sqlite`: on SQLite whatever the run's engine (see openTestDatabase). */
export async function tmsHarness(opts: { sqlite?: boolean } = {}) {
  const t = createTestApp({ webhookAllowPrivateTargets: true, webhookPollIntervalMs: 20, webhookTimeoutMs: 2000 }, opts);
  const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "tests" })).json()) as { token: string }).token;

  const received: Envelope[] = [];
  let receivedTotal = 0;
  let verifier: Webhook | null = null;
  const rejected: string[] = [];
  // The webhook tests' receiver, with a handler that verifies every signature as a subscriber would.
  const receiver = startReceiver((_req, rec) => {
    try {
      verifier!.verify(rec.body, rec.headers);
    } catch (e) {
      rejected.push(String(e));
      return new Response("bad signature", { status: 400 });
    }
    received.push(JSON.parse(rec.body) as Envelope);
    receivedTotal++;
    return new Response("ok");
  });
  const sub = await t.admin("POST", "/api/admin/webhooks", { url: receiver.url, events: ["*"], description: "tms tests" });
  if (sub.status !== 201) throw new Error(`subscription: ${sub.status} ${await sub.text()}`);
  verifier = new Webhook(((await sub.json()) as { secret: string }).secret);
  const loop = startDeliveryLoop(t.ctx);

  /** Names of every event taken by expectEvent (the 29-events test checks it covers the catalog). */
  const observed = new Set<string>();

  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const prefixed = path.startsWith("/api/") ? path : `/api/v1${path}`;
    const r = await t.request(method, prefixed, { body, headers: { token } });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  /** Waits until every event published so far has reached the subscriber. */
  async function settle(timeoutMs = 10_000) {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const published = (await first(t.ctx.db.select({ n: count() }).from(webhookEvents)))!.n;
      if (receivedTotal >= published) return;
      if (rejected.length) throw new Error(`subscriber rejected deliveries: ${rejected.join("; ")}`);
      if (Date.now() > until) throw new Error(`only ${receivedTotal} of ${published} events delivered`);
      await Bun.sleep(5);
    }
  }

  /** Waits for a delivered envelope of `event` whose payload satisfies `where`, and takes it from the inbox. */
  async function expectEvent(event: string, where: (p: any) => boolean = () => true, timeoutMs = 10_000): Promise<Envelope> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const i = received.findIndex((e) => e.event === event && where(e.payload));
      if (i >= 0) {
        observed.add(event);
        return received.splice(i, 1)[0]!;
      }
      if (rejected.length) throw new Error(`subscriber rejected deliveries: ${rejected.join("; ")}`);
      if (Date.now() > until) throw new Error(`no ${event} delivered; inbox: ${received.map((e) => e.event).join(", ") || "empty"}`);
      await Bun.sleep(5);
    }
  }

  /** Everything delivered so far and not yet taken by expectEvent (after all published events arrived). */
  async function inbox(): Promise<Envelope[]> {
    await settle();
    return received;
  }

  /** Lets every published event arrive, then forgets them. */
  async function clear() {
    await settle();
    received.length = 0;
  }

  return {
    t, token, api, expectEvent, inbox, clear, settle, observed,
    get receivedTotal() {
      return receivedTotal;
    },
    async close() {
      await loop.stop();
      receiver.stop();
      t.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof tmsHarness>>;

/** The spec §6.1 envelope: exactly event, timestamp (Unix seconds, integer) and payload (object). */
export function isEnvelope(e: Envelope): boolean {
  return Object.keys(e).sort().join(",") === "event,payload,timestamp" && Number.isInteger(e.timestamp) && Math.abs(e.timestamp - Date.now() / 1000) < 120 && typeof e.payload === "object" && e.payload !== null;
}

/**
 * The harness's app on a real 127.0.0.1 port for the official Qase clients (they speak HTTP):
 * `origin` is its address, `v1` a `qase-api-client` configuration with the harness's token.
 */
export async function qaseClientHarness() {
  const h = await tmsHarness();
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => h.t.app.handle(req) });
  const origin = `http://127.0.0.1:${server.port}`;
  const close = async () => {
    server.stop(true);
    await h.close();
  };
  return { h, origin, v1: new Configuration({ apiKey: h.token, basePath: `${origin}/api/v1` }), close };
}
