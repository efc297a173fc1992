import type { createTestApp } from "../helpers";

/**
 * `api()` and `ok()` over a test app's API with its token, for tests that set both up in a
 * `beforeAll` (read each call, so they may be assigned after this runs). A path without a version
 * goes to /api/v1. `ok()` throws on anything but 200 and answers the envelope's `result`.
 */
export function apiCalls(app: () => Pick<ReturnType<typeof createTestApp>, "request">, token: () => string) {
  async function api(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
    const r = await app().request(method, path.startsWith("/api/") ? path : `/api/v1${path}`, { body, headers: { token: token() } });
    const text = await r.text();
    return { status: r.status, body: text ? JSON.parse(text) : null };
  }
  async function ok(method: string, path: string, body?: unknown) {
    const r = await api(method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path} → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.result;
  }
  return { api, ok };
}
