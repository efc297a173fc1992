import { afterAll, describe, expect, test } from "bun:test";
import { createScimTestApp, expectScimError, json } from "./helpers";

const t = await createScimTestApp({ scimRateLimit: 1, scimRateBurst: 1000 });
afterAll(() => t.close());

describe("SCIM gate", () => {
  test("missing, malformed, unknown and revoked tokens → 401 with WWW-Authenticate: Bearer", async () => {
    const cases: Record<string, string>[] = [{}, { authorization: "Basic abc" }, { authorization: "Bearer" }, { authorization: "Bearer scim_nope" }];
    for (const headers of cases) {
      const r = await t.request("GET", "/scim/v2/Users", { headers });
      await expectScimError(r, 401);
      expect(r.headers.get("www-authenticate")).toStartWith("Bearer");
    }
    const created = await json(await t.admin("POST", "/api/admin/scim-tokens", { name: "to revoke" }));
    const ok = await t.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${created.token}` } });
    expect(ok.status).toBe(200);
    expect((await t.admin("DELETE", `/api/admin/scim-tokens/${created.id}`)).status).toBe(204);
    await expectScimError(await t.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${created.token}` } }), 401);
  });

  test("401 comes before reading the body (no 413/415/400 for anonymous clients)", async () => {
    await expectScimError(await t.request("POST", "/scim/v2/Users", { rawBody: "{not json", headers: { "content-type": "text/plain" } }), 401);
  });

  test("SCIM disabled → 403, enabled again → 200", async () => {
    expect((await t.admin("PATCH", "/api/admin/scim", { enabled: false })).status).toBe(200);
    await expectScimError(await t.scim("GET", "/Users"), 403);
    await expectScimError(await t.scim("POST", "/Users", { userName: "a@b.c" }), 403);
    const s = await json(await t.admin("PATCH", "/api/admin/scim", { enabled: true }));
    expect(s.enabled).toBe(true);
    expect((await t.scim("GET", "/Users")).status).toBe(200);
  });
});

describe("media types and body limit", () => {
  test("other media type → 415", async () => {
    await expectScimError(await t.request("POST", "/scim/v2/Users", { rawBody: "{}", headers: { authorization: `Bearer ${t.token}`, "content-type": "application/xml" } }), 415);
    await expectScimError(await t.request("POST", "/scim/v2/Users", { rawBody: "a=b", headers: { authorization: `Bearer ${t.token}`, "content-type": "application/x-www-form-urlencoded" } }), 415);
  });

  test("body over 800000 bytes → 413, with Content-Length and chunked without it", async () => {
    const big = JSON.stringify({ userName: "big@example.com", title: "x".repeat(800_001) });
    await expectScimError(await t.request("POST", "/scim/v2/Users", { rawBody: big, headers: { authorization: `Bearer ${t.token}`, "content-type": "application/scim+json" } }), 413);
    const chunk = new TextEncoder().encode("x".repeat(100_000));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(c) {
        if (sent++ < 20) c.enqueue(chunk);
        else c.close();
      },
    });
    const r = await t.request("POST", "/scim/v2/Users", { rawBody: stream, headers: { authorization: `Bearer ${t.token}`, "content-type": "application/scim+json" } });
    await expectScimError(r, 413);
    expect(sent).toBeLessThan(20); // stopped reading early
  });

  test("malformed JSON → 400 invalidSyntax", async () => {
    await expectScimError(await t.request("POST", "/scim/v2/Users", { rawBody: '{"userName": ', headers: { authorization: `Bearer ${t.token}`, "content-type": "application/scim+json; charset=utf-8" } }), 400, "invalidSyntax");
  });
});

describe("routing", () => {
  test("unsupported methods on known paths → 405 with Allow", async () => {
    for (const [m, p] of [["DELETE", "/Users"], ["PUT", "/Users"], ["POST", "/Users/1"], ["DELETE", "/Groups"], ["POST", "/ServiceProviderConfig"], ["DELETE", "/Schemas"]] as const) {
      const r = await t.scim(m, p);
      await expectScimError(r, 405);
      expect(r.headers.get("allow")).toContain("GET");
    }
  });

  test("unknown SCIM route → SCIM 404", async () => {
    await expectScimError(await t.scim("GET", "/Nope"), 404);
    await expectScimError(await t.scim("GET", "/Users/1/extra"), 404);
  });
});

describe("rate limit", () => {
  test("a drained bucket answers 429 with Retry-After and a SCIM body; other tokens are unaffected", async () => {
    const other = await createScimTestApp({ scimRateLimit: 1, scimRateBurst: 3 });
    try {
      for (let i = 0; i < 3; i++) expect((await other.scim("GET", "/Users")).status).toBe(200);
      const r = await other.scim("GET", "/Users");
      await expectScimError(r, 429);
      expect(Number(r.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      const second = await json(await other.admin("POST", "/api/admin/scim-tokens", { name: "second" }));
      expect((await other.request("GET", "/scim/v2/Users", { headers: { authorization: `Bearer ${second.token}` } })).status).toBe(200);
    } finally {
      other.close();
    }
  });
});
