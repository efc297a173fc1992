import type { Config } from "../../src/config";
import { startDeliveryLoop } from "../../src/webhooks/dispatcher";
import { publish } from "../../src/webhooks/publish";
import { writeTransaction } from "../../src/db/transaction";
import { afterEach } from "bun:test";
import { createTestApp, until } from "../helpers";

/** A webhook subscriber on 127.0.0.1: records every request; its answer is swappable per test. */
export type Received = { path: string; headers: Record<string, string>; body: string; at: number };
export type Handler = (req: Request, rec: Received, n: number) => Response | Promise<Response>;

export function startReceiver(handler: Handler = () => new Response("ok")) {
  const received: Received[] = [];
  let current = handler;
  let inFlight = 0;
  let maxInFlight = 0;
  /** Requests open at once, per path (a subscription each, when several share the receiver). */
  const openByPath = new Map<string, number>();
  const maxInFlightByPath = new Map<string, number>();
  const waiters = new Set<() => void>();
  const hung = new Set<() => void>();
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 30,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      const rec: Received = { path, headers: Object.fromEntries(req.headers), body: await req.text(), at: Date.now() };
      received.push(rec);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      openByPath.set(path, (openByPath.get(path) ?? 0) + 1);
      maxInFlightByPath.set(path, Math.max(maxInFlightByPath.get(path) ?? 0, openByPath.get(path)!));
      for (const w of waiters) w();
      try {
        return await current(req, rec, received.length);
      } finally {
        inFlight--;
        openByPath.set(path, openByPath.get(path)! - 1);
      }
    },
  });
  const base = `http://127.0.0.1:${server.port}`;
  return {
    url: `${base}/hook`,
    base,
    received,
    get maxInFlight() {
      return maxInFlight;
    },
    maxInFlightByPath,
    /** Requests open now. */
    get inFlight() {
      return inFlight;
    },
    setHandler(h: Handler) {
      current = h;
    },
    /** A handler that never answers (until the receiver stops). */
    hang(): Promise<Response> {
      return new Promise((resolve) => hung.add(() => resolve(new Response("late"))));
    },
    async waitFor(n: number, timeoutMs = 10_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`receiver got ${received.length} requests, expected ${n}`);
        await new Promise<void>((r) => {
          const t = setTimeout(r, 50);
          waiters.add(() => (clearTimeout(t), r()));
        });
        waiters.clear();
      }
    },
    stop() {
      for (const h of hung) h();
      server.stop(true);
    },
  };
}

/**
 * Creates a test-management project through the API (with a fresh API token of `workspaceId`, the
 * default workspace when omitted): a subscription's `project` must name an existing one.
 */
export async function createProject(t: ReturnType<typeof createTestApp>, code: string, workspaceId?: number): Promise<void> {
  const tokenAnswer = await t.admin("POST", "/api/admin/api-tokens", { name: `project ${code}`, ...(workspaceId === undefined ? {} : { workspaceId }) });
  if (tokenAnswer.status !== 201) throw new Error(`api token for ${code}: ${tokenAnswer.status} ${await tokenAnswer.text()}`);
  const { token } = (await tokenAnswer.json()) as { token: string };
  const r = await t.request("POST", "/api/v1/project", { body: { title: code, code }, headers: { token } });
  if (r.status !== 200) throw new Error(`project ${code}: ${r.status} ${await r.text()}`);
}

export type WebhookTestApp = ReturnType<typeof webhookTestApp>;

/** A test app with a running delivery loop and a fast, short retry schedule (never real minutes). */
export function webhookTestApp(overrides: Partial<Config> = {}, opts: Parameters<typeof createTestApp>[1] = {}) {
  const t = createTestApp({
    webhookAllowPrivateTargets: true,
    webhookPollIntervalMs: 20,
    webhookTimeoutMs: 1000,
    webhookRetrySchedule: [50, 100],
    ...overrides,
  }, opts);
  const loop = startDeliveryLoop(t.ctx);
  return {
    ...t,
    loop,
    publish(event: string, payload: unknown, projectCode: string | null = null): Promise<void> {
      return writeTransaction(t.ctx.db, (tx) => publish(tx, event, payload, { projectCode }));
    },
    async subscribe(body: Record<string, unknown>) {
      const r = await t.admin("POST", "/api/admin/webhooks", { events: ["*"], ...body });
      if (r.status !== 201) throw new Error(`subscribe failed: ${r.status} ${await r.text()}`);
      return (await r.json()) as { id: number; secret: string; url: string };
    },
    async json<T = any>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
      const r = await t.admin(method, path, body);
      const text = await r.text();
      return { status: r.status, body: (text ? JSON.parse(text) : null) as T };
    },
    /** Polls until `check` is truthy (state reached by the loop), failing after a generous deadline. */
    until,
    async close() {
      await loop.stop();
      t.close();
    },
  };
}

/**
 * `setup(overrides)` gives a test its own app (with a running loop) and receiver, both stopped
 * after that test, as is everything a test pushes onto `cleanups`. Call at the top level of a test file.
 */
export function appsPerTest() {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });
  const setup = (overrides: Parameters<typeof webhookTestApp>[0] = {}) => {
    const app = webhookTestApp(overrides);
    const rx = startReceiver();
    cleanups.push(() => app.close(), () => rx.stop());
    return { app, rx };
  };
  return { setup, cleanups };
}
