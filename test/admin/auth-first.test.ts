import { afterAll, expect, test } from "bun:test";
import { ADMIN_MAX_BODY_BYTES } from "../../src/admin";
import { TMS_MAX_BODY_BYTES } from "../../src/tms";
import { ADMIN_TOKEN, createTestApp } from "../helpers";

const t = createTestApp();
afterAll(() => t.close());

/** A body that would be 1 GiB of garbage; `pulled` says whether anyone started reading it. */
function untouchableBody() {
  const state = { pulled: false };
  const chunk = new Uint8Array(1024 * 1024).fill(0x7b); // "{{{{…": invalid JSON, if ever read
  let sent = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      state.pulled = true;
      if (sent++ >= 1024) controller.close();
      else controller.enqueue(chunk);
    },
  }, { highWaterMark: 0 }); // no pull until someone reads
  return { stream, state };
}

const doc = (await (await t.request("GET", "/openapi/json")).json()) as { paths: Record<string, Record<string, { security?: unknown[] }>> };
const protectedOperations = Object.entries(doc.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([, op]) => op.security !== undefined && op.security.length > 0)
    .map(([method, op]) => [method.toUpperCase(), path.replace(/\{[^}]+\}/g, "1"), op.security] as const),
);

test("the OpenAPI document lists the protected areas (the walk below covers something)", () => {
  const areas = new Set(protectedOperations.map(([, path]) => path.split("/").slice(0, 3).join("/")));
  for (const area of ["/scim/v2", "/api/admin", "/api/v1", "/api/v2"]) expect(areas).toContain(area);
  expect(protectedOperations.length).toBeGreaterThan(60);
});

test.each(protectedOperations)("%s %s without credentials → 401, body never read", async (method, path) => {
  const hasBody = method !== "GET" && method !== "HEAD";
  const body = untouchableBody();
  const r = await t.app.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: hasBody ? { "content-type": "application/json" } : {},
      ...(hasBody ? { body: body.stream } : {}),
    }),
  );
  expect(r.status).toBe(401);
  expect(r.headers.get("www-authenticate")).toBeTruthy();
  expect(body.state.pulled).toBe(false);
  expect((await r.text()).length).toBeLessThan(500);
});

test("the root-mounted /v1 and /v2 (same handlers, not listed twice) authenticate before reading too", async () => {
  for (const path of ["/v1/project", "/v2/DEMO/run/1/results"]) {
    const body = untouchableBody();
    const r = await t.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: body.stream }));
    expect(r.status).toBe(401);
    expect(body.state.pulled).toBe(false);
  }
});

test("an unknown admin path is a 401 too (no route enumeration without the token)", async () => {
  expect((await t.request("POST", "/api/admin/no-such-thing", { body: { a: 1 } })).status).toBe(401);
  expect((await t.admin("POST", "/api/admin/no-such-thing", { a: 1 })).status).toBe(404);
});

test("/api/administrator is not under the admin guard's prefix", async () => {
  expect((await t.request("GET", "/api/administrator")).status).toBe(404);
});

const chunked = (bytes: number) =>
  new ReadableStream<Uint8Array>({
    start(c) {
      for (let sent = 0; sent < bytes; sent += 64 * 1024) c.enqueue(new Uint8Array(64 * 1024).fill(0x20));
      c.close();
    },
  });

test("admin bodies over the limit → 413 JSON error, declared or counted while reading (chunked)", async () => {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
  const declared = await t.app.handle(new Request("http://localhost/api/admin/webhooks", { method: "POST", headers: { ...auth, "content-length": String(ADMIN_MAX_BODY_BYTES + 1) }, body: "{}" }));
  expect(declared.status).toBe(413);
  const streamed = await t.app.handle(new Request("http://localhost/api/admin/webhooks", { method: "POST", headers: auth, body: chunked(ADMIN_MAX_BODY_BYTES + 1) }));
  expect(streamed.status).toBe(413);
  expect(await streamed.json() as object).toMatchObject({ status: false, error: { code: "payload_too_large" } });
});

test("v1/v2 bodies over the limit → 413 JSON error, counted while reading", async () => {
  const token = ((await (await t.admin("POST", "/api/admin/api-tokens", { name: "limit" })).json()) as any).token as string;
  for (const path of ["/api/v1/project", "/api/v2/DEMO/run/1/results", "/v1/project"]) {
    const r = await t.app.handle(new Request(`http://localhost${path}`, { method: "POST", headers: { token, "content-type": "application/json" }, body: chunked(TMS_MAX_BODY_BYTES + 1) }));
    expect(r.status).toBe(413);
    expect(await r.json() as object).toMatchObject({ status: false, error: { code: "payload_too_large" } });
  }
});

test("a JSON API body of another media type → 415; an empty one with any label is no body", async () => {
  const r = await t.request("POST", "/api/admin/scim-tokens", { rawBody: "name=x", headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/x-www-form-urlencoded" } });
  expect(r.status).toBe(415);
  expect(((await r.json()) as any).error.code).toBe("unsupported_media_type");
});

test("error messages quote at most a short prefix of the offending value", async () => {
  const auth = { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" };
  const long = "x".repeat(60_000);
  for (const [path, body] of [
    ["/api/admin/webhooks", `{"url": "${long}", "events": ["*"]}`],
    ["/api/admin/scim-tokens", `{"name": ${long}}`],
    ["/api/admin/webhooks", `{"${long}": 1}`],
  ] as const) {
    const r = await t.request("POST", path, { rawBody: body, headers: auth });
    expect(r.status).toBe(400);
    expect((await r.text()).length).toBeLessThan(1200);
  }
  const scim = await t.request("GET", `/scim/v2/${"y".repeat(5000)}`);
  expect((await scim.text()).length).toBeLessThan(1200);
});
