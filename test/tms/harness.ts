import { createTestApp } from "../helpers";
import { webhookEvents } from "../../src/webhooks/tables";
import { gt } from "drizzle-orm";

export type Envelope = { event: string; timestamp: number; payload: any };

/**
 * A Gatehouse test app with an API token and a way to observe the webhook envelopes its changes
 * produce. `api()` calls /api/v1 (or /api/v2) with the `Token` header and returns status + JSON.
 */
export async function tmsHarness() {
  const t = createTestApp({ webhookAllowPrivateTargets: true });
  const created = (await (await t.admin("POST", "/api/admin/api-tokens", { name: "tests" })).json()) as { token: string };
  const token = created.token;
  let seen = 0;
  const received: Envelope[] = [];
  /** Names of every event taken by expectEvent (the 29-events test checks it covers the catalog). */
  const observed = new Set<string>();

  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const prefixed = path.startsWith("/api/") ? path : `/api/v1${path}`;
    const r = await t.request(method, prefixed, { body, headers: { token } });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }

  /** Reads envelopes published since the last read. */
  function drain() {
    const rows = t.ctx.db.select().from(webhookEvents).where(gt(webhookEvents.id, seen)).orderBy(webhookEvents.id).all();
    for (const r of rows) {
      seen = r.id;
      received.push({ event: r.name, timestamp: Math.floor(r.createdAt / 1000), payload: JSON.parse(r.payload) });
    }
  }

  /** Waits for the next envelope of `event` matching `where` (payload subset), removing it from the inbox. */
  async function expectEvent(event: string, where: (p: any) => boolean = () => true, timeoutMs = 5000): Promise<Envelope> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      drain();
      const i = received.findIndex((e) => e.event === event && where(e.payload));
      if (i >= 0) {
        observed.add(event);
        return received.splice(i, 1)[0]!;
      }
      if (Date.now() > until) throw new Error(`no ${event} received; got ${received.map((e) => e.event).join(", ") || "nothing"}`);
      await Bun.sleep(10);
    }
  }

  /** Everything received so far (and not yet taken by expectEvent). */
  function inbox(): Envelope[] {
    drain();
    return received;
  }

  /** Forgets everything received so far. */
  async function clear() {
    drain();
    received.length = 0;
  }

  return {
    t, token, api, expectEvent, inbox, clear, observed,
    async close() {
      t.close();
    },
  };
}

export type Harness = Awaited<ReturnType<typeof tmsHarness>>;

/** Asserts the spec §6.1 envelope shape. */
export function isEnvelope(e: Envelope): boolean {
  return Object.keys(e).sort().join(",") === "event,payload,timestamp" && Number.isInteger(e.timestamp) && Math.abs(e.timestamp - Date.now() / 1000) < 120 && typeof e.payload === "object";
}
